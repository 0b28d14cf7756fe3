// Where the trajectory layout draws what ng_agent_observations adds: context compactions and sandbox runs. Neither
// carries a measured interval of its own beyond what is used here: a compaction its observed_at (else it sits
// between the last call before it and the first after it), a sandbox nothing but durations (wall and CPU time),
// so it spans the measured intervals of the tool calls that ran in it, or, when none did, the whole run, marked as
// unpositioned.
import type { TrajectoryParts } from './trajectory-read';
import type { CallRefIndex } from './trajectory-refs';
import { Timing } from './trajectory-timing';

interface Arrays {
  x0: Float64Array;
  x1: Float64Array;
  timing: Uint8Array;
  group: Int32Array;
}

const placed = (timing: Uint8Array, item: number) => timing[item] !== Timing.unplaced;

export function placeCompactions(
  parts: Pick<TrajectoryParts, 'compactions'>,
  refs: CallRefIndex,
  a: Arrays & { base: number; groupOf: (id: string) => number; callItem: (call: number) => number; ms: (s: number) => number },
): { before: number; after: number; performing: number[] }[] {
  return parts.compactions.map((c, k) => {
    const item = a.base + k;
    a.group[item] = a.groupOf(c.invocation_id);
    const before = refs.resolve(c.before_model_call);
    const after = refs.resolve(c.after_model_call);
    const performing = c.model_calls.map((r) => refs.resolve(r)).filter((i) => i >= 0);
    const b = before >= 0 && placed(a.timing, a.callItem(before)) ? a.x1[a.callItem(before)] : null;
    const f = after >= 0 && placed(a.timing, a.callItem(after)) ? a.x0[a.callItem(after)] : null;
    if (c.observed_at !== null && Number.isFinite(c.observed_at)) {
      a.x0[item] = a.x1[item] = a.ms(c.observed_at);
      a.timing[item] = Timing.measured;
    } else if (b !== null && f !== null) {
      [a.x0[item], a.x1[item], a.timing[item]] = [b, Math.max(b, f), Timing.between];
    } else if (b !== null || f !== null) {
      a.x0[item] = a.x1[item] = (b ?? f)!;
      a.timing[item] = Timing.partial;
    }
    return { before, after, performing };
  });
}

export function placeSandboxes(
  parts: Pick<TrajectoryParts, 'sandboxes' | 'toolCalls'>,
  a: Arrays & { base: number; toolBase: number; run: () => number; extent: [number, number] | null },
): void {
  const toolsIn = new Map<string, number[]>();
  parts.toolCalls.forEach((t, j) => {
    if (t.sandbox_id === null) return;
    const at = toolsIn.get(t.sandbox_id);
    if (at) at.push(j);
    else toolsIn.set(t.sandbox_id, [j]);
  });
  parts.sandboxes.forEach((s, k) => {
    const item = a.base + k;
    const tools = (s.sandbox_id !== null ? toolsIn.get(s.sandbox_id) : undefined) ?? [];
    const measured = tools.map((j) => a.toolBase + j).filter((t) => a.timing[t] === Timing.measured || a.timing[t] === Timing.partial);
    a.group[item] = measured.length ? a.group[measured[0]] : tools.length ? a.group[a.toolBase + tools[0]] : a.run();
    if (measured.length) {
      a.x0[item] = measured.reduce((lo, t) => Math.min(lo, a.x0[t]), Infinity);
      a.x1[item] = measured.reduce((hi, t) => Math.max(hi, a.x1[t]), -Infinity);
      a.timing[item] = Timing.toolExtent;
    } else if (a.extent) {
      [a.x0[item], a.x1[item], a.timing[item]] = [a.extent[0], a.extent[1], Timing.unpositioned];
    }
  });
}
