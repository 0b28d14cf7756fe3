// What the rollouts list sorts and filters a rollout's trajectory by, read from its line: the line's ng_trajectory
// when it has one (what GET .../trajectory returns as stored), else its ng_agent_observations merged as the
// collector's projection merges them (§5.4 step 3: invocations not already present appended, tool calls merged by
// (invocation_id, tool_call_id), an observed `unknown` status never overwriting a known one). Compactions and
// sandbox runs are counted from the observations, which alone carry them. Pure; tolerant of invalid records (a
// stored trajectory is shown as stored, so it is counted as stored).
import { isJsonObject, numericValue, type JsonObject, type JsonValue } from '../capture/json-value';
import type { TrajectorySource } from '../capture/vocabulary';

/** One tool call as the index keeps it (a row per tool call). */
export interface ToolCallRow {
  invocation_id: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  status: string | null;
  started_at: number | null;
  /** Measured: duration_ms, else completed_at - started_at when both are there; null when not measured. */
  duration_ms: number | null;
  timing_source: string | null;
  sandbox_id: string | null;
}

export interface TrajectorySummary {
  source: TrajectorySource;
  invocations: number;
  /** How deep subagents nest: 0 for the main agent alone, 1 for its subagents, and so on. */
  subagent_depth: number;
  turns: number;
  tool_calls: number;
  /** Tool calls whose status is `failed` (timeouts, cancellations and the rest are their own statuses). */
  tool_failed: number;
  /** The measured tool time in ms (sum and max over the tool calls with a measured interval); null with none measured. */
  tool_time: number | null;
  tool_time_max: number | null;
  /** Tool calls without a measured interval. */
  tool_unmeasured: number;
  compactions: number;
  sandboxes: number;
  /** The trajectory's gaps (or, projected, the observations'), as {code, detail?}, first occurrence kept. */
  gaps: { code: string; detail?: string }[];
  tools: ToolCallRow[];
}

const text = (v: JsonValue | undefined): string | null => (typeof v === 'string' ? v : null);
const list = (v: JsonValue | undefined): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

/**
 * The summary of a line's trajectory; null when the line has neither an ng_trajectory object nor observations
 * (`captured`: the line's rollout has captured calls, so the collector would still project a trajectory of them).
 */
export function trajectorySummary(trajectory: JsonValue | undefined, observations: JsonValue | undefined, captured: boolean): TrajectorySummary | null {
  const stored = isJsonObject(trajectory) ? trajectory : null;
  const bundle = isJsonObject(observations) ? observations : null;
  if (!stored && !bundle && !captured) return null;
  const records = bundle ? list(bundle.records) : [];
  let invocations: JsonObject[];
  let tools: JsonObject[];
  if (stored) {
    invocations = list(stored.invocations);
    tools = list(stored.tool_calls);
  } else {
    invocations = [];
    const ids = new Set<string>();
    for (const r of records) {
      if (r.kind !== 'agent_invocation') continue;
      const id = text(r.invocation_id);
      if (id !== null && ids.has(id)) continue;
      if (id !== null) ids.add(id);
      invocations.push(r);
    }
    tools = mergeToolObservations(records.filter((r) => r.kind === 'tool_call'));
  }
  const rows = tools.map(toolRow);
  const measured = rows.map((t) => t.duration_ms).filter((d): d is number => d !== null);
  return {
    source: stored ? 'line' : 'projected',
    invocations: invocations.length,
    subagent_depth: subagentDepth(invocations),
    turns: stored ? list(stored.turns).length : 0,
    tool_calls: rows.length,
    tool_failed: rows.filter((t) => t.status === 'failed').length,
    tool_time: measured.length ? measured.reduce((a, b) => a + b, 0) : null,
    tool_time_max: measured.length ? Math.max(...measured) : null,
    tool_unmeasured: rows.length - measured.length,
    compactions: records.filter((r) => r.kind === 'context_compaction').length,
    sandboxes: records.filter((r) => r.kind === 'sandbox').length,
    gaps: gapsOf(stored ? stored.gaps : bundle?.gaps),
    tools: rows,
  };
}

function mergeToolObservations(observed: JsonObject[]): JsonObject[] {
  const out: JsonObject[] = [];
  const at = new Map<string, number>();
  for (const obs of observed) {
    const key = JSON.stringify([obs.invocation_id ?? null, obs.tool_call_id ?? null]);
    const i = at.get(key);
    if (i === undefined) {
      at.set(key, out.length);
      out.push(obs);
      continue;
    }
    const merged: JsonObject = { ...out[i] };
    for (const [k, v] of Object.entries(obs)) {
      if (v === null || v === undefined) continue;
      if (k === 'status' && v === 'unknown' && merged.status !== undefined && merged.status !== 'unknown') continue;
      merged[k] = v;
    }
    out[i] = merged;
  }
  return out;
}

function toolRow(t: JsonObject): ToolCallRow {
  const started = numericValue(t.started_at);
  const completed = numericValue(t.completed_at);
  const duration = numericValue(t.duration_ms);
  return {
    invocation_id: text(t.invocation_id),
    tool_call_id: text(t.tool_call_id),
    tool_name: text(t.tool_name),
    status: text(t.status) ?? 'unknown',
    started_at: started,
    duration_ms: duration ?? (started !== null && completed !== null && completed >= started ? (completed - started) * 1000 : null),
    timing_source: text(t.timing_source),
    sandbox_id: text(t.sandbox_id),
  };
}

/** The deepest parent chain among the invocations (a parent not in the record ends a chain; a cycle is cut). */
export function subagentDepth(invocations: readonly JsonObject[]): number {
  const parent = new Map<string, string | null>();
  for (const inv of invocations) {
    const id = text(inv.invocation_id);
    if (id !== null) parent.set(id, text(inv.parent_invocation_id));
  }
  const depth = new Map<string, number>();
  const of = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const chain: string[] = [];
    const seen = new Set<string>();
    let at: string | null = id;
    let base = -1;
    while (at !== null && parent.has(at) && !seen.has(at)) {
      const d = depth.get(at);
      if (d !== undefined) {
        base = d;
        break;
      }
      seen.add(at);
      chain.push(at);
      at = parent.get(at)!;
    }
    for (let i = chain.length - 1; i >= 0; i--) depth.set(chain[i], ++base);
    return depth.get(id)!;
  };
  let max = 0;
  for (const id of parent.keys()) max = Math.max(max, of(id));
  return max;
}

function gapsOf(v: JsonValue | undefined): { code: string; detail?: string }[] {
  const out: { code: string; detail?: string }[] = [];
  const seen = new Set<string>();
  for (const g of list(v)) {
    const code = text(g.code);
    if (code === null) continue;
    const detail = text(g.detail);
    const key = JSON.stringify([code, text(g.invocation_id), detail]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(detail !== null ? { code, detail } : { code });
  }
  return out;
}
