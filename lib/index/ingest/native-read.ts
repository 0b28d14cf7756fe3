// A cold pass's capture jobs read by the native addon (native/scan.cc, FileReader): each file never read before is
// opened, read and scanned line by line in C++, its calls written straight into the columns a ClickHouse write takes
// (encodeCalls' layout, clickhouse/call-columns.ts) and its rollout's call totals computed beside them. No line, value
// or string of a call reaches JavaScript: of the worker's work per call only the line scan is left.
//
// It is a fast path of job.ts's JavaScript one (readFileForIngest, then encodeCalls), which stays the reference:
// the addon declines a file whenever its answer could differ (a line its scan declines, a damaged line, a value an
// Int64 column would round, a tag list JavaScript might sort otherwise, a read error), and then the whole job is read
// in JavaScript. tests/unit/index/ingest/native-read.property.test.ts holds the two equal, file for file and byte for byte.
import { ENCODED_CALL_COLUMNS, type EncodedCalls } from '../clickhouse/call-columns';
import type { NativeType, WholeColumn } from '../clickhouse/native';
import { nativeAddon, type NativeAddon } from '../scan/addon';
import type { FileState, IngestRead } from './capture-file';

/** scan.cc's column kinds by the Native type call-columns.ts gives each column. */
const KIND: Partial<Record<NativeType, string>> = { Int64: 'I64', 'Nullable(Int64)': 'NI64', 'Nullable(Float64)': 'NF64', 'Nullable(String)': 'STR' };
const EXPECTED = ENCODED_CALL_COLUMNS.map(({ name, type }) => `${name}:${KIND[type] ?? type}`);

// readCaptureFile's meta, by place (scan.cc, enum Meta).
const enum M {
  DEV, INO, SIZE, MTIME_SEC, MTIME_NSEC, OFFSET, LINES, CALLS,
  TOKENS_IN, TOKENS_OUT, TOKENS_REASONING, TOKENS_TOTAL, CACHED, LATENCY_SUM, LATENCY_MAX, TTFT_MEDIAN, ERRORS, STARTED, COMPLETED,
}
const META_COUNT = M.COMPLETED + 1;

const meta = new Float64Array(META_COUNT);
let checkedFor: NativeAddon | null = null;
let usable = false;

/** The addon, when it reads files with this code's columns and meta. */
function reader(): NativeAddon | null {
  if (process.env.CALLSCOPE_NATIVE_READ === '0') return null;
  const a = nativeAddon();
  if (!a) return null;
  if (a !== checkedFor) {
    checkedFor = a;
    const columns = Array.isArray(a.callColumns) ? a.callColumns : [];
    usable = typeof a.readCaptureFile === 'function' && a.metaCount === META_COUNT && columns.length === EXPECTED.length && EXPECTED.every((c, k) => columns[k] === c);
  }
  return usable ? a : null;
}

/** Whether a job's file is one readCapturesNative reads: never read before (readFileForIngest then reads it from its start). */
export function isNewFile(state: FileState): boolean {
  return state.ino === 0 && state.offset === 0;
}

const nullable = (v: number): number | null => (v === v ? v : null); // NaN: null

/**
 * The reads of a capture job's files, all new to the index, and their calls encoded: what runJob's JavaScript path
 * answers for the same job (reads with `calls` emptied, counts, encoded calls); null when the addon is not in use or
 * declines any of the files (the caller reads the job in JavaScript).
 */
export function readCapturesNative(files: readonly string[]): { reads: IngestRead[]; counts: number[]; encoded: EncodedCalls } | null {
  const a = reader();
  if (!a) return null;
  const reads: IngestRead[] = [];
  const counts: number[] = [];
  for (const file of files) {
    const answer = a.readCaptureFile(file, meta);
    if (typeof answer === 'number') {
      if (answer !== 0 && answer !== 1) {
        a.dropCalls();
        return null;
      }
      reads.push(answer === 0 ? { kind: 'absent' } : { kind: 'unopenable' });
      counts.push(0);
      continue;
    }
    const m = meta;
    // As Node's Stats gives mtimeMs (lib/internal/fs/utils.js msFromTimeSpec).
    const st = { dev: m[M.DEV], ino: m[M.INO], size: m[M.SIZE], mtimeMs: m[M.MTIME_SEC] * 1e3 + m[M.MTIME_NSEC] / 1e6 };
    const offset = m[M.OFFSET];
    const calls = m[M.CALLS];
    const state: FileState = {
      dev: st.dev, ino: st.ino, size: st.size, mtime_ms: st.mtimeMs, offset, next_line: 1 + m[M.LINES], next_call_index: calls, unreadable: 0,
      pending: Math.max(0, st.size - offset),
    };
    // callTotals' values in its order (aggregates/call-totals.ts).
    const totals = [
      calls, nullable(m[M.TOKENS_IN]), nullable(m[M.TOKENS_OUT]), nullable(m[M.TOKENS_REASONING]), nullable(m[M.TOKENS_TOTAL]), nullable(m[M.CACHED]),
      nullable(m[M.LATENCY_SUM]), nullable(m[M.LATENCY_MAX]), nullable(m[M.TTFT_MEDIAN]), m[M.ERRORS], answer[0], answer[1], answer[2],
      nullable(m[M.STARTED]), nullable(m[M.COMPLETED]),
    ];
    reads.push({ kind: 'read', st, reread: false, fromStart: true, state, bytes: offset, lines: m[M.LINES], calls: [], totals });
    counts.push(calls);
  }
  const [n, buffer] = a.takeCalls();
  return { reads, counts, encoded: { n, columns: columnsOf(buffer, n) } };
}

/** The columns of takeCalls' buffer, laid out as encodeColumns lays them: String columns' offsets, then each column's nulls and values. */
function columnsOf(buffer: ArrayBuffer, n: number): WholeColumn[] {
  let at = 0;
  const offsets = ENCODED_CALL_COLUMNS.map(({ type }) => {
    if (type !== 'Nullable(String)') return null;
    const o = new Uint32Array(buffer, at, n + 1);
    at += 4 * (n + 1);
    return o;
  });
  const all = new Uint8Array(buffer);
  return ENCODED_CALL_COLUMNS.map(({ type }, k) => {
    let nulls: Uint8Array | null = null;
    if (type.startsWith('Nullable(')) {
      nulls = all.subarray(at, at + n);
      at += n;
    }
    const length = offsets[k] ? offsets[k]![n] : 8 * n;
    const values = all.subarray(at, at + length);
    at += length;
    return { encoded: true, nulls, values, offsets: offsets[k] };
  });
}
