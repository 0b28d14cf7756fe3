// A cold ingest's calls in ClickHouse's Native form, encoded by the ingest worker that scanned them (ingest/job.ts):
// each column of the calls table that the lines give, for all the calls of a job, as the bytes a Native block holds.
// The main thread then writes a rollout's calls by copying byte ranges (sync.ts takenRows) instead of handling a
// million values one by one: of a cold ingest's work per call, only the scan is left, and it runs on the workers.
// The rollout's pk and the file's id are the main thread's (the working copy gives them), as are the rollout's key,
// the run and the version: those columns it writes itself.
import { CALL, CALL_COLUMNS, CALL_WIDTH, type CallColumnName } from '../call-row';
import { encodeColumns, type EncodedColumn, type NativeType, type WholeColumn } from './native';

/** The calls table's columns a worker encodes: every call-row column but the two the main thread gives, with its type. */
export const ENCODED_CALL_COLUMNS: readonly { name: CallColumnName; type: NativeType }[] = CALL_COLUMNS.filter((c) => c.name !== 'rollout_pk' && c.name !== 'file_id').map((c) => ({
  name: c.name,
  // As schema.ts declares them from the SQLite columns (sync.ts checks the two agree): INTEGER NOT NULL, INTEGER, REAL, text.
  type: c.type === 'text' ? 'Nullable(String)' : c.sql === 'INTEGER NOT NULL' ? 'Int64' : c.sql === 'REAL' ? 'Nullable(Float64)' : 'Nullable(Int64)',
}));

/** A job's calls, each column of ENCODED_CALL_COLUMNS encoded for all of them (in one buffer); a String column with where each call's bytes start. */
export interface EncodedCalls {
  n: number;
  columns: WholeColumn[];
}

/** Encodes the calls of reads' flat rows (CALL_WIDTH values each, call-row.ts's order), one list after another. */
export function encodeCalls(flats: readonly (readonly unknown[])[]): EncodedCalls {
  const flat = flats.length === 1 ? flats[0] : ([] as unknown[]).concat(...flats);
  const n = flat.length / CALL_WIDTH;
  const specs = ENCODED_CALL_COLUMNS.map(({ name, type }) => {
    const j = CALL[name];
    return { type, get: (r: number) => flat[r * CALL_WIDTH + j] };
  });
  return { n, columns: encodeColumns(specs, n) };
}

/** The buffers of encoded calls, for a worker's message to move rather than copy. */
export function transferables(e: EncodedCalls): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const c of e.columns) for (const a of [c.nulls, c.values, c.offsets]) if (a) out.add(a.buffer as ArrayBuffer);
  return [...out];
}

/** Calls `from` to `from + count` of a job's encoded calls. */
export interface CallRange {
  calls: EncodedCalls;
  from: number;
  count: number;
}

/** Byte widths of the fixed-width types encoded here. */
const WIDTH: Partial<Record<NativeType, number>> = { Int64: 8, 'Nullable(Int64)': 8, 'Nullable(Float64)': 8 };

/** Each encoded column of the ranges' calls, in order, as one column (adjacent ranges of one job copied as one). */
export function concatRanges(ranges: readonly CallRange[]): EncodedColumn[] {
  // Adjacent ranges of the same job merged first: a flush's rollouts mostly come in the order their files were read.
  const merged: CallRange[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && last.calls === r.calls && last.from + last.count === r.from) last.count += r.count;
    else if (r.count > 0) merged.push({ ...r });
  }
  return ENCODED_CALL_COLUMNS.map(({ type }, k) => {
    const width = WIDTH[type];
    const values: Uint8Array[] = [];
    const nulls: Uint8Array[] | null = type.startsWith('Nullable(') ? [] : null;
    for (const r of merged) {
      const c = r.calls.columns[k];
      const [a, b] = c.offsets ? [c.offsets[r.from], c.offsets[r.from + r.count]] : [r.from * width!, (r.from + r.count) * width!];
      values.push(c.values.subarray(a, b));
      nulls?.push(c.nulls!.subarray(r.from, r.from + r.count));
    }
    return { encoded: true, nulls, values };
  });
}

/** The call index of call `c` of encoded calls. */
export function callIndexOf(calls: EncodedCalls, c: number): number {
  const col = calls.columns[CALL_INDEX_AT];
  return new DataView(col.values.buffer, col.values.byteOffset + c * 8, 8).getUint32(0, true);
}

const CALL_INDEX_AT = ENCODED_CALL_COLUMNS.findIndex((c) => c.name === 'call_index');
