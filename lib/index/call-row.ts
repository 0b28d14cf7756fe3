// A call row of the index (the `calls` table), written once: its columns in their stored order, each with its SQL
// declaration, its value's type, where the value comes from, and the native scan's output slot that gives it.
// What must agree on the row derives from here: the table's columns (schema.ts), the INSERT (ingest/rows.ts), the
// row's width and each value's place (CALL: callValues, the ingest workers' packed rows, ingest/capture-file.ts),
// and the native scan's slot names (NATIVE_SLOT_NAMES, which lib/index/scan/addon.ts checks scan.cc's against).
// The order is the stored index files' own: a change here needs a new SCHEMA_VERSION (tests/unit/index/call-row.test.ts).
// No imports: the addon loader (lib/util) reads its slot list here.

interface CallColumn {
  name: string;
  /** Its declaration in CREATE TABLE, after the name ('' for none). */
  sql: string;
  /** Text values (or null) are packed as indexes into a string table (ingest/capture-file.ts, packCalls). */
  type: 'number' | 'text';
  /** Where the value comes from: a plain name is the record's field (lib/capture/record.ts), as it is; else said in words. */
  source: string;
  /**
   * The native scan's output slot (native/scan.cc): a number's value, a text's span (SLOT and SLOT_END), or with
   * `span` a payload value's span in the line (SLOT_START and SLOT_END), which gives this offset and the next
   * column's length.
   */
  slot?: string;
  span?: true;
}

export const CALL_COLUMNS = [
  { name: 'rollout_pk', sql: 'INTEGER NOT NULL', type: 'number', source: "ingest: the rollout's pk" },
  { name: 'call_index', sql: 'INTEGER NOT NULL', type: 'number', source: 'call_index' },
  // NeMo Gym's ids (uuid4().hex) stored as their 16 bytes, any other as text (call-id.ts): no declared type.
  { name: 'model_call_id', sql: '', type: 'text', source: 'model_call_id', slot: 'CALL_ID' },
  { name: 'file_id', sql: 'INTEGER', type: 'number', source: "ingest: the capture (or rollouts) file's id" },
  { name: 'line_offset', sql: 'INTEGER', type: 'number', source: "the line's offset in its file" },
  { name: 'line_length', sql: 'INTEGER', type: 'number', source: "the line's length, without its newline" },
  { name: 'req_off', sql: 'INTEGER', type: 'number', source: "the request value's offset from the line's start", slot: 'REQ', span: true },
  { name: 'req_len', sql: 'INTEGER', type: 'number', source: "the request value's length" },
  { name: 'resp_off', sql: 'INTEGER', type: 'number', source: "the response value's offset from the line's start", slot: 'RESP', span: true },
  { name: 'resp_len', sql: 'INTEGER', type: 'number', source: "the response value's length" },
  { name: 'model_server', sql: 'TEXT', type: 'text', source: 'model_ref.name', slot: 'REF_NAME' },
  { name: 'model', sql: 'TEXT', type: 'text', source: 'model', slot: 'MODEL' },
  { name: 'dialect', sql: 'TEXT', type: 'text', source: 'dialect', slot: 'DIALECT' },
  { name: 'status_code', sql: 'INTEGER', type: 'number', source: 'status_code', slot: 'STATUS_CODE' },
  { name: 'response_status', sql: 'TEXT', type: 'text', source: 'response_status', slot: 'STATUS' },
  { name: 'finish_reason', sql: 'TEXT', type: 'text', source: 'finish_reason', slot: 'FINISH' },
  { name: 'error_category', sql: 'TEXT', type: 'text', source: 'error_category', slot: 'ERROR_CATEGORY' },
  { name: 'started_at', sql: 'REAL', type: 'number', source: 'started_at', slot: 'STARTED_AT' },
  { name: 'completed_at', sql: 'REAL', type: 'number', source: 'completed_at', slot: 'COMPLETED_AT' },
  { name: 'tokens_in', sql: 'INTEGER', type: 'number', source: 'tokens_in', slot: 'TOKENS_IN' },
  { name: 'tokens_out', sql: 'INTEGER', type: 'number', source: 'tokens_out', slot: 'TOKENS_OUT' },
  { name: 'tokens_reasoning', sql: 'INTEGER', type: 'number', source: 'tokens_reasoning', slot: 'TOKENS_REASONING' },
  { name: 'tokens_total', sql: 'INTEGER', type: 'number', source: 'tokens_total', slot: 'TOKENS_TOTAL' },
  { name: 'cached_tokens', sql: 'INTEGER', type: 'number', source: 'cached_tokens', slot: 'CACHED_TOKENS' },
  { name: 'cache_creation_tokens', sql: 'INTEGER', type: 'number', source: 'cache_creation_tokens', slot: 'CACHE_CREATION_TOKENS' },
  { name: 'cache_hit', sql: 'INTEGER', type: 'number', source: 'cache_hit, as 0 or 1', slot: 'CACHE_HIT' },
  { name: 'latency_ms', sql: 'REAL', type: 'number', source: 'latency_total_ms', slot: 'LATENCY_MS' },
  { name: 'ttft_ms', sql: 'REAL', type: 'number', source: 'latency_ttft_ms', slot: 'TTFT_MS' },
  { name: 'tool_calls', sql: 'INTEGER', type: 'number', source: 'the number of tool_calls', slot: 'TOOL_CALLS' },
] as const satisfies readonly CallColumn[];

type Column = (typeof CALL_COLUMNS)[number];
export type CallColumnName = Column['name'];

/** Values per call row. */
export const CALL_WIDTH = CALL_COLUMNS.length;

/** Each column's place in a call row, by name (the hot paths read plain numbers). */
export const CALL = Object.fromEntries(CALL_COLUMNS.map((c, i) => [c.name, i])) as Readonly<Record<CallColumnName, number>>;

/** The columns of CREATE TABLE calls, in order. */
export const CALL_COLUMNS_SQL = CALL_COLUMNS.map((c) => (c.sql ? `${c.name} ${c.sql}` : c.name)).join(',\n  ');

/** One call row's INSERT: its parameters are a row's values, in order (ingest/rows.ts). */
export const CALL_INSERT_SQL = `INSERT OR REPLACE INTO calls (${CALL_COLUMNS.map((c) => c.name).join(', ')}) VALUES (${CALL_COLUMNS.map(() => '?').join(',')})`;

type SlotsOf<C> = C extends { slot: infer S extends string; span: true }
  ? `${S}_START` | `${S}_END`
  : C extends { slot: infer S extends string; type: 'text' }
    ? S | `${S}_END`
    : C extends { slot: infer S extends string }
      ? S
      : never;
export type NativeSlot = SlotsOf<Column>;

const withSlot = (c: Column): c is Extract<Column, { slot: string }> => 'slot' in c;
const spans = CALL_COLUMNS.filter(withSlot).filter((c) => 'span' in c);
const values = CALL_COLUMNS.filter(withSlot).filter((c) => !('span' in c));

/**
 * The native scan's output slots in the order it writes them: the payload spans, then the texts' spans, then the
 * numbers, each group in column order. scan.cc declares the same list (CALLSCOPE_SLOTS).
 */
export const NATIVE_SLOT_NAMES = [
  ...spans.flatMap((c) => [`${c.slot}_START`, `${c.slot}_END`]),
  ...values.filter((c) => c.type === 'text').flatMap((c) => [c.slot, `${c.slot}_END`]),
  ...values.filter((c) => c.type === 'number').map((c) => c.slot),
] as readonly NativeSlot[];
