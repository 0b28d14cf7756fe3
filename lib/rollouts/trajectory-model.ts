// `ng_trajectory` schema 1.0 (spec §5.4, §9): TrajectoryRecord and its parts, as zod schemas for readers and as
// the exact pydantic models (pymodel.ts) the projection validates and dumps with.
import { z } from 'zod';
import { isJsonObject, truthy, type JsonObject, type JsonValue } from '../capture/json-value';
import {
  AgentInvocationSchema,
  ModelCallRefSchema,
  ModelServerRefSchema,
  ObservationGapSchema,
  TOOL_CALL_FIELDS,
  TrajectoryToolCallSchema,
  agentInvocation,
  modelCallRef,
  modelServerRef,
  observationGap,
  timingProblem,
  type Validated,
} from './observations';
import { any, bool, dflt, float, int, list, literal, model, opt, req, str } from './pymodel';

const count = z.number().int().min(0).nullable().default(null);
export const TrajectoryTokenStatsSchema = z.strictObject({
  prompt_tokens: count,
  completion_tokens: count,
  reasoning_tokens: count,
  total_tokens: count,
  cached_tokens: count,
});
export const TrajectoryResponseMetadataSchema = z.strictObject({
  response_id: z.string().nullable().default(null),
  model_ref: ModelServerRefSchema.nullable().default(null),
  model: z.string().nullable().default(null),
  dialect: z.string().nullable().default(null),
  status_code: z.number().int().nullable().default(null),
  response_status: z.string().nullable().default(null),
  finish_reason: z.string().nullable().default(null),
  error_category: z.string().nullable().default(null),
  latency_ttft_ms: z.number().min(0).nullable().default(null),
});
export const TrajectoryModelCallSchema = z.strictObject({
  model_call_id: z.string().nullable().default(null),
  started_at: z.number().nullable().default(null),
  completed_at: z.number().nullable().default(null),
  duration_ms: z.number().min(0).nullable().default(null),
  request: z.unknown().default(null),
  response: z.unknown().default(null),
  response_metadata: TrajectoryResponseMetadataSchema.default(() => TrajectoryResponseMetadataSchema.parse({})),
  token_stats: TrajectoryTokenStatsSchema.default(() => TrajectoryTokenStatsSchema.parse({})),
});
export type TrajectoryModelCall = z.infer<typeof TrajectoryModelCallSchema>;
export const TrajectoryTurnSchema = z.strictObject({
  invocation_id: z.string(),
  task_id: z.string(),
  rollout_id: z.string(),
  turn_no: z.number().int().min(1),
  timestamp: z.number(),
  question: z.unknown().default(null),
  answer: z.unknown().default(null),
  reasoning_content: z.unknown().default(null),
  resolved: z.boolean().nullable().default(null),
  step_count: z.number().int().min(0),
  model_calls: z.array(ModelCallRefSchema).default([]),
});
export type TrajectoryTurn = z.infer<typeof TrajectoryTurnSchema>;
export const TrajectoryRecordSchema = z
  .strictObject({
    schema_version: z.literal('1.0').default('1.0'),
    task_id: z.string(),
    rollout_id: z.string(),
    invocations: z.array(AgentInvocationSchema).default([]),
    turns: z.array(TrajectoryTurnSchema).default([]),
    model_calls: z.array(TrajectoryModelCallSchema).default([]),
    tool_calls: z.array(TrajectoryToolCallSchema).default([]),
    gaps: z.array(ObservationGapSchema).default([]),
  })
  .superRefine((record, ctx) => {
    // the rules of TrajectoryRecord.validate_identity, shared with the exact model below
    const message = recordIdentityProblem(record as unknown as JsonObject);
    if (message) ctx.addIssue({ code: 'custom', message });
  });
export type TrajectoryRecord = z.infer<typeof TrajectoryRecordSchema>;

// ---------------------------------------------------------------------------------------------------------

const forbid = { extra: 'forbid' } as const;
const tokenCount = () => opt(int({ ge: 0 }));
export const trajectoryTokenStats = model(
  'TrajectoryTokenStats',
  {
    prompt_tokens: tokenCount(),
    completion_tokens: tokenCount(),
    reasoning_tokens: tokenCount(),
    total_tokens: tokenCount(),
    cached_tokens: tokenCount(),
  },
  forbid,
);
export const trajectoryResponseMetadata = model(
  'TrajectoryResponseMetadata',
  {
    response_id: opt(str),
    model_ref: opt(modelServerRef),
    model: opt(str),
    dialect: opt(str),
    status_code: opt(int()),
    response_status: opt(str),
    finish_reason: opt(str),
    error_category: opt(str),
    latency_ttft_ms: opt(float({ ge: 0 })),
  },
  forbid,
);
const dumpedDefault = (m: typeof trajectoryTokenStats) => () => {
  const r = m.validate({}, []);
  return r.ok ? r.value : null;
};
export const trajectoryModelCall = model(
  'TrajectoryModelCall',
  {
    model_call_id: opt(str),
    started_at: opt(float()),
    completed_at: opt(float()),
    duration_ms: opt(float({ ge: 0 })),
    request: opt(any),
    response: opt(any),
    response_metadata: dflt(trajectoryResponseMetadata, dumpedDefault(trajectoryResponseMetadata)),
    token_stats: dflt(trajectoryTokenStats, dumpedDefault(trajectoryTokenStats)),
  },
  forbid,
);
export const trajectoryTurn = model(
  'TrajectoryTurn',
  {
    invocation_id: req(str),
    task_id: req(str),
    rollout_id: req(str),
    turn_no: req(int({ ge: 1 })),
    timestamp: req(float()),
    question: opt(any),
    answer: opt(any),
    reasoning_content: opt(any),
    resolved: opt(bool),
    step_count: req(int({ ge: 0 })),
    model_calls: dflt(list(modelCallRef), () => []),
  },
  forbid,
);
export const trajectoryToolCall = model('TrajectoryToolCall', { ...TOOL_CALL_FIELDS, output: opt(any) }, { ...forbid, after: timingProblem });

/** TrajectoryRecord.validate_identity. */
export function recordIdentityProblem(record: JsonObject): string | null {
  const ids = (record.invocations as JsonObject[]).map((i) => i.invocation_id);
  if (new Set(ids).size !== ids.length) return 'invocation_id must be unique within a trajectory';
  // "unique truthy": empty strings and nulls are exempt, as upstream's `if call.model_call_id` filter makes them
  const callIds = (record.model_calls as JsonObject[]).map((c) => c.model_call_id).filter((id) => truthy(id));
  if (new Set(callIds).size !== callIds.length) return 'model_call_id must be unique within a trajectory';
  const keys = new Set<string>();
  for (const turn of record.turns as JsonObject[]) {
    if (turn.task_id !== record.task_id || turn.rollout_id !== record.rollout_id) return 'turn identity must match the trajectory';
    const key = JSON.stringify([turn.invocation_id, String(turn.turn_no)]);
    if (keys.has(key)) return 'turn number must be unique within an invocation';
    keys.add(key);
  }
  return null;
}
export const trajectoryRecord = model(
  'TrajectoryRecord',
  {
    schema_version: dflt(literal('1.0'), '1.0'),
    task_id: req(str),
    rollout_id: req(str),
    invocations: dflt(list(agentInvocation), () => []),
    turns: dflt(list(trajectoryTurn), () => []),
    model_calls: dflt(list(trajectoryModelCall), () => []),
    tool_calls: dflt(list(trajectoryToolCall), () => []),
    gaps: dflt(list(observationGap), () => []),
  },
  { ...forbid, after: recordIdentityProblem },
);

/** TrajectoryRecord.model_validate(v) then model_dump(mode="json"). */
export function validateTrajectory(v: JsonValue | undefined): Validated {
  const r = trajectoryRecord.validate(v, []);
  return r.ok && isJsonObject(r.value) ? { ok: true, value: r.value } : { ok: false, problems: r.ok ? [] : r.problems };
}
