// Reading one call (or one rollout's calls) back from disk through the index's byte spans. The request value
// is never read to build a record: the bytes before and after its span are read and an empty object stands
// in for it, and the model the request named comes from the index. Payloads are streamed from their spans,
// so a 256 MB line is served without ever becoming one string.
import { createReadStream, promises as fsp } from 'node:fs';
import type { Readable } from 'node:stream';
import type Database from 'better-sqlite3';
import { isJsonObject, type JsonObject, type JsonValue } from '../../capture/json-value';
import { parsePython } from '../../capture/json-parse';
import { serialize } from '../../capture/json-serialize';
import { RECORD_FIELDS, type ModelCallRecord } from '../../capture/record';
import { callIdSql, storedCallId } from '../call-id';
import { stripAscii } from '../../capture/bytes';
import { scanExchangeLineExact } from '../scan/capture-line';

export interface CallLocation {
  rollout_pk: number;
  call_index: number;
  model_call_id: string | null;
  path: string;
  kind: string;
  line_offset: number;
  line_length: number;
  req_off: number | null;
  req_len: number | null;
  resp_off: number | null;
  resp_len: number | null;
  model: string | null;
  dialect: string | null;
}

// Offsets are stored relative to the line's start (smaller rows); callers get them absolute.
const LOCATION_SQL = `SELECT c.rollout_pk, c.call_index, ${callIdSql('c.model_call_id')} AS model_call_id, f.path, f.kind, c.line_offset, c.line_length,
  c.line_offset + c.req_off AS req_off, c.req_len, c.line_offset + c.resp_off AS resp_off, c.resp_len, c.model, c.dialect
  FROM calls c JOIN files f ON f.id = c.file_id`;

/** A call by `model_call_id`, or `i<call_index>` for a line without one. */
export function locateCall(db: Database.Database, rolloutPk: number, callId: string): CallLocation | null {
  const byIndex = /^i(\d{1,9})$/.exec(callId);
  const row = byIndex
    ? db.prepare(`${LOCATION_SQL} WHERE c.rollout_pk = ? AND c.call_index = ?`).get(rolloutPk, Number(byIndex[1]))
    : db.prepare(`${LOCATION_SQL} WHERE c.rollout_pk = ? AND c.model_call_id = ? ORDER BY c.call_index LIMIT 1`).get(rolloutPk, storedCallId(callId));
  return (row as CallLocation | undefined) ?? null;
}

export function callsOfRollout(db: Database.Database, rolloutPk: number): CallLocation[] {
  return db.prepare(`${LOCATION_SQL} WHERE c.rollout_pk = ? ORDER BY c.call_index`).all(rolloutPk) as CallLocation[];
}

async function readRange(handle: fsp.FileHandle, start: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buf, done, length - done, start + done);
    if (bytesRead === 0) throw new Error('capture file shrank under the index');
    done += bytesRead;
  }
  return buf;
}

/**
 * The record of a capture call, derived from its line with `{}` standing in for the request value. Derived by the
 * lossless scan, not the ingest's fast one: the fast scan stands in "" for `request_raw`/`response_raw` and reads
 * whole floats in tool-call arguments as integers, which is enough for the index's columns but not for a record
 * that is served as the tolerant reader's own.
 */
async function recordFromCapture(handle: fsp.FileHandle, loc: CallLocation): Promise<ModelCallRecord | null> {
  let bytes: Buffer;
  if (loc.req_off !== null && loc.req_len !== null) {
    const before = await readRange(handle, loc.line_offset, loc.req_off - loc.line_offset);
    const afterStart = loc.req_off + loc.req_len;
    const after = await readRange(handle, afterStart, loc.line_offset + loc.line_length - afterStart);
    bytes = Buffer.concat([before, Buffer.from('{}'), after]);
  } else {
    bytes = await readRange(handle, loc.line_offset, loc.line_length);
  }
  const stripped = stripAscii(bytes);
  const outcome = scanExchangeLineExact(stripped, stripped.byteOffset - bytes.byteOffset, loc.call_index);
  if (outcome.kind !== 'record') return null;
  const record = outcome.call.record;
  if (loc.req_off !== null) record.model = loc.model;
  return record;
}

/** The attachment-shaped calls (no payload keys) of a capture-backed rollout. */
export async function readCaptureCalls(locations: CallLocation[]): Promise<ModelCallRecord[]> {
  const out: ModelCallRecord[] = [];
  const handles = new Map<string, fsp.FileHandle>();
  try {
    for (const loc of locations) {
      let handle = handles.get(loc.path);
      if (!handle) {
        handle = await fsp.open(loc.path, 'r');
        handles.set(loc.path, handle);
      }
      const record = await recordFromCapture(handle, loc);
      if (record) out.push(record);
    }
  } finally {
    for (const h of handles.values()) await h.close();
  }
  return out;
}

/** The rollout line (for attachment- and trajectory-backed calls), parsed in full. */
export async function loadRolloutLine(file: string, offset: number, length: number): Promise<JsonObject | null> {
  const handle = await fsp.open(file, 'r');
  try {
    const v = parsePython(await readRange(handle, offset, length));
    return isJsonObject(v) ? v : null;
  } finally {
    await handle.close();
  }
}

/** §5.2: a trajectory model call's payloads (`request` falls back to request_raw and so on). */
export function trajectoryPayloads(line: JsonObject, modelCallId: string | null): { request: JsonValue; response: JsonValue } | null {
  const traj = line.ng_trajectory;
  if (!isJsonObject(traj) || !Array.isArray(traj.model_calls) || !modelCallId) return null;
  const call = traj.model_calls.find((c) => isJsonObject(c) && c.model_call_id === modelCallId);
  return isJsonObject(call) ? { request: call.request ?? null, response: call.response ?? null } : null;
}

export type CallBody = { kind: 'parts'; parts: (string | { path: string; start: number; length: number })[] };

/**
 * The normalized record with its payloads, as JSON text parts: serialized record fields, with the request and
 * response values spliced in from their byte spans on disk.
 */
export async function callBody(loc: CallLocation): Promise<CallBody | null> {
  const handle = await fsp.open(loc.path, 'r');
  let record: ModelCallRecord | null;
  try {
    record = await recordFromCapture(handle, loc);
  } finally {
    await handle.close();
  }
  if (!record) return null;
  const REQ = '\u0000callscope-request\u0000';
  const RESP = '\u0000callscope-response\u0000';
  const full: JsonObject = {};
  for (const key of RECORD_FIELDS) full[key] = record[key] ?? null;
  if (loc.req_off !== null) full.request = REQ;
  if (loc.resp_off !== null) full.response = RESP;
  const text = serialize(full);
  const parts: CallBody['parts'] = [];
  let rest = text;
  for (const [marker, off, len] of [
    [JSON.stringify(REQ), loc.req_off, loc.req_len],
    [JSON.stringify(RESP), loc.resp_off, loc.resp_len],
  ] as const) {
    if (off === null || len === null) continue;
    const at = rest.indexOf(marker);
    parts.push(rest.slice(0, at), { path: loc.path, start: off, length: len });
    rest = rest.slice(at + marker.length);
  }
  parts.push(rest);
  return { kind: 'parts', parts };
}

/** Streams byte ranges of files, in order. */
export async function* streamParts(parts: CallBody['parts']): AsyncGenerator<Buffer | string> {
  for (const part of parts) {
    if (typeof part === 'string') {
      if (part) yield part;
      continue;
    }
    if (part.length === 0) continue;
    const stream: Readable = createReadStream(part.path, { start: part.start, end: part.start + part.length - 1, highWaterMark: 1 << 20 });
    for await (const chunk of stream) yield chunk as Buffer;
  }
}

