// The model calls around a tool call: the call whose response requested it (requested_tools, read from the
// response payloads) and the next call of the same invocation, which is the one that reads its output. The
// timeline places a tool call without measured times between those two; the tool call page links them. Without a
// requesting call, a measured tool call's neighbours are the calls of its invocation that ended before it started
// and started after it ended; an unmeasured one then has none.
import type { TrajectoryToolCall } from '../rollouts/observations';
import { drawnSpan, drawnSpans, measuredInterval, type DrawnSpans } from './trajectory-timing';
import type { TrajectoryParts } from './trajectory-read';

export interface ToolNeighbours {
  /** Positions in `modelCalls`, or -1. */
  requesting: number;
  before: number;
  after: number;
}

/** The first of `n` ascending keys (read through `at`) that is >= x (> x when `strict`). */
function lowerBound(n: number, at: (k: number) => number, x: number, strict: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strict ? at(mid) <= x : at(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Builds, once per trajectory, the lookup of every tool call's neighbours. `owners[i]` is the invocation position
 * owning model call i (-1: none); `invocationAt(id)` the position of an invocation id (-1: not in the record).
 */
export function toolNeighbourFinder(
  parts: Pick<TrajectoryParts, 'modelCalls' | 'requestedTools'>,
  owners: Int32Array,
  invocationAt: (id: string) => number,
  /** The calls' drawn spans, when the caller has them already. */
  spans: Pick<DrawnSpans, 'start' | 'end'> = drawnSpans(parts.modelCalls),
) {
  const n = parts.modelCalls.length;
  const { start, end } = spans;
  // the placed calls of each owner, by start (then position)
  const sequences = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(start[i])) continue;
    const seq = sequences.get(owners[i]);
    if (seq) seq.push(i);
    else sequences.set(owners[i], [i]);
  }
  for (const seq of sequences.values()) seq.sort((a, b) => start[a] - start[b] || a - b);
  // by end, built for an owner when a tool call without a requesting call first asks
  const byEnd = new Map<number, number[]>();
  const endsOf = (owner: number) => {
    let ends = byEnd.get(owner);
    if (!ends) byEnd.set(owner, (ends = [...(sequences.get(owner) ?? [])].sort((a, b) => end[a] - end[b] || a - b)));
    return ends;
  };
  const rank = new Int32Array(n).fill(-1);
  for (const seq of sequences.values()) seq.forEach((i, k) => (rank[i] = k));
  const requesters = new Map<string, number[]>();
  const byId = new Map<string, number>();
  parts.modelCalls.forEach((c, i) => c.model_call_id && !byId.has(c.model_call_id) && byId.set(c.model_call_id, i));
  for (const [callId, tools] of Object.entries(parts.requestedTools)) {
    const i = byId.get(callId);
    if (i === undefined) continue;
    for (const t of tools) {
      const at = requesters.get(t);
      if (at) at.push(i);
      else requesters.set(t, [i]);
    }
  }

  return (tool: TrajectoryToolCall): ToolNeighbours => {
    const own = invocationAt(tool.invocation_id);
    const asked = requesters.get(tool.tool_call_id) ?? [];
    const requesting = asked.find((i) => owners[i] === own && own >= 0) ?? (asked.length === 1 ? asked[0] : -1);
    if (requesting >= 0) {
      const seq = sequences.get(owners[requesting]);
      const k = rank[requesting];
      return { requesting, before: requesting, after: seq && k >= 0 && k + 1 < seq.length ? seq[k + 1] : -1 };
    }
    const span = drawnSpan(measuredInterval(tool.started_at, tool.completed_at, tool.duration_ms));
    const seq = own >= 0 ? sequences.get(own) : undefined;
    const ends = own >= 0 ? endsOf(own) : undefined;
    if (!span || !seq || !ends) return { requesting: -1, before: -1, after: -1 };
    // before: the call that ended last by the tool's start; after: the first that started at or after its end
    const upTo = lowerBound(ends.length, (k) => end[ends[k]], span[0], true);
    const from = lowerBound(seq.length, (k) => start[seq[k]], span[1], false);
    return { requesting: -1, before: upTo > 0 ? ends[upTo - 1] : -1, after: from < seq.length ? seq[from] : -1 };
  };
}
