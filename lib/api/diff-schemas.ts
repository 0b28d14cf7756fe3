// GET /api/diff: two rollouts' calls aligned, per pair whether requests and responses differ (a summary), the token
// and latency deltas and the first divergence; with `pair`, that pair's structural diffs (lib/rollouts/diff-json.ts).
import { z } from 'zod';
import type { PairSummary, RolloutDiff } from '../rollouts/diff';
import type { JsonDiff } from '../rollouts/diff-json';
import type { Expect, Same } from './same-type';
import { RolloutKeySchema, RunIdSchema } from './schemas';

const nullableNumber = z.number().nullable();

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
const values = z.array(z.unknown());
/** One node of a structural diff; its children are diffs too (a z.lazy: the OpenAPI document names it JsonDiff). */
export const JsonDiffSchema: z.ZodType<JsonDiff> = z.lazy(() => JsonDiffUnion).meta({ id: 'JsonDiff' });
const ArrayRunSchema = z.union([
  z.object({ op: z.literal('same'), a_index: z.number().int(), b_index: z.number().int(), count: z.number().int(), values, b_values: values.optional() }),
  z.object({ op: z.enum(['removed', 'added']), a_index: z.number().int(), b_index: z.number().int(), count: z.number().int(), values }),
  z.object({ op: z.literal('changed'), a_index: z.number().int(), b_index: z.number().int(), count: z.literal(1), diff: JsonDiffSchema }),
]);
const TextRunSchema = z.object({ op: z.enum(['same', 'removed', 'added']), a_line: z.number().int(), b_line: z.number().int(), count: z.number().int(), lines: z.array(z.string()) });
const JsonDiffUnion = z.union([
  z.object({ op: z.literal('same'), value: z.unknown() }),
  z.object({ op: z.literal('added'), b: z.unknown() }),
  z.object({ op: z.literal('removed'), a: z.unknown() }),
  z.object({ op: z.literal('changed'), a: z.unknown(), b: z.unknown() }),
  z.object({ op: z.literal('object'), entries: z.array(z.object({ key: z.string(), diff: JsonDiffSchema })) }),
  z.object({ op: z.literal('array'), a_length: z.number().int(), b_length: z.number().int(), runs: z.array(ArrayRunSchema) }),
  z.object({ op: z.literal('text'), runs: z.array(TextRunSchema) }),
]);
type _JsonDiffMatch = Expect<Same<JsonDiff, z.output<typeof JsonDiffUnion>>>;

const equal = z.boolean().nullable().describe('the same but for ids, timestamps and usage; null when a side has no payload');
const RequestSummarySchema = z.object({
  op: z.literal('summary'),
  equal,
  shared_prefix: nullableNumber.describe('conversation items both requests start with (the same but for ids, timestamps and usage); null when either has no list'),
  a_items: nullableNumber,
  b_items: nullableNumber,
});
const ResponseSummarySchema = z.object({ op: z.literal('summary'), equal });
const diffOf = <S extends z.ZodType>(summary: S, what: string) =>
  z
    .union([summary, JsonDiffSchema])
    .nullable()
    .describe(`Without pair: a summary (null for an unmatched call). With pair: the structural diff of the two ${what}s (JsonDiff)`);
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
      request_diff: diffOf(RequestSummarySchema, 'request'),
      response_diff: diffOf(ResponseSummarySchema, 'response'),
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
export type Diff = z.infer<typeof DiffSchema>;
/** One rollout of the two: which, where its calls come from, how many. */
export type DiffSideInfo = Diff['a'];
// lib/rollouts/diff.ts computes the pairs (it is pure and imports no API): its types and the schema's are one.
type _PairMatch = Expect<Same<PairSummary, Diff['pairs'][number]>>;
type _DiffMatch = Expect<Same<RolloutDiff, Pick<Diff, 'pairs' | 'first_divergence'>>>;
