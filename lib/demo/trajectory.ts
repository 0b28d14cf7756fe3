// The collector's `ng_trajectory` projection (spec §5.2, §5.4) for a rollout whose agent produced neither a
// trajectory nor observations: no invocations or turns, one TrajectoryModelCall per captured call (owning the
// payloads), the capture's gaps, then the "unavailable" gaps. Serialized with every field, nulls included.
import { isJsonObject, type JsonObject, type JsonValue } from '../capture/json';
import { validTokens } from '../capture/record';

const METADATA_FIELDS = ['response_id', 'model_ref', 'model', 'dialect', 'status_code', 'response_status', 'finish_reason', 'error_category', 'latency_ttft_ms'] as const;

const gap = (code: string, detail: JsonValue = null): JsonObject => ({ code, invocation_id: null, detail });

function modelCall(call: JsonObject): JsonObject {
  const metadata: JsonObject = {};
  for (const key of METADATA_FIELDS) metadata[key] = call[key] ?? null;
  if (metadata.response_status === null && isJsonObject(call.response) && typeof call.response.status === 'string') {
    metadata.response_status = call.response.status;
  }
  const tokens = (v: JsonValue | undefined) => validTokens(v);
  return {
    model_call_id: call.model_call_id ?? null,
    started_at: call.started_at ?? null,
    completed_at: call.completed_at ?? null,
    duration_ms: call.latency_total_ms ?? null,
    request: call.request ?? call.request_raw ?? null,
    response: call.response ?? call.response_raw ?? null,
    response_metadata: metadata,
    token_stats: {
      prompt_tokens: tokens(call.tokens_in),
      completion_tokens: tokens(call.tokens_out),
      reasoning_tokens: tokens(call.tokens_reasoning),
      total_tokens: tokens(call.tokens_total),
      cached_tokens: tokens(call.cached_tokens),
    },
  };
}

/** `line` is the rollout line (for the task id); `capture` the attachment built with payloads. */
export function projectTrajectory(line: JsonObject, capture: JsonObject): JsonObject {
  const taskKey = ['task_id', 'problem_id', 'instance_id'].find((k) => line[k] !== undefined && line[k] !== null);
  const taskId = taskKey ? line[taskKey] : line._ng_task_index;
  const calls = Array.isArray(capture.calls) ? capture.calls.filter(isJsonObject) : [];
  const gaps: JsonObject[] = [];
  for (const g of Array.isArray(capture.gaps) ? capture.gaps : []) {
    if (isJsonObject(g)) gaps.push(gap(g.code as string, g.detail ?? null));
  }
  if (calls.length === 0) gaps.push(gap('model_calls_unavailable'));
  gaps.push(gap('turns_unavailable'), gap('conversation_unavailable'));
  return {
    schema_version: '1.0',
    task_id: typeof taskId === 'string' ? taskId : String(taskId),
    rollout_id: capture.rollout_id,
    invocations: [],
    turns: [],
    model_calls: calls.map(modelCall),
    tool_calls: [],
    gaps,
  };
}
