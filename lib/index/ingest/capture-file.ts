// Reading one capture file for ingest, with no index access: from the file's stored state (identity, size,
// offset) to what is new in it, as plain values: each call's row (lib/index/call-row.ts) and, when the file was
// read from its start, the rollout's call totals. Pure apart from the file reads, so that an ingest worker
// (worker.ts) and the single-thread ingest run the same code and write the same rows.
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { callTotals, type CallAgg, type CallTotals } from '../aggregates/call-totals';
import { readLinesSync } from './line-reader';
import { nativeScanInto } from '../scan/native';
import { scanExchangeLine } from '../scan/capture-line';
import { CALL, CALL_COLUMNS, CALL_WIDTH } from '../call-row';

/** What ingest stored about a file the last time it read it (a file it has never read: `NEW_FILE`). */
export interface FileState {
  dev: number;
  ino: number;
  size: number;
  mtime_ms: number;
  offset: number;
  next_line: number;
  next_call_index: number;
  unreadable: number;
  pending: number;
}

export const NEW_FILE: FileState = { dev: 0, ino: 0, size: 0, mtime_ms: 0, offset: 0, next_line: 1, next_call_index: 0, unreadable: 0, pending: 0 };

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** Where to resume: the stored offset, or 0 when the file was replaced or truncated. */
export function resumeFrom(row: FileState, st: FileIdentity): 'unchanged' | 'append' | 'reread' {
  if (row.dev === st.dev && row.ino === st.ino && row.size === st.size && row.mtime_ms === st.mtimeMs) return 'unchanged';
  if (row.ino !== 0 && (row.dev !== st.dev || row.ino !== st.ino || st.size < row.offset + row.pending)) return 'reread';
  return 'append';
}

export type IngestRead =
  /** Gone, or not a regular file: nothing is recorded. */
  | { kind: 'absent' }
  /** Same identity, size and mtime as stored. */
  | { kind: 'unchanged' }
  /** Present but could not be opened. */
  | { kind: 'unopenable' }
  | {
      kind: 'read';
      st: FileIdentity;
      /** Replaced or truncated: the calls stored for it are dropped first. */
      reread: boolean;
      /** Read from offset 0 (first read or reread): `totals` are the rollout's, not an append's. */
      fromStart: boolean;
      /** The state after the read (the first call index of the append is the stored next_call_index). */
      state: FileState;
      bytes: number;
      lines: number;
      /** A call row per call (`CALL_WIDTH` values, rollout pk and file id left 0), in call order. */
      calls: unknown[];
      totals: CallTotals | null;
    };

// A file never read is opened without a stat first (one system call fewer on each of a cold pass's files): not
// through a symlink, and without blocking on a FIFO; what is not a regular file is then absent, as after lstat.
const OPEN_NEW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export function readFileForIngest(file: string, stored: FileState): IngestRead {
  let st: Stats;
  let fd: number;
  if (stored.ino === 0) {
    try {
      fd = openSync(file, OPEN_NEW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'unopenable' };
    }
  } else {
    try {
      st = lstatSync(file);
    } catch {
      return { kind: 'absent' };
    }
    if (!st.isFile()) return { kind: 'absent' };
    if (resumeFrom(stored, st) === 'unchanged') return { kind: 'unchanged' };
    try {
      fd = openSync(file, 'r');
    } catch {
      return { kind: 'unopenable' };
    }
  }
  try {
    st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'absent' };
    const reread = resumeFrom(stored, st) === 'reread';
    const from = reread || stored.offset === 0 ? NEW_FILE : stored;
    const fromStart = from.offset === 0;
    const { calls, callIndex, unreadable, bytes, lines, read } = scanCalls(fd, from, st.size);
    const state: FileState = {
      dev: st.dev, ino: st.ino, size: st.size, mtime_ms: st.mtimeMs, offset: read.offset, next_line: read.nextLine,
      next_call_index: callIndex, unreadable, pending: Math.max(0, st.size - read.offset),
    };
    return {
      kind: 'read', st: { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs }, reread, fromStart, state, bytes, lines, calls,
      totals: fromStart ? callTotals(aggsOf(calls)) : null,
    };
  } finally {
    closeSync(fd);
  }
}

/** The call rows of the terminated lines of `fd` from a stored state's place up to `end`, as readFileForIngest reads them. */
function scanCalls(fd: number, from: FileState, end: number) {
  let callIndex = from.next_call_index;
  let unreadable = from.unreadable;
  let bytes = 0;
  let lines = 0;
  const calls: unknown[] = [];
  const read = readLinesSync(fd, from.offset, end, from.next_line, (line, offset) => {
    bytes += line.length + 1;
    lines++;
    if (nativeScanInto(line, offset, callIndex, calls)) {
      callIndex++;
      return;
    }
    const outcome = scanExchangeLine(line, callIndex);
    if (outcome.kind === 'blank') return;
    if (outcome.kind === 'unreadable') unreadable++;
    else calls.push(...callValues(0, 0, offset, line.length, outcome.call));
    callIndex++;
  });
  return { calls, callIndex, unreadable, bytes, lines, read };
}

/**
 * The call rows of a capture file's lines before `offset` (where ingest stopped reading it), read again from its start
 * exactly as ingest read them; null when it cannot be opened (gone: the next pass drops it).
 */
export function readCallsBefore(file: string, offset: number): unknown[] | null {
  let fd: number;
  try {
    fd = openSync(file, OPEN_NEW);
  } catch {
    return null;
  }
  try {
    return fstatSync(fd).isFile() ? scanCalls(fd, NEW_FILE, offset).calls : null;
  } finally {
    closeSync(fd);
  }
}

function num(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v !== null && typeof v === 'object' && 'value' in (v as object)) return Number((v as { value: number }).value);
  return null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** The call row of one call (lib/index/call-row.ts; request/response offsets relative to the line's start). */
export function callValues(
  pk: number,
  fileId: number,
  lineOffset: number,
  lineLength: number,
  call: { record: Record<string, unknown>; request: { start: number; end: number } | null; response: { start: number; end: number } | null },
): unknown[] {
  const r = call.record;
  const ref = r.model_ref as { name?: unknown } | null;
  const v: unknown[] = new Array(CALL_WIDTH);
  v[CALL.rollout_pk] = pk;
  v[CALL.call_index] = num(r.call_index);
  v[CALL.model_call_id] = str(r.model_call_id);
  v[CALL.file_id] = fileId;
  v[CALL.line_offset] = lineOffset;
  v[CALL.line_length] = lineLength;
  v[CALL.req_off] = call.request ? call.request.start : null;
  v[CALL.req_len] = call.request ? call.request.end - call.request.start : null;
  v[CALL.resp_off] = call.response ? call.response.start : null;
  v[CALL.resp_len] = call.response ? call.response.end - call.response.start : null;
  v[CALL.model_server] = ref && typeof ref.name === 'string' ? ref.name : null;
  v[CALL.model] = str(r.model);
  v[CALL.dialect] = str(r.dialect);
  v[CALL.status_code] = num(r.status_code);
  v[CALL.response_status] = str(r.response_status);
  v[CALL.finish_reason] = str(r.finish_reason);
  v[CALL.error_category] = str(r.error_category);
  v[CALL.started_at] = num(r.started_at);
  v[CALL.completed_at] = num(r.completed_at);
  v[CALL.tokens_in] = num(r.tokens_in);
  v[CALL.tokens_out] = num(r.tokens_out);
  v[CALL.tokens_reasoning] = num(r.tokens_reasoning);
  v[CALL.tokens_total] = num(r.tokens_total);
  v[CALL.cached_tokens] = num(r.cached_tokens);
  v[CALL.cache_creation_tokens] = num(r.cache_creation_tokens);
  v[CALL.cache_hit] = r.cache_hit === null || r.cache_hit === undefined ? null : r.cache_hit ? 1 : 0;
  v[CALL.latency_ms] = num(r.latency_total_ms);
  v[CALL.ttft_ms] = num(r.latency_ttft_ms);
  v[CALL.tool_calls] = Array.isArray(r.tool_calls) ? r.tool_calls.length : 0;
  return v;
}

/** The aggregate inputs of each call of flat call rows. */
function aggsOf(v: unknown[]): CallAgg[] {
  const out: CallAgg[] = [];
  for (let i = 0; i < v.length; i += CALL_WIDTH) {
    out.push({
      model_server: v[i + CALL.model_server] as string | null, dialect: v[i + CALL.dialect] as string | null,
      error_category: v[i + CALL.error_category] as string | null, started_at: v[i + CALL.started_at] as number | null,
      completed_at: v[i + CALL.completed_at] as number | null, tokens_in: v[i + CALL.tokens_in] as number | null,
      tokens_out: v[i + CALL.tokens_out] as number | null, tokens_reasoning: v[i + CALL.tokens_reasoning] as number | null,
      tokens_total: v[i + CALL.tokens_total] as number | null, cached_tokens: v[i + CALL.cached_tokens] as number | null,
      latency_ms: v[i + CALL.latency_ms] as number | null, ttft_ms: v[i + CALL.ttft_ms] as number | null,
    });
  }
  return out;
}

/** Columns of a call row that hold strings (or null); the others hold numbers (or null). */
const STRING_COLUMN = Uint8Array.from(CALL_COLUMNS, (c) => (c.type === 'text' ? 1 : 0));
const CALL_ID = CALL.model_call_id;

/**
 * Flat call values packed for a worker's message: numbers in a Float64Array, strings as indexes into a table
 * of distinct strings, nulls as one bit mask per call. Several times cheaper to clone than the plain array.
 */
export interface PackedCalls {
  numbers: Float64Array;
  nulls: Uint32Array;
  strings: string[];
}

export function packCalls(flat: unknown[]): PackedCalls {
  const n = flat.length / CALL_WIDTH;
  const numbers = new Float64Array(flat.length);
  const nulls = new Uint32Array(n);
  const strings: string[] = [];
  const ids = new Map<string, number>();
  for (let c = 0; c < n; c++) {
    let mask = 0;
    for (let j = 0; j < CALL_WIDTH; j++) {
      const v = flat[c * CALL_WIDTH + j];
      if (v === null || v === undefined) mask |= 1 << j;
      else if (j === CALL_ID) numbers[c * CALL_WIDTH + j] = strings.push(v as string) - 1; // model_call_id: unique, not looked up
      else if (STRING_COLUMN[j] === 1) {
        let id = ids.get(v as string);
        if (id === undefined) ids.set(v as string, (id = strings.push(v as string) - 1));
        numbers[c * CALL_WIDTH + j] = id;
      } else numbers[c * CALL_WIDTH + j] = v as number;
    }
    nulls[c] = mask;
  }
  return { numbers, nulls, strings };
}

/** Call `c` of packed values into `into` (CALL_WIDTH long). */
export function unpackCall(p: PackedCalls, c: number, into: unknown[]): void {
  const mask = p.nulls[c];
  const base = c * CALL_WIDTH;
  for (let j = 0; j < CALL_WIDTH; j++) {
    if (mask & (1 << j)) into[j] = null;
    else into[j] = STRING_COLUMN[j] === 1 ? p.strings[p.numbers[base + j]] : p.numbers[base + j];
  }
}
