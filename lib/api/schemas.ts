// Inputs and outputs of the JSON API, one zod schema each; GET /api/openapi.json is generated from these.
import { z } from 'zod';
import { DIALECTS, ERROR_CATEGORIES, GAP_CODE_LIST, ROLLOUT_SOURCES, ROLLOUT_SOURCE_INFO, TRAJECTORY_SOURCES, TRAJECTORY_SOURCE_INFO } from '../capture/vocabulary';
import { TOOL_STATUSES } from '../rollouts/observation-values';
import { SORT_COLUMNS } from '../index/schema';

/** Run ids are slugs; rollout keys are store-safe ids (§1.3) or line keys; call ids are hex or i<index>. */
export const RunIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'not a run id');
export const RolloutKeySchema = z.string().regex(/^[A-Za-z0-9._-]{1,200}(~[fl]\d{1,9})?$/, 'not a rollout id').refine((s) => s !== '.' && s !== '..', 'not a rollout id');
export const CallIdSchema = z.string().regex(/^(i\d{1,9}|[A-Za-z0-9._:-]{1,200})$/, 'not a call id');

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const num = z.coerce.number().finite();

export const RolloutQuerySchema = z
  .object({
    sort: z.enum([...(Object.keys(SORT_COLUMNS) as (keyof typeof SORT_COLUMNS)[]), 'rollout']).default('rollout'),
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

export const CompareQuerySchema = z.object({
  runs: z
    .string()
    .transform((s) => s.split(',').filter(Boolean))
    .pipe(z.array(RunIdSchema).min(1).max(8)),
  pair_by: z
    .enum(['index', 'task'])
    .optional()
    .describe("how task_changes pairs the first two runs' tasks: by _ng_task_index, or by what names the task (default: index when the runs are over the same tasks)"),
});

export const PointsQuerySchema = z.object({ runs: CompareQuerySchema.shape.runs, limit: z.coerce.number().int().min(1).max(50_000).default(50_000) }).strict();
export const PointsSchema = z.object({
  runs: z.array(z.object({ run: z.string(), total: z.number(), truncated: z.boolean(), keys: z.array(z.string()), tokens_total: z.array(z.number().nullable()), reward: z.array(z.number().nullable()) })),
});

export const ErrorSchema = z.object({ error: z.object({ code: z.enum(['bad_request', 'unauthorized', 'not_found', 'unavailable', 'internal']), message: z.string() }) });

export const HealthSchema = z.object({ ok: z.boolean(), version: z.string() });

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
export const RunsResponseSchema = z.object({ runs: z.array(RunSchema) });

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
export const RolloutPageSchema = z.object({ total: z.number(), rollouts: z.array(RolloutRowSchema), next_cursor: z.string().nullable() });

export const RolloutDetailSchema = z.object({
  run: z.string(),
  rollout: RolloutRowSchema,
  capture: z.unknown().describe('{rollout_id, metrics, calls, gaps?} exactly as the ng_model_call_capture attachment, calls without payloads'),
  attachment: z.unknown().describe("the rollout line's own attachment, when it disagrees with the capture dir"),
  attempts: z.array(z.object({ key: z.string(), attempt: nullableNumber, failure_class: z.string().nullable(), reward: nullableNumber })),
});

const coded = z.array(z.number().int()).describe('index into `strings`, -1 for null');
const nums = z.array(z.number().nullable());
export const CallColumnsSchema = z.object({
  n: z.number().int().describe('number of calls; every array has this length, in call order'),
  strings: z.array(z.string()),
  call_index: z.array(z.number().int()),
  model_call_id: z.array(z.string().nullable()),
  model_server: coded,
  model: coded,
  dialect: coded,
  error_category: coded,
  finish_reason: coded,
  status_code: nums,
  t0: z.number().nullable().describe('Unix seconds of the earliest started_at; start_ms and end_ms are relative to it'),
  start_ms: nums,
  end_ms: nums,
  tokens_in: nums,
  tokens_out: nums,
  tokens_reasoning: nums,
  tokens_total: nums,
  cached_tokens: nums,
  cache_creation_tokens: nums,
  cache_hit: z.array(z.boolean().nullable()),
  latency_ms: nums,
  ttft_ms: nums,
  tool_calls: z.array(z.number().int()),
  servers: z.array(z.string()).describe("model servers (model_ref.name) in order of first appearance"),
});
/** The columns of CallColumnsSchema every answer carries (what the others are read with). */
export const CALL_COLUMNS_ALWAYS: readonly string[] = ['n', 'strings', 't0', 'servers'];
/** The columns of CallColumnsSchema a client may ask for by name. */
export const CALL_COLUMN_NAMES = Object.keys(CallColumnsSchema.shape).filter((k) => !CALL_COLUMNS_ALWAYS.includes(k)) as [string, ...string[]];
export const CallColumnsQuerySchema = z
  .object({
    fields: z
      .string()
      .max(1000)
      .transform((s) => s.split(','))
      .pipe(z.array(z.enum(CALL_COLUMN_NAMES)).min(1))
      .optional()
      .describe('comma-separated columns to return (default: all); n, strings, t0 and servers always come'),
  })
  .strict();
export const CallSchema = z.unknown().describe('the normalized ModelCallRecord with request, response, request_raw and response_raw');
export const CompareSchema = z.unknown().describe('per-run totals, per model server, per-rollout token distributions, latency/TTFT percentiles, errors, gaps, reward, per-rollout tool calls and measured tool time (rollout_tool_calls, rollout_tool_time: rollouts with a trajectory), and tasks paired by index when the runs are over the same tasks (task_relation: whether, on what basis, and why)');

/** `run/rollout`: one rollout of any served run, as /api/diff and /diff name the two sides. */
export const RolloutRefSchema = z
  .string()
  .max(402)
  .regex(/^[^/]+\/[^/]+$/, 'not run/rollout')
  .transform((s) => ({ run: s.slice(0, s.indexOf('/')), rollout: s.slice(s.indexOf('/') + 1) }))
  .pipe(z.object({ run: RunIdSchema, rollout: RolloutKeySchema }));
export const DiffQuerySchema = z
  .object({
    a: RolloutRefSchema.describe('the first rollout, run/rollout'),
    b: RolloutRefSchema.describe('the second rollout, run/rollout'),
    pair: z.coerce.number().int().min(0).max(999_999_999).optional().describe("one pair's index: the answer's pairs holds that pair alone, with its full request and response diffs"),
  })
  .strict();
const DiffSideSchema = z.object({
  run: z.string(),
  rollout: z.string(),
  source: z.enum(['capture', 'attachment', 'line', 'none']).describe("'line': the rollout has no calls, so its line's conversation (responses_create_params as the request, response as the response) is diffed as one call, call 0; 'none': no calls and no line"),
  calls: z.number(),
  reward: nullableNumber,
  task_index: nullableNumber,
});
const diffOf = (what: string) =>
  z
    .unknown()
    .describe(
      `Without pair: a summary {op: "summary", equal${what === 'request' ? ', shared_prefix (conversation items both requests start with, the same but for ids, timestamps and usage), a_items, b_items' : ''}} (equal: the same but for ids, timestamps and usage; null when a side has no payload), null for an unmatched call. With pair: the structural diff of the two ${what}s, a tree of {op: same (value) | added (b) | removed (a) | changed (a, b) | object (entries: [{key, diff}]) | array (a_length, b_length, runs: [{op: same|added|removed (count, values; a same run whose items differ in ids keeps b's in b_values) | changed (diff), a_index, b_index}]) | text (runs of lines: {op, a_line, b_line, count, lines})}`,
    );
const DiffToolSchema = z.object({
  tool_call_id: z.string(),
  tool_name: z.string().nullable(),
  status: z.string().nullable(),
  duration_ms: nullableNumber.describe('measured; null when not measured'),
});
export const DiffSchema = z.object({
  a: DiffSideSchema,
  b: DiffSideSchema,
  pair: z.number().optional().describe('the pair asked for'),
  pairs: z.array(
    z.object({
      index: z.number().describe("the pair's position in the alignment"),
      a_call: nullableNumber.describe("call_index of a's call, or null when b's call has no match in a"),
      b_call: nullableNumber,
      a_ref: z.string().nullable().describe("a's call as the call routes address it (model_call_id or i<call_index>; 'line' for a line's conversation)"),
      b_ref: z.string().nullable(),
      model_server: z.string().nullable(),
      a_signature: z.string().nullable().describe('what the request ends with (the roles after the model\'s last item) > the tool calls the response asks for'),
      b_signature: z.string().nullable(),
      a_tokens: nullableNumber,
      b_tokens: nullableNumber,
      a_latency_ms: nullableNumber,
      b_latency_ms: nullableNumber,
      state: z.enum(['same', 'different', 'unknown', 'a_only', 'b_only']).describe("'unknown': a side has no payload to compare (calls from a line's attachment, whose payloads NeMo Gym strips; a failed exchange), and what can be compared does not differ"),
      request_diff: diffOf('request'),
      response_diff: diffOf('response'),
      tokens_delta: nullableNumber.describe("b − a in total tokens (a call one side lacks counts 0 there); null when a present call's tokens are unknown"),
      latency_delta: nullableNumber.describe('b − a in latency (ms), alike'),
      tools: z
        .array(z.object({ a: DiffToolSchema.nullable(), b: DiffToolSchema.nullable(), same_output: z.boolean().nullable().describe('null when a side lacks the call or its output') }))
        .optional()
        .describe("the tool calls each side's call asked for (from the rollouts' trajectories), aligned by tool name; absent when neither rollout has a trajectory"),
    }),
  ),
  first_divergence: z
    .object({ pair: z.number(), in: z.enum(['request', 'response', 'unmatched']) })
    .nullable()
    .describe('the first pair whose requests or responses differ (but for ids, timestamps and usage), or that one side lacks; null when none'),
});
