// The collector's post-processing of a rollout line around the capture merge (spec §5.1 step 3, §5.2): the
// rewrite of ng_agent_observations (validated, compaction-associated, joined), the ng_trajectory attachment with
// its failure path, and the payload stripping, as base_responses_api_model.py and rollout_collection.py do them.
import { isJsonObject, setKey, type JsonObject } from '../capture/json-value';
import type { ModelCallRecord } from '../capture/record';
import { associateClaudeCodeCompactionCalls, CLAUDE_CODE_SOURCE } from './compaction';
import { gap, joinModelCallObservations, JoinError, type GapObject } from './join';
import { validateBundle } from './observations';
import { buildTrajectoryRecord, ProjectionError, trajectoryIdentity } from './projection';

/** The collector projects a result that has any of these (rollout_collection.py). */
export const TRAJECTORY_KEYS = ['ng_model_call_capture', 'ng_agent_observations', 'ng_trajectory'] as const;

export const PAYLOAD_KEYS = ['request', 'response', 'request_raw', 'response_raw'] as const;

/**
 * §5.1 step 3 on a line: validates `ng_agent_observations`, runs the claude_code association and the join, and
 * rewrites the line's bundle in normalized form. Returns the capture gaps to add (agent_observation_join_failed).
 */
export function rewriteObservations(line: JsonObject, calls: readonly ModelCallRecord[]): GapObject[] {
  const raw = line.ng_agent_observations;
  if (raw === undefined || raw === null) return [];
  const validated = validateBundle(raw);
  if (!validated.ok) return [gap('agent_observation_join_failed')];
  let bundle = validated.value;
  try {
    if (bundle.source === CLAUDE_CODE_SOURCE) {
      try {
        bundle = associateClaudeCodeCompactionCalls(bundle, calls);
      } catch {
        (bundle.gaps as JsonObject[]).push(gap('compaction_model_call_join_failed'));
      }
    }
    bundle = joinModelCallObservations(bundle, calls);
  } catch (err) {
    if (err instanceof JoinError) return [gap('agent_observation_join_failed')];
    throw err;
  }
  setKey(line, 'ng_agent_observations', bundle);
  return [];
}

/** _has_observation_gap: in ng_trajectory.gaps or ng_agent_observations.gaps, whichever are objects. */
export function hasObservationGap(result: JsonObject, code: string): boolean {
  for (const key of ['ng_trajectory', 'ng_agent_observations']) {
    const o = result[key];
    const gaps = isJsonObject(o) ? o.gaps : undefined;
    if (Array.isArray(gaps) && gaps.some((g) => isJsonObject(g) && g.code === code)) return true;
  }
  return false;
}

/** _attach_trajectory_record: the projection set on the result, or its failure recorded; payloads stripped on success. */
export function attachTrajectoryRecord(row: JsonObject, result: JsonObject): { ok: boolean; error?: ProjectionError } {
  try {
    setKey(result, 'ng_trajectory', buildTrajectoryRecord(row, result));
  } catch (err) {
    if (!(err instanceof ProjectionError)) throw err;
    delete result.ng_trajectory;
    const failure: JsonObject = { code: 'trajectory_projection_failed', detail: err.pythonClass };
    let target = result.ng_model_call_capture;
    if (!isJsonObject(target)) target = result.ng_agent_observations;
    let attached = false;
    if (isJsonObject(target)) {
      if (target.gaps === undefined) setKey(target, 'gaps', []);
      if (Array.isArray(target.gaps)) {
        target.gaps.push(failure);
        attached = true;
      }
    }
    if (!attached) {
      try {
        const { task_id, rollout_id } = trajectoryIdentity(row);
        setKey(result, 'ng_trajectory', {
          schema_version: '1.0',
          task_id,
          rollout_id,
          invocations: [],
          turns: [],
          model_calls: [],
          tool_calls: [],
          gaps: [gap('trajectory_projection_failed', null, err.pythonClass)],
        });
      } catch (again) {
        if (!(again instanceof ProjectionError)) throw again;
      }
    }
    return { ok: false, error: err };
  }
  stripCapturePayloads(result);
  return { ok: true };
}

export function stripCapturePayloads(result: JsonObject): void {
  const capture = result.ng_model_call_capture;
  const calls = isJsonObject(capture) ? capture.calls : undefined;
  if (!Array.isArray(calls)) return;
  for (const call of calls) if (isJsonObject(call)) for (const k of PAYLOAD_KEYS) delete call[k];
}

