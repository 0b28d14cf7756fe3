// The tool calls of a diff's pair of calls: what each side's call asked for (the trajectory's requested tools, §3.3),
// with the status, measured time and output its trajectory records for each, aligned by tool name in order, so that a
// reader sees which tool the other rollout did not call, and where the same tool failed on one side or answered
// differently. Pure: the trajectories are read by lib/index/compare/rollout-diff.ts.
import { isJsonObject, numericValue, type JsonObject, type JsonValue } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import { diffSequences } from './diff-sequence';

export interface DiffTool {
  tool_call_id: string;
  tool_name: string | null;
  status: string | null;
  /** Measured: duration_ms, else completed_at − started_at; null when not measured. */
  duration_ms: number | null;
}

export interface ToolPair {
  a: DiffTool | null;
  b: DiffTool | null;
  /** Both outputs the same; null when a side lacks the call or its output. */
  same_output: boolean | null;
}

/** The tool calls a trajectory holds, by tool_call_id, with their outputs serialized (for comparing). */
export function toolsById(trajectory: JsonObject | null): Map<string, { tool: DiffTool; output: string | null }> {
  const out = new Map<string, { tool: DiffTool; output: string | null }>();
  const tools = trajectory && Array.isArray(trajectory.tool_calls) ? trajectory.tool_calls.filter(isJsonObject) : [];
  for (const t of tools) {
    if (typeof t.tool_call_id !== 'string' || out.has(t.tool_call_id)) continue;
    const started = numericValue(t.started_at);
    const completed = numericValue(t.completed_at);
    const duration = numericValue(t.duration_ms) ?? (started !== null && completed !== null && completed >= started ? (completed - started) * 1000 : null);
    out.set(t.tool_call_id, {
      tool: { tool_call_id: t.tool_call_id, tool_name: typeof t.tool_name === 'string' ? t.tool_name : null, status: typeof t.status === 'string' ? t.status : null, duration_ms: duration },
      output: outputText(t.output),
    });
  }
  return out;
}

const outputText = (v: JsonValue | undefined): string | null => {
  if (v === undefined || v === null) return null;
  try {
    return typeof v === 'string' ? v : serialize(v);
  } catch {
    return null;
  }
};

/** Side a's and side b's requested tool calls, aligned by tool name (longest common subsequence, order kept). */
export function alignTools(
  aIds: readonly string[], bIds: readonly string[],
  a: ReturnType<typeof toolsById>, b: ReturnType<typeof toolsById>,
): ToolPair[] {
  const name = (ids: readonly string[], side: ReturnType<typeof toolsById>, i: number) => side.get(ids[i])?.tool.tool_name ?? `id:${ids[i]}`;
  const found = (ids: readonly string[], side: ReturnType<typeof toolsById>, i: number): DiffTool =>
    side.get(ids[i])?.tool ?? { tool_call_id: ids[i], tool_name: null, status: null, duration_ms: null };
  const out: ToolPair[] = [];
  for (const run of diffSequences(aIds.length, bIds.length, (i, j) => name(aIds, a, i) === name(bIds, b, j))) {
    for (let k = 0; k < run.count; k++) {
      if (run.op === 'same') {
        const oa = a.get(aIds[run.a + k])?.output ?? null;
        const ob = b.get(bIds[run.b + k])?.output ?? null;
        out.push({ a: found(aIds, a, run.a + k), b: found(bIds, b, run.b + k), same_output: oa === null || ob === null ? null : oa === ob });
      } else if (run.op === 'removed') out.push({ a: found(aIds, a, run.a + k), b: null, same_output: null });
      else out.push({ a: null, b: found(bIds, b, run.b + k), same_output: null });
    }
  }
  return out;
}
