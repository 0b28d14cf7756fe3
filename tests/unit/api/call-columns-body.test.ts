// GET .../calls builds its body from per-column JSON: the whole body is JSON.stringify of the columns, a
// `fields` body holds those columns and the shared ones, and the rollout page's parts put every column back.
import { describe, expect, it } from 'vitest';
import { columnsBody, columnTexts } from '../../../lib/api/call-columns-body';
import { CALL_COLUMN_NAMES, CallColumnsQuerySchema, CallColumnsSchema } from '../../../lib/api/call-schemas';
import type { CallSummary } from '../../../lib/api/call-schemas';
import { CALL_COLUMN_PARTS, toCallColumns } from '../../../lib/view/series';

const call = (i: number, overrides: Partial<CallSummary> = {}): CallSummary => ({
  call_index: i,
  model_call_id: i % 2 ? `id-"${i}"` : null,
  model_server: i % 3 ? 'policy_model' : null,
  model: 'm',
  dialect: 'chat',
  status_code: i === 2 ? null : 200,
  error_category: i === 1 ? 'rate_limit' : null,
  finish_reason: 'stop',
  started_at: 1000 + i,
  completed_at: 1001.25 + i,
  tokens_in: 100 * i,
  tokens_out: i === 3 ? null : 40,
  tokens_reasoning: 10,
  tokens_total: 140,
  cached_tokens: 30,
  cache_creation_tokens: null,
  cache_hit: i % 2,
  latency_ms: 1250.5,
  ttft_ms: null,
  tool_calls: 1,
  ...overrides,
});
const columns = toCallColumns([0, 1, 2, 3, 4].map((i) => call(i)));

describe('columnsBody', () => {
  it('is JSON.stringify of the columns when no field is named', () => {
    expect(columnsBody(columnTexts(columns))).toBe(JSON.stringify(columns));
  });

  it('holds the named columns and n, strings, t0 and servers, nothing else', () => {
    const body = JSON.parse(columnsBody(columnTexts(columns), ['start_ms', 'model_call_id'])) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['model_call_id', 'n', 'servers', 'start_ms', 'strings', 't0']);
    expect(body.start_ms).toEqual(columns.start_ms);
    expect(body.model_call_id).toEqual(columns.model_call_id);
    expect(body.strings).toEqual(columns.strings);
  });

  it("the rollout page's parts, merged, are the whole columns and pass the schema", () => {
    const texts = columnTexts(columns);
    const merged = Object.assign({}, ...CALL_COLUMN_PARTS.map((f) => JSON.parse(columnsBody(texts, f))));
    expect(merged).toEqual(columns);
    expect(CallColumnsSchema.parse(merged)).toEqual(columns);
    expect(CALL_COLUMN_PARTS.flat().sort()).toEqual([...CALL_COLUMN_NAMES].sort());
  });
});

describe('CallColumnsQuerySchema', () => {
  it('takes known column names and refuses others', () => {
    expect(CallColumnsQuerySchema.parse({ fields: 'start_ms,end_ms' }).fields).toEqual(['start_ms', 'end_ms']);
    expect(CallColumnsQuerySchema.parse({}).fields).toBeUndefined();
    for (const bad of ['', 'start_ms,', 'nope', 'n', '__proto__']) expect(CallColumnsQuerySchema.safeParse({ fields: bad }).success).toBe(false);
    expect(CallColumnsQuerySchema.safeParse({ fields: 'start_ms', other: '1' }).success).toBe(false);
  });
});
