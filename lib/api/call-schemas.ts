// A call's API shapes: its normalized record (GET .../calls/{call}, and without payloads in a capture's calls), its
// metadata as the index serves it, and a rollout's calls as compact columns (GET .../calls). No imports from the
// index: it takes its call row type from here. The browser loads this module (through schemas.ts, which the rollouts
// table parses its pages with), so the format's field lists are checked as types only (lib/capture/record.ts would
// bring the format's parser along).
import { z } from 'zod';
import type { PAYLOAD_FIELDS, RECORD_FIELDS } from '../capture/record';

const nullableNumber = z.number().nullable();
const nullableString = z.string().nullable();

/** The record's fields (spec §3) in its serialization order, each typed as the derivation writes it. */
const recordShape = {
  model_call_id: nullableString,
  response_id: nullableString,
  call_index: z.number().int(),
  model_ref: z.object({ type: z.literal('responses_api_models'), name: z.string() }).nullable(),
  model: nullableString,
  dialect: nullableString,
  status_code: nullableNumber,
  response_status: nullableString,
  finish_reason: nullableString,
  started_at: nullableNumber.describe('Unix seconds'),
  completed_at: nullableNumber,
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  tokens_reasoning: nullableNumber,
  tokens_total: nullableNumber,
  request: z.record(z.string(), z.unknown()).nullable().describe("the exchange's request object, as stored"),
  response: z.record(z.string(), z.unknown()).nullable().describe("the exchange's response object, as stored"),
  request_raw: nullableString,
  response_raw: nullableString,
  tool_calls: z.array(
    z.object({ call_id: z.unknown(), name: z.unknown(), arguments: z.unknown() }).describe('spec §3.3: the values as the response gave them, null when missing'),
  ),
  reasoning_content: nullableString,
  cache_hit: z.boolean().nullable(),
  cached_tokens: nullableNumber,
  cache_creation_tokens: nullableNumber,
  error_category: nullableString,
  latency_total_ms: nullableNumber,
  latency_ttft_ms: nullableNumber,
} satisfies Record<(typeof RECORD_FIELDS)[number], z.ZodType>;

/** GET .../calls/{call}: the normalized ModelCallRecord with request, response, request_raw and response_raw. */
export const CallSchema = z.object(recordShape);
export type CallRecord = z.infer<typeof CallSchema>;

const payloadless = { request: true, response: true, request_raw: true, response_raw: true } as const satisfies Record<(typeof PAYLOAD_FIELDS)[number], true>;
/** A call of an attachment built without payloads (spec §5.1 step 4): the record without its four payload keys. */
export const AttachmentCallSchema = CallSchema.omit(payloadless);

/** One call as the index holds it (the `calls` table's metadata columns; cache_hit is 0/1): the call page's header. */
export const CallSummarySchema = z.object({
  call_index: z.number().int(),
  model_call_id: nullableString,
  model_server: nullableString,
  model: nullableString,
  dialect: nullableString,
  status_code: nullableNumber,
  error_category: nullableString,
  finish_reason: nullableString,
  started_at: nullableNumber,
  completed_at: nullableNumber,
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  tokens_reasoning: nullableNumber,
  tokens_total: nullableNumber,
  cached_tokens: nullableNumber,
  cache_creation_tokens: nullableNumber,
  cache_hit: nullableNumber,
  latency_ms: nullableNumber,
  ttft_ms: nullableNumber,
  tool_calls: nullableNumber,
});
export type CallSummary = z.infer<typeof CallSummarySchema>;

const coded = z.array(z.number().int()).describe('index into `strings`, -1 for null');
const nums = z.array(z.number().nullable());
/** A rollout's calls as columns (what crosses to the browser: a few MB for 30,000 calls instead of 30,000 objects). */
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
export type CallColumns = z.infer<typeof CallColumnsSchema>;
/** The columns of CallColumnsSchema every answer carries (what the others are read with). */
export const CALL_COLUMNS_ALWAYS: readonly string[] = ['n', 'strings', 't0', 'servers'] satisfies (keyof CallColumns)[];
/** The columns of CallColumnsSchema a client may ask for by name. */
export const CALL_COLUMN_NAMES = Object.keys(CallColumnsSchema.shape).filter((k) => !CALL_COLUMNS_ALWAYS.includes(k)) as [string, ...string[]];
/** GET .../calls' answer: every column, or with `fields` the columns named and the ones every answer carries. */
export const CallColumnsAnswerSchema = CallColumnsSchema.partial().required({ n: true, strings: true, t0: true, servers: true });
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
