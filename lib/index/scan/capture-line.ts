// The metadata scanner: one capture line -> its record (without payloads) and the byte spans of the line and
// of its `request` and `response` values. Request bodies are never materialized (only their `model` is read,
// for the record's model fallback); responses are parsed, since tokens, tool calls and reasoning live there.
// Outcomes follow the tolerant reader (§3.6) exactly, except that inside the skipped request value only the
// structure (strings, brackets) is checked, not every token.
import { isUtf8 } from 'node:buffer';
import { isJsonObject } from '../../capture/json-value';
import { scanStrict, type ValueSpan } from '../../capture/json-parse';
import { scanExchangeFast } from './fast-scan';
import { deriveRecord, type ModelCallRecord } from '../../capture/record';
import { stripAscii } from '../../capture/bytes';

const SHALLOW = { request: ['model'] } as const;

export interface ScannedCall {
  /**
   * Every indexed field exact. The payload fields are not the lossless values: `request` is shallow (its
   * `model` only), and on the fast path `response`, `request_raw`/`response_raw` ("") and the tool calls'
   * arguments may differ from the lossless parse (whole floats as plain numbers); only their non-null-ness
   * and the number of tool calls are meant to be read.
   */
  record: ModelCallRecord;
  /** Spans relative to the start of the line. */
  request: ValueSpan | null;
  response: ValueSpan | null;
}

export type ScanOutcome = { kind: 'blank' } | { kind: 'record'; call: ScannedCall } | { kind: 'unreadable'; message: string };

export function scanExchangeLine(bytes: Buffer, callIndex: number): ScanOutcome {
  const stripped = stripAscii(bytes);
  if (stripped.length === 0) return { kind: 'blank' };
  const shift = stripped.byteOffset - bytes.byteOffset;
  // The fast scan answers only when its answer is the lossless one (see scanExchangeFast); a derivation
  // that raises is redone on the lossless value so that the message is the lossless path's own.
  const fast = isUtf8(stripped) ? scanExchangeFast(stripped) : null;
  if (fast) {
    let record: ModelCallRecord | null = null;
    try {
      record = deriveRecord(fast.value, callIndex);
    } catch {
      // fall through to the lossless path
    }
    if (record) {
      const call = { record, request: shifted(fast.request, record.request !== null, shift), response: shifted(fast.response, record.response !== null, shift) };
      return { kind: 'record', call };
    }
  }
  return scanExchangeLineExact(stripped, shift, callIndex);
}

function shifted(s: ValueSpan | null, isObject: boolean, shift: number): ValueSpan | null {
  return s && isObject ? { start: s.start + shift, end: s.end + shift } : null;
}

/** The lossless scan of a stripped line (`shift`: its offset in the line). Exported for the equivalence tests. */
export function scanExchangeLineExact(stripped: Buffer, shift: number, callIndex: number): ScanOutcome {
  let scanned;
  try {
    scanned = scanStrict(stripped, SHALLOW);
  } catch (err) {
    return { kind: 'unreadable', message: `invalid JSON: ${(err as Error).message}` };
  }
  if (!isJsonObject(scanned.value)) return { kind: 'unreadable', message: 'not a JSON object' };
  let record: ModelCallRecord;
  try {
    record = deriveRecord(scanned.value, callIndex);
  } catch (err) {
    return { kind: 'unreadable', message: `record derivation failed: ${(err as Error).message}` };
  }
  const span = (key: string, isObject: boolean): ValueSpan | null => {
    const s = scanned.spans[key];
    return s && isObject ? { start: s.start + shift, end: s.end + shift } : null;
  };
  return {
    kind: 'record',
    call: { record, request: span('request', record.request !== null), response: span('response', record.response !== null) },
  };
}
