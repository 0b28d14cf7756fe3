// A rollout's trajectory for the API and the pages (GET .../trajectory): the line's ng_trajectory as stored, or the
// collector's projection computed from the line and the served capture dir (§5.1, §5.2, §5.4), with what only
// ng_agent_observations carries (compactions, sandbox runs, its gaps).
import { isJsonObject, type JsonObject, type JsonValue } from '../../capture/json-value';
import { toolCallsAndReasoning } from '../../capture/record';
import type { TrajectorySource } from '../../capture/vocabulary';
import type { TrajectoryResponse } from '../../api/trajectory-schemas';
import { collectRolloutLine, projectLine } from '../../rollouts/collect-line';
import { TRAJECTORY_KEYS } from '../../rollouts/collector';
import { validateBundle } from '../../rollouts/observations';
import { validateTrajectory } from '../../rollouts/trajectory-model';
import type { IndexReader } from '../reader';
import { loadRolloutLine } from './payload';

export interface TrajectoryOptions {
  /** model_calls[*].request / .response as stored; otherwise null. */
  includePayloads: boolean;
}

// The last few answers without payloads, keyed by what they are computed from (the line's span, the rollout's
// call aggregates, which move whenever its capture changes): a large trajectory takes about a second to read,
// validate and project, and the rollout page, its tool call pages and the diff each ask for it. Callers must not
// change an answer. Shared by every module instance (the Next routes and serve's own).
const KEPT = 4;
const CACHE = Symbol.for('callscope.trajectoryCache');
const cache = (): Map<string, TrajectoryResponse> => ((globalThis as { [CACHE]?: Map<string, TrajectoryResponse> })[CACHE] ??= new Map());

/** Null for an unknown run or rollout. The answer may be shared: do not change it. */
export async function rolloutTrajectory(index: IndexReader, runId: string, key: string, opts: TrajectoryOptions): Promise<TrajectoryResponse | null> {
  const run = await index.runSource(runId);
  const row = await index.rollout(runId, key);
  if (!run || !row) return null;
  const span = await index.lineLocation(runId, key);
  if (opts.includePayloads) return compute(run.captureDir, row.rollout_id, span, opts);
  const stamp = [runId, key, span?.path, span?.start, span?.length, row.num_calls, row.tokens_total, row.latency_sum, row.errors, row.marker, row.unreadable].join('\u0000');
  const kept = cache();
  const hit = kept.get(stamp);
  if (hit) {
    kept.delete(stamp);
    kept.set(stamp, hit);
    return hit;
  }
  const answer = await compute(run.captureDir, row.rollout_id, span, opts);
  kept.set(stamp, answer);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return answer;
}

async function compute(
  captureDir: string | null, rolloutId: string | null, span: { path: string; start: number; length: number } | null, opts: TrajectoryOptions,
): Promise<TrajectoryResponse> {
  // A rollout without a line (a capture file alone) is no collector row: there is nothing to project from.
  const line = span ? await loadRolloutLine(span.path, span.start, span.length).catch(() => null) : null;
  if (!line) return respond('none', null, [], null, null);

  if (isJsonObject(line.ng_trajectory)) {
    const checked = validateTrajectory(line.ng_trajectory);
    return respond('line', line.ng_trajectory, checked.ok ? [] : checked.problems.map((p) => p.message), null, line, opts);
  }
  // As the collector: merge with the served capture dir, then project. A run without one holds lines the collector
  // already merged (their own ng_model_call_capture): only the projection is left to do.
  if (captureDir && rolloutId !== null) await collectRolloutLine(line, [captureDir]);
  else projectLine(line);
  if (!TRAJECTORY_KEYS.some((k) => k in line)) return respond('none', null, [], null, line);
  const trajectory = isJsonObject(line.ng_trajectory) ? line.ng_trajectory : null;
  // A failed projection leaves no ng_trajectory and a trajectory_projection_failed gap with the exception's class.
  return respond('projected', trajectory, [], trajectory ? null : projectionFailure(line), line, opts);
}

function projectionFailure(line: JsonObject): string {
  for (const key of ['ng_model_call_capture', 'ng_agent_observations']) {
    const gaps = isJsonObject(line[key]) ? (line[key] as JsonObject).gaps : undefined;
    const failed = Array.isArray(gaps) ? gaps.find((g) => isJsonObject(g) && g.code === 'trajectory_projection_failed') : undefined;
    if (isJsonObject(failed) && typeof failed.detail === 'string') return failed.detail;
  }
  return 'unknown';
}

function respond(
  source: TrajectorySource, trajectory: JsonObject | null, problems: string[], projectionError: string | null, line: JsonObject | null,
  opts: TrajectoryOptions = { includePayloads: false },
): TrajectoryResponse {
  const requested = trajectory ? requestedTools(trajectory) : {};
  if (trajectory && !opts.includePayloads) trajectory = withoutPayloads(trajectory);
  const bundle = line?.ng_agent_observations;
  const checked = bundle !== undefined && bundle !== null ? validateBundle(bundle) : null;
  let observations: TrajectoryResponse['observations'] = null;
  if (checked?.ok) {
    const records = (checked.value.records as JsonObject[]) ?? [];
    observations = {
      source: checked.value.source as string,
      compactions: records.filter((r) => r.kind === 'context_compaction') as never[],
      sandboxes: records.filter((r) => r.kind === 'sandbox') as never[],
      gaps: checked.value.gaps as never[],
    };
  }
  return {
    source,
    trajectory: trajectory as TrajectoryResponse['trajectory'],
    problems,
    projection_error: projectionError,
    observations,
    observation_problems: checked && !checked.ok ? checked.problems.map((p) => p.message) : [],
    requested_tools: requested,
  };
}

/** The tool_call_ids each model call's response asked for (§3.3). */
function requestedTools(trajectory: JsonObject): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!Array.isArray(trajectory.model_calls)) return out;
  for (const call of trajectory.model_calls) {
    if (!isJsonObject(call) || typeof call.model_call_id !== 'string' || !isJsonObject(call.response)) continue;
    const ids = toolCallsAndReasoning(call.response)
      .tool_calls.map((t) => t.call_id)
      .filter((id): id is string => typeof id === 'string' && id !== '');
    if (ids.length) out[call.model_call_id] = ids;
  }
  return out;
}

/** The record with every model call's request and response null (a shallow copy: the stored record is not changed). */
function withoutPayloads(trajectory: JsonObject): JsonObject {
  if (!Array.isArray(trajectory.model_calls)) return trajectory;
  const calls: JsonValue[] = trajectory.model_calls.map((c) => (isJsonObject(c) ? { ...c, request: null, response: null } : c));
  return { ...trajectory, model_calls: calls };
}
