// Inputs and outputs of the JSON API, one zod schema each; GET /api/openapi.json is generated from these, and the
// answers' types are theirs (z.infer): the index, the views and the components take them from here. The schema
// modules of lib/api import nothing from lib/index (the index imports them); the endpoints that call the index do.
// Calls: call-schemas.ts; task groups: task-schemas.ts; compare: compare-schemas.ts; diff: diff-schemas.ts.
import { z } from 'zod';
import { DIALECTS, ERROR_CATEGORIES, GAP_CODE_LIST, ROLLOUT_SOURCES, ROLLOUT_SOURCE_INFO, TRAJECTORY_SOURCES, TRAJECTORY_SOURCE_INFO } from '../capture/vocabulary';
import { TOOL_STATUSES } from '../rollouts/observation-values';
import { AttachmentCallSchema } from './call-schemas';

/** Run ids are slugs; rollout keys are store-safe ids (§1.3) or line keys; call ids are hex or i<index>. */
export const RunIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'not a run id');
export const RolloutKeySchema = z.string().regex(/^[A-Za-z0-9._-]{1,200}(~[fl]\d{1,9})?$/, 'not a rollout id').refine((s) => s !== '.' && s !== '..', 'not a rollout id');
export const CallIdSchema = z.string().regex(/^(i\d{1,9}|[A-Za-z0-9._:-]{1,200})$/, 'not a call id');

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const num = z.coerce.number().finite();

/** What the rollouts list sorts by besides `rollout` (line order); the index keeps a sorted index for each (lib/index/schema.ts). */
export const ROLLOUT_SORT_COLUMNS = [
  'tokens_in',
  'tokens_out',
  'tokens_reasoning',
  'tokens_cached',
  'tokens_total',
  'calls',
  'latency_sum',
  'latency_max',
  'ttft_p50',
  'reward',
  'errors',
  'gaps',
  'started_at',
  'tool_calls',
  'tool_time',
  'turns',
  'invocations',
] as const;
export type RolloutSortColumn = (typeof ROLLOUT_SORT_COLUMNS)[number];

export const RolloutQuerySchema = z
  .object({
    sort: z.enum([...ROLLOUT_SORT_COLUMNS, 'rollout']).default('rollout'),
    order: z.enum(['asc', 'desc']).default('asc'),
    q: z.string().max(200).optional(),
    model_server: z.string().max(200).optional(),
    dialect: z.enum(DIALECTS).optional(),
    error_category: z.enum(ERROR_CATEGORIES).optional(),
    gap: z.enum(GAP_CODE_LIST).optional().describe('only rollouts with this gap (a code of spec §5.3)'),
    tool_name: z.string().max(200).optional().describe("only rollouts whose trajectory has a tool call of this name"),
    tool_status: z.enum(TOOL_STATUSES).optional().describe('only rollouts whose trajectory has a tool call of this status'),
    trajectory_gap: z.enum(GAP_CODE_LIST).optional().describe("only rollouts whose trajectory (or, projected, its observations) has this gap"),
    attempt: z.coerce.number().int().min(0).optional(),
    reward_min: num.optional(),
    reward_max: num.optional(),
    has_errors: bool.optional(),
    failed: bool.optional(),
    line_problem: bool.optional().describe('true: only rollout lines that could not be read; false: only those that could'),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().max(500).optional(),
  })
  .strict();
export type RolloutQuery = z.infer<typeof RolloutQuerySchema>;

export const ErrorSchema = z.object({ error: z.object({ code: z.enum(['bad_request', 'unauthorized', 'not_found', 'unavailable', 'internal']), message: z.string() }) });
export type ApiErrorBody = z.infer<typeof ErrorSchema>;

export const HealthSchema = z.object({ ok: z.boolean(), version: z.string() });
export type Health = z.infer<typeof HealthSchema>;

const nullableNumber = z.number().nullable();
/** A gap as NeMo Gym serializes it (null fields omitted); its code is one of spec §5.3's, or a producer's own. */
export const GapSchema = z.object({
  code: z.string().meta({ description: 'a gap code (spec §5.3); the known ones are the `gap` filter\'s values', examples: GAP_CODE_LIST.slice(0, 6) }),
  detail: z.string().optional(),
  invocation_id: z.string().optional(),
});
const usageFields = {
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  tokens_reasoning: nullableNumber,
  cached_tokens: nullableNumber,
  tokens_total: nullableNumber,
};
const ResponseUsageSchema = z
  .object(usageFields)
  .nullable()
  .describe("the rollout line's own response.usage read as a call's usage is (spec §3.1, §3.2); null without one. Not the captured calls' sums");
export const RunSchema = z.object({
  id: z.string(),
  rollouts_file: z.string().nullable(),
  failures_file: z.string().nullable(),
  capture_dir: z.string().nullable(),
  capture_dir_note: z.string().nullable().describe('why the run has, or has not, the capture dir beside it when another rollouts file claims the same dir'),
  reward_profile_file: z.string().nullable().describe("gym eval profile's X_reward_profiling.jsonl beside the rollouts file, when present"),
  aggregate_metrics_file: z.string().nullable().describe("the collector's X_aggregate_metrics.json beside the rollouts file, when present"),
  progress: z.object({
    state: z.enum(['pending', 'indexing', 'ready', 'error']),
    files_read: z.number(),
    bytes_read: z.number(),
    lines_read: z.number(),
    error: z.string().nullable(),
  }),
  totals: z.object({
    rollouts: z.number(),
    failed: z.number(),
    calls: z.number(),
    tokens_in: nullableNumber,
    tokens_out: nullableNumber,
    tokens_reasoning: nullableNumber,
    tokens_total: nullableNumber,
    cached_tokens: nullableNumber,
    latency_sum: nullableNumber,
    errors: z.number(),
    gaps: z.number(),
    line_problems: z.number().describe('rollout lines that could not be read'),
    uncaptured: z
      .number()
      .describe("rollouts without capture evidence (source 'none'): their calls, tokens and errors are unknown, so calls, errors and the token sums cover the other rollouts only"),
    mean_reward: nullableNumber,
    model_servers: z.array(z.string()),
    agents: z.array(z.string()).describe("the rollouts' agents (agent_ref.name), distinct and sorted"),
    response_usage: z
      .object({ rollouts: z.number().describe('rollout lines with a response.usage'), ...usageFields })
      .nullable()
      .describe("sums of the rollout lines' own response.usage; null when no line has one"),
  }),
});
export type Run = z.infer<typeof RunSchema>;
export const RunsResponseSchema = z.object({ runs: z.array(RunSchema) });
export type RunsResponse = z.infer<typeof RunsResponseSchema>;

export const TrajectorySummarySchema = z.object({
  source: z.enum(TRAJECTORY_SOURCES).describe(TRAJECTORY_SOURCES.map((s) => `"${s}": ${TRAJECTORY_SOURCE_INFO[s].meaning}`).join(' ')),
  invocations: z.number().int(),
  subagent_depth: z.number().int().describe('0: the main agent alone; 1: it spawned subagents; 2: a subagent spawned one'),
  turns: z.number().int(),
  tool_calls: z.number().int(),
  tool_failed: z.number().int().describe('tool calls whose status is failed'),
  tool_time_ms: nullableNumber.describe('the measured tool time (sum of the measured intervals); null when none was measured'),
  tool_time_max_ms: nullableNumber,
  tool_unmeasured: z.number().int().describe('tool calls without a measured interval'),
  compactions: z.number().int(),
  sandboxes: z.number().int(),
  gaps: z.array(GapSchema).describe("the trajectory's gaps; for a projected one, its observations' (the join's gaps are in GET .../trajectory)"),
  tool_names: z.array(z.string()),
  tool_statuses: z.array(z.string()),
});

export const RolloutRowSchema = z.object({
  key: z.string(),
  rollout_id: z.string().nullable(),
  line_no: z.number().nullable(),
  reward: nullableNumber,
  task_index: nullableNumber,
  rollout_index: nullableNumber,
  attempt: nullableNumber,
  failure_class: z.string().nullable(),
  agent: z.string().nullable(),
  task: z.string().nullable(),
  source: z.enum(ROLLOUT_SOURCES).describe(ROLLOUT_SOURCES.map((s) => `"${s}": ${ROLLOUT_SOURCE_INFO[s].meaning}`).join(' ')),
  num_calls: z.number(),
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  tokens_reasoning: nullableNumber,
  tokens_total: nullableNumber,
  cached_tokens: nullableNumber,
  latency_sum: nullableNumber,
  latency_max: nullableNumber,
  ttft_p50: nullableNumber,
  errors: z.number(),
  gaps: z.array(GapSchema),
  model_servers: z.array(z.string()),
  dialects: z.array(z.string()),
  error_categories: z.array(z.string()),
  started_at: nullableNumber,
  completed_at: nullableNumber,
  incomplete: z.boolean(),
  unreadable: z.number(),
  attachment_mismatch: z.boolean(),
  response_usage: ResponseUsageSchema,
  line_problem: z.string().nullable().describe('why the rollout line could not be read (not JSON, not an object, an id NeMo Gym rejects); null when it was'),
  prompt: z.string().nullable().describe("the task's prompt: the first user message of the line's responses_create_params.input (first 1,000 characters)"),
  expected_answer: z.string().nullable().describe("the line's expected_answer, as text (first 300 characters)"),
  extracted_answer: z.string().nullable().describe("the line's extracted_answer, as text (first 300 characters)"),
  outcome: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .nullable()
    .describe('the outcome fields the line has (resolved, patch_exists, finished_naturally, turns_used, agent_timed_out, eval_timed_out, context_length_exceeded_error, agent_error_kind, error_kind, mask_sample); null with none'),
  trajectory: TrajectorySummarySchema.nullable().describe('what its trajectory holds; null when the rollout has no trajectory to show'),
});
/** A rollout as the API presents it (the index's row with gaps parsed, tag lists split, flags as booleans: present.ts). */
export type RolloutItem = z.infer<typeof RolloutRowSchema>;
export const RolloutPageSchema = z.object({ total: z.number(), rollouts: z.array(RolloutRowSchema), next_cursor: z.string().nullable() });
export type RolloutPage = z.infer<typeof RolloutPageSchema>;

/** The ng_model_call_capture attachment (spec §5.1 step 4) as callscope builds it from the capture dir: calls without payloads. */
export const CaptureSchema = z.object({
  rollout_id: z.string(),
  metrics: z
    .object({
      tokens_in: nullableNumber,
      tokens_out: nullableNumber,
      tokens_reasoning: nullableNumber,
      tokens_total: nullableNumber,
      cached_tokens: nullableNumber,
      latency_total_ms: nullableNumber,
      num_calls: z.number().int(),
    })
    .describe('spec §4'),
  calls: z.array(AttachmentCallSchema),
  gaps: z.array(GapSchema).optional().describe('present only when not empty'),
});

export const RolloutDetailSchema = z.object({
  run: z.string(),
  rollout: RolloutRowSchema,
  capture: CaptureSchema.nullable().describe('{rollout_id, metrics, calls, gaps?} exactly as the ng_model_call_capture attachment, calls without payloads; null without capture dir or rollout id'),
  attachment: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("the rollout line's own attachment as stored, when it disagrees with the capture dir; else null"),
  attempts: z.array(z.object({ key: z.string(), attempt: nullableNumber, failure_class: z.string().nullable(), reward: nullableNumber })),
});
export type RolloutDetail = z.infer<typeof RolloutDetailSchema>;

