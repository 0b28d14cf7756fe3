// `ng_agent_observations` (spec §9): NeMo Gym's observation models (nemo_gym/rollout_observability.py). Two
// views of one contract: the zod schemas type the plain-JSON shape for readers (index, API, views); the pydantic
// models (pymodel.ts) validate and re-serialize exactly as upstream does, which the join and the projection need.
import { z } from 'zod';
import { isJsonObject, truthy, type JsonObject, type JsonValue } from '../capture/json-value';
import { conversationItem } from './conversation-items';
import { COMPACTION_OUTCOMES, INVOCATION_STATUSES, SANDBOX_OUTCOMES, SANDBOX_ROLES, TIMING_SOURCES, TOOL_STATUSES } from './observation-values';

export { COMPACTION_OUTCOMES, INVOCATION_STATUSES, SANDBOX_OUTCOMES, SANDBOX_ROLES, TIMING_SOURCES, TOOL_STATUSES };
import { dflt, float, int, list, literal, model, opt, req, str, tagged, type Problem } from './pymodel';

// ---------------------------------------------------------------------------------------------------------
// zod: the serialized shape (what model_dump(mode="json") writes), strict like upstream's extra="forbid".

export const ModelServerRefSchema = z.object({ type: z.literal('responses_api_models'), name: z.string() });
export type ModelServerRef = z.infer<typeof ModelServerRefSchema>;

const JOIN_KEY_MESSAGE = 'model_call_id or both model_ref and response_id are required';
export const ModelCallRefSchema = z
  .strictObject({
    model_call_id: z.string().nullable().default(null),
    model_ref: ModelServerRefSchema.nullable().default(null),
    response_id: z.string().nullable().default(null),
  })
  .refine((r) => !!r.model_call_id || (r.model_ref !== null && !!r.response_id), { message: JOIN_KEY_MESSAGE });
export type ModelCallRef = z.infer<typeof ModelCallRefSchema>;

export const ObservationGapSchema = z.strictObject({
  code: z.string(),
  invocation_id: z.string().nullable().default(null),
  detail: z.string().nullable().default(null),
});
export type ObservationGap = z.infer<typeof ObservationGapSchema>;

const nonNegative = z.number().min(0).nullable().default(null);

/** A conversation item as NeMoGymResponseInputItem dumps it (the members' shapes are in conversation-items.ts). */
export const ConversationItemSchema = z.record(z.string(), z.unknown());

export const AgentInvocationSchema = z.strictObject({
  kind: z.literal('agent_invocation').default('agent_invocation'),
  invocation_id: z.string(),
  parent_invocation_id: z.string().nullable().default(null),
  spawned_by_tool_call_id: z.string().nullable().default(null),
  status: z.enum(INVOCATION_STATUSES).default('unknown'),
  duration_ms: nonNegative,
  error_type: z.string().nullable().default(null),
  model_calls: z.array(ModelCallRefSchema).default([]),
  conversation: z.array(ConversationItemSchema).default([]),
});
export type AgentInvocation = z.infer<typeof AgentInvocationSchema>;

const toolCallShape = {
  kind: z.literal('tool_call').default('tool_call'),
  invocation_id: z.string(),
  tool_call_id: z.string(),
  sandbox_id: z.string().nullable().default(null),
  tool_name: z.string().nullable().default(null),
  started_at: z.number().nullable().default(null),
  completed_at: z.number().nullable().default(null),
  duration_ms: nonNegative,
  timing_source: z.enum(TIMING_SOURCES).nullable().default(null),
  status: z.enum(TOOL_STATUSES).default('unknown'),
  error_type: z.string().nullable().default(null),
};
const timingInOrder = (t: { started_at: number | null; completed_at: number | null }) =>
  t.started_at === null || t.completed_at === null || t.completed_at >= t.started_at;
export const ToolCallObservationSchema = z
  .strictObject(toolCallShape)
  .refine(timingInOrder, { message: 'completed_at must not precede started_at' });
export type ToolCallObservation = z.infer<typeof ToolCallObservationSchema>;
export const TrajectoryToolCallSchema = z
  .strictObject({ ...toolCallShape, output: z.unknown().default(null) })
  .refine(timingInOrder, { message: 'completed_at must not precede started_at' });
export type TrajectoryToolCall = z.infer<typeof TrajectoryToolCallSchema>;

export const SandboxObservationSchema = z.strictObject({
  kind: z.literal('sandbox').default('sandbox'),
  role: z.enum(SANDBOX_ROLES),
  provider: z.string().nullable().default(null),
  sandbox_id: z.string().nullable().default(null),
  outcome: z.enum(SANDBOX_OUTCOMES).default('unknown'),
  exit_code: z.number().int().nullable().default(null),
  wall_time_s: nonNegative,
  cpu_time_s: nonNegative,
  peak_memory_mib: nonNegative,
  resource_usage_source: z.string().nullable().default(null),
  error_type: z.string().nullable().default(null),
});
export type SandboxObservation = z.infer<typeof SandboxObservationSchema>;

export const ContextCompactionObservationSchema = z.strictObject({
  kind: z.literal('context_compaction').default('context_compaction'),
  invocation_id: z.string(),
  observed_at: z.number().nullable().default(null),
  trigger: z.string().nullable().default(null),
  tokens_before: z.number().int().min(0).nullable().default(null),
  tokens_after: z.number().int().min(0).nullable().default(null),
  outcome: z.enum(COMPACTION_OUTCOMES).default('unknown'),
  summary: z.string().nullable().default(null),
  first_kept_item_id: z.string().nullable().default(null),
  before_model_call: ModelCallRefSchema.nullable().default(null),
  model_calls: z.array(ModelCallRefSchema).default([]),
  after_model_call: ModelCallRefSchema.nullable().default(null),
});
export type ContextCompactionObservation = z.infer<typeof ContextCompactionObservationSchema>;

export const AgentObservationRecordSchema = z.discriminatedUnion('kind', [
  AgentInvocationSchema,
  ToolCallObservationSchema,
  ContextCompactionObservationSchema,
  SandboxObservationSchema,
]);
export type AgentObservationRecord = z.infer<typeof AgentObservationRecordSchema>;

export const AgentObservationBundleSchema = z
  .strictObject({
    source: z.string(),
    records: z.array(AgentObservationRecordSchema).default([]),
    gaps: z.array(ObservationGapSchema).default([]),
  })
  .superRefine((bundle, ctx) => {
    const message = bundleIdentityProblem(bundle as unknown as JsonObject);
    if (message) ctx.addIssue({ code: 'custom', message, path: ['records'] });
  });
export type AgentObservationBundle = z.infer<typeof AgentObservationBundleSchema>;

// ---------------------------------------------------------------------------------------------------------
// The pydantic models: exact validation and dump.

const forbid = { extra: 'forbid' } as const;
export const modelServerRef = model('ModelServerRef', { type: req(literal('responses_api_models')), name: req(str) }, { extra: 'ignore' });

/** ModelCallRef's join-key rule, on a dumped ref. */
export function joinKeyProblem(ref: JsonObject): string | null {
  return truthy(ref.model_call_id) || (ref.model_ref !== null && ref.model_ref !== undefined && truthy(ref.response_id)) ? null : JOIN_KEY_MESSAGE;
}
export const modelCallRef = model(
  'ModelCallRef',
  { model_call_id: opt(str), model_ref: opt(modelServerRef), response_id: opt(str) },
  { ...forbid, after: joinKeyProblem },
);
export const observationGap = model('ObservationGap', { code: req(str), invocation_id: opt(str), detail: opt(str) }, forbid);

const nn = () => opt(float({ ge: 0 }));
export const agentInvocation = model(
  'AgentInvocation',
  {
    kind: dflt(literal('agent_invocation'), 'agent_invocation'),
    invocation_id: req(str),
    parent_invocation_id: opt(str),
    spawned_by_tool_call_id: opt(str),
    status: dflt(literal(...INVOCATION_STATUSES), 'unknown'),
    duration_ms: nn(),
    error_type: opt(str),
    model_calls: dflt(list(modelCallRef), () => []),
    conversation: dflt(list(conversationItem), () => []),
  },
  forbid,
);

export const TOOL_CALL_FIELDS = {
  kind: dflt(literal('tool_call'), 'tool_call'),
  invocation_id: req(str),
  tool_call_id: req(str),
  sandbox_id: opt(str),
  tool_name: opt(str),
  started_at: opt(float()),
  completed_at: opt(float()),
  duration_ms: nn(),
  timing_source: opt(literal(...TIMING_SOURCES)),
  status: dflt(literal(...TOOL_STATUSES), 'unknown'),
  error_type: opt(str),
};
export function timingProblem(t: JsonObject): string | null {
  const s = t.started_at as { value: number } | null;
  const c = t.completed_at as { value: number } | null;
  return s !== null && c !== null && c.value < s.value ? 'completed_at must not precede started_at' : null;
}
export const toolCallObservation = model('ToolCallObservation', TOOL_CALL_FIELDS, { ...forbid, after: timingProblem });

export const sandboxObservation = model(
  'SandboxObservation',
  {
    kind: dflt(literal('sandbox'), 'sandbox'),
    role: req(literal(...SANDBOX_ROLES)),
    provider: opt(str),
    sandbox_id: opt(str),
    outcome: dflt(literal(...SANDBOX_OUTCOMES), 'unknown'),
    exit_code: opt(int()),
    wall_time_s: nn(),
    cpu_time_s: nn(),
    peak_memory_mib: nn(),
    resource_usage_source: opt(str),
    error_type: opt(str),
  },
  forbid,
);

export const contextCompaction = model(
  'ContextCompactionObservation',
  {
    kind: dflt(literal('context_compaction'), 'context_compaction'),
    invocation_id: req(str),
    observed_at: opt(float()),
    trigger: opt(str),
    tokens_before: opt(int({ ge: 0 })),
    tokens_after: opt(int({ ge: 0 })),
    outcome: dflt(literal(...COMPACTION_OUTCOMES), 'unknown'),
    summary: opt(str),
    first_kept_item_id: opt(str),
    before_model_call: opt(modelCallRef),
    model_calls: dflt(list(modelCallRef), () => []),
    after_model_call: opt(modelCallRef),
  },
  forbid,
);

/** AgentObservationBundle.validate_identity: unique invocation ids, no cycles through parent_invocation_id. */
export function bundleIdentityProblem(bundle: JsonObject): string | null {
  const invocations = (bundle.records as JsonObject[]).filter((r) => r.kind === 'agent_invocation');
  const byId = new Map(invocations.map((r) => [r.invocation_id as string, r]));
  if (byId.size !== invocations.length) return 'invocation_id must be unique within an observation bundle';
  const checked = new Set<string>();
  for (const id of byId.keys()) {
    const chain = new Set<string>();
    let current: string = id;
    while (byId.has(current) && !checked.has(current)) {
      if (chain.has(current)) return 'parent_invocation_id must not form a cycle';
      chain.add(current);
      const parent = byId.get(current)!.parent_invocation_id;
      if (parent === null || parent === undefined) break;
      current = parent as string;
    }
    for (const c of chain) checked.add(c);
  }
  return null;
}

export const observationRecord = tagged('kind', {
  agent_invocation: agentInvocation,
  tool_call: toolCallObservation,
  context_compaction: contextCompaction,
  sandbox: sandboxObservation,
});
export const agentObservationBundle = model(
  'AgentObservationBundle',
  { source: req(str), records: dflt(list(observationRecord), () => []), gaps: dflt(list(observationGap), () => []) },
  { ...forbid, after: bundleIdentityProblem },
);

export type Validated = { ok: true; value: JsonObject } | { ok: false; problems: Problem[] };

/** AgentObservationBundle.model_validate(v) then model_dump(mode="json"): the normalized bundle, or its problems. */
export function validateBundle(v: JsonValue | undefined): Validated {
  const r = agentObservationBundle.validate(v, []);
  return r.ok && isJsonObject(r.value) ? { ok: true, value: r.value } : { ok: false, problems: r.ok ? [] : r.problems };
}

