// The index's fast scans in JavaScript: a capture line (scanExchangeFast, for capture-line.ts) and a rollout line
// (scanShallowFast, which ingest passes to parseRolloutLine), each one structural pass plus one JSON.parse of the
// parts kept, declining (null) wherever the answer could differ from the lossless scan's (scanStrict,
// lib/capture/json-parse.ts), which then reads the line. native/scan.cc ports both walks (native.ts).
//
// One module on purpose: the two scans share the walk below, which leaves what a step finds besides its return value
// in module state (memberKeyEnd, objectClosed, keptIntegralFloat, ...), private here. Split across modules, and what
// the walk uses of other modules read through imports compiled to property reads (CommonJS, bundles without scope
// hoisting), both scans lost 10-15% of their throughput on the demo lines (CALLSCOPE_NATIVE_SCAN=0; as native ES
// modules, the way tsx loads the CLI and the ingest workers, no difference): so one module, and what its loops use of
// other modules bound to constants of it.
import type { FastShallowScan, SliceBuffer, ValueSpan } from '../../capture/json-parse';
import * as jsonSkip from '../../capture/json-skip';
import type { JsonObject } from '../../capture/json-value';
import { nativeAddon } from './addon';
import { scanShallowFastNative } from './native';

const { closingQuote, FAST_DEPTH, skippedContainerEndJs } = jsonSkip;

const enum C {
  Tab = 9,
  Lf = 10,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  UpperE = 69,
  LowerE = 101,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  LBrace = 123,
  RBrace = 125,
}

// ---------------------------------------------------------------------------------------------------------
// The fast exchange scan (index ingest)
//
// `scanStrict(line, { request: ['model'] })` in one structural pass plus one native JSON.parse of the kept
// parts (every top-level value except the request body, and the request's own scalars and `model`). It
// answers only when the answer is provably the one scanStrict gives; otherwise it returns null and the caller
// runs scanStrict. Where JSON.parse and the lossless parser could differ it declines:
//   - a float token with an integral or non-finite value (`1.0`, `-0.0`, `1e400`: a JsonFloat there, a plain
//     number from JSON.parse) inside a `usage` value, the only place the record derivation tells them apart
//     (token counts); elsewhere such floats are kept as plain numbers, so the payload values of the answer
//     are not lossless, only what the record derives from them is;
//   - an integer of 16 or more digits in a kept part (bigint or float there), or `-0` (0 there);
//   - any `\u` escape in a kept part: a lone surrogate is an error in orjson mode only, and an escaped key
//     could spell `usage` or an index key, which the walk recognizes by their bytes;
//   - an array-index-like key in a kept part (KEY_ORDER there, engine order from JSON.parse);
//   - a top-level key or a request key with an escape or a control character (the lossless parser compares
//     decoded keys), a second `request` key, nesting deeper than FAST_DEPTH, anything not a top-level object;
//   - any structural error (the lossless parser reports it).
// `request_raw` and `response_raw` strings are checked as the lossless parser checks them, then read as "":
// like the request body (shallow there too), they are payloads the index only needs to know are strings.
// Inside the request's container and string values only the structure is walked (strings closed, brackets
// matched), exactly what scanStrict checks there. Invalid UTF-8 must be excluded by the caller (isUtf8).

export interface FastExchangeScan {
  value: JsonObject;
  /** Spans of the last top-level `request` and `response` values, relative to the scanned bytes. */
  request: ValueSpan | null;
  response: ValueSpan | null;
}

const fastClosers = new Uint8Array(FAST_DEPTH + 2);
// 1 for the bytes that end a scalar token: , } ] and JSON whitespace.
const SCALAR_END = new Uint8Array(256);
for (const c of [C.Comma, C.RBrace, C.RBracket, C.Space, C.Tab, C.Lf, C.Cr]) SCALAR_END[c] = 1;

function wsAt(b: Buffer, i: number): number {
  const n = b.length;
  while (i < n) {
    const c = b[i];
    if (c === C.Space || c === C.Lf || c === C.Cr || c === C.Tab) i++;
    else break;
  }
  return i;
}

/** The index of the closing quote of a plain key (no escape, no control byte) opening at `i`, or -1. */
function plainKeyEnd(b: Buffer, i: number): number {
  const n = b.length;
  for (let j = i + 1; j < n; j++) {
    const c = b[j];
    if (c === C.Quote) return j;
    if (c === C.Backslash || c < 0x20) return -1;
  }
  return -1;
}

function bytesEqual(b: Buffer, start: number, end: number, word: string): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (b[start + k] !== word.charCodeAt(k)) return false;
  return true;
}

const isHex8toF = (c: number): boolean => (c >= 56 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

/** Set by keptValueEnd(…, noteFloats): the value held a float token with an integral or non-finite value. */
let keptIntegralFloat = false;

/**
 * The end of the kept value at `i` (nested `depth` deep), walking every byte and checking the guards above;
 * -1 to decline. Token validity (escapes, literals, control characters, delimiters) is left to JSON.parse.
 */
function keptValueEnd(b: Buffer, i: number, depth: number, noteFloats = false): number {
  const n = b.length;
  let level = 0;
  let usageLevel = 0; // > 0: inside the container value of a "usage" key, opened at this level
  let usageNext = false; // the last token was a "usage" key
  while (i < n) {
    const c = b[i];
    if (c === C.Quote) {
      const first = b[i + 1];
      const j = closingQuote(b, i + 1);
      if (j < 0) return -1;
      const start = i + 1;
      i = j + 1;
      usageNext = false;
      if (first >= C.Zero && first <= C.Nine) {
        // A key that JS would enumerate first (KEY_ORDER in the lossless parser): declined.
        if (b[wsAt(b, i)] === C.Colon) return -1;
      } else if (j - start === 5 && bytesEqual(b, start, j, 'usage') && b[wsAt(b, i)] === C.Colon) usageNext = true;
      if (level === 0) return i;
      continue;
    }
    if (c === C.LBrace || c === C.LBracket) {
      if (depth + level >= FAST_DEPTH) return -1;
      fastClosers[++level] = c + 2;
      if (usageNext && usageLevel === 0) usageLevel = level;
      usageNext = false;
      i++;
      continue;
    }
    if (c === C.RBrace || c === C.RBracket) {
      if (level === 0 || fastClosers[level] !== c) return -1;
      if (level === usageLevel) usageLevel = 0;
      level--;
      i++;
      if (level === 0) return i;
      continue;
    }
    if (c === C.Minus || (c >= C.Zero && c <= C.Nine)) {
      const start = i;
      if (c === C.Minus) i++;
      const intStart = i;
      while (i < n && b[i] >= C.Zero && b[i] <= C.Nine) i++;
      const intDigits = i - intStart;
      let isFloat = false;
      if (b[i] === C.Dot) {
        isFloat = true;
        i++;
        while (i < n && b[i] >= C.Zero && b[i] <= C.Nine) i++;
      }
      if (b[i] === C.LowerE || b[i] === C.UpperE) {
        isFloat = true;
        i++;
        if (b[i] === C.Plus || b[i] === C.Minus) i++;
        const expStart = i;
        while (i < n && b[i] >= C.Zero && b[i] <= C.Nine) i++;
        // A three-digit exponent may overflow a double: orjson refuses that, JSON.parse reads Infinity.
        if (i - expStart >= 3) return -1;
      }
      if (isFloat && intDigits >= 300) return -1; // the same, by its digits
      if (isFloat) {
        // A float whose value is integral or not finite is a JsonFloat losslessly and a plain number here.
        // The derivation tells them apart only as token counts (validTokens), all of them under `usage`;
        // elsewhere (pydantic lax int/float, truthiness, string checks) both give the same result.
        if (usageLevel > 0 || usageNext) {
          const v = Number((b as SliceBuffer).latin1Slice(start, i));
          if (!Number.isFinite(v) || Number.isInteger(v)) return -1;
        } else if (noteFloats && !keptIntegralFloat) {
          const v = Number((b as SliceBuffer).latin1Slice(start, i));
          if (!Number.isFinite(v) || Number.isInteger(v)) keptIntegralFloat = true;
        }
      } else if (intDigits >= 16 || intDigits === 0 || (c === C.Minus && b[intStart] === C.Zero)) return -1;
      usageNext = false;
      if (level === 0) return i;
      continue;
    }
    if (c === 116 || c === 102 || c === 110) {
      // true, false, null (checked by JSON.parse)
      while (i < n && SCALAR_END[b[i]] === 0) i++;
      usageNext = false;
      if (level === 0) return i;
      continue;
    }
    if (level === 0) return -1;
    if (c === C.Comma || c === C.Colon || c === C.Space || c === C.Lf || c === C.Cr || c === C.Tab) {
      i++;
      continue;
    }
    return -1;
  }
  return -1;
}

/**
 * The end of the container at `i` walked structurally (as Parser.skipValue does), or -1: by the native addon when
 * it is built (the same walk in C++, held equal by tests/unit/index/scan/skip-native.property.test.ts), else by
 * skippedContainerEndJs (lib/capture/json-skip.ts).
 */
export function skippedContainerEnd(b: Buffer, i: number, depth: number): number {
  const native = nativeAddon();
  return native ? native.skipContainer(b, i, depth) : skippedContainerEndJs(b, i, depth);
}

/** Set by countedArrayEnd: the elements of the array that are objects. */
let countedObjects = 0;

/**
 * The end of the array at `i` as Parser.countArrayObjects reads it: its own elements and delimiters checked, each
 * element walked structurally; -1 to decline, also for a scalar element (the lossless parser validates those).
 */
function countedArrayEnd(b: Buffer, i: number, depth: number): number {
  if (depth >= FAST_DEPTH) return -1;
  let objects = 0;
  i = wsAt(b, i + 1);
  if (b[i] === C.RBracket) {
    countedObjects = 0;
    return i + 1;
  }
  for (;;) {
    const c = b[i];
    if (c === C.Quote) i = closingQuote(b, i + 1) + 1;
    else if (c === C.LBrace || c === C.LBracket) {
      if (c === C.LBrace) objects++;
      i = skippedContainerEnd(b, i, depth + 1);
    } else return -1;
    if (i <= 0) return -1;
    i = wsAt(b, i);
    if (b[i] === C.RBracket) {
      countedObjects = objects;
      return i + 1;
    }
    if (b[i] !== C.Comma) return -1;
    i = wsAt(b, i + 1);
  }
}

/**
 * The text JSON.parse reads for a request object at `i`: its keys, its scalars and `model` kept, its other
 * string and container values replaced by 0. Returns the end of the request, or -1 to decline.
 */
function reducedRequest(b: Buffer, i: number, out: string[]): number {
  i = wsAt(b, i + 1);
  if (b[i] === C.RBrace) {
    out.push('{}');
    return i + 1;
  }
  out.push('{');
  for (;;) {
    const keyStart = i;
    i = memberValue(b, i, false);
    if (i < 0) return -1;
    const keyEnd = memberKeyEnd;
    const c = b[i];
    let end: number;
    if (bytesEqual(b, keyStart + 1, keyEnd, 'model')) {
      end = keptValueEnd(b, i, 2);
      if (end < 0) return -1;
      out.push((b as SliceBuffer).utf8Slice(keyStart, end));
    } else if (c === C.Quote || c === C.LBrace || c === C.LBracket) {
      end = c === C.Quote ? closingQuote(b, i + 1) + 1 : skippedContainerEnd(b, i, 2);
      if (end === 0) return -1;
      if (end < 0) return -1;
      out.push((b as SliceBuffer).utf8Slice(keyStart, keyEnd + 1), ':0');
    } else {
      // A scalar: handed to JSON.parse as is (validated there, as the lossless parser validates it), unless it
      // is a number that may overflow a double (JSON.parse reads Infinity, orjson refuses it).
      end = i;
      while (end < b.length && SCALAR_END[b[end]] === 0) end++;
      if (end === i || mayOverflow(b, i, end)) return -1;
      out.push((b as SliceBuffer).latin1Slice(keyStart, end));
    }
    i = nextMember(b, end);
    if (i < 0) return -1;
    out.push(objectClosed ? '}' : ',');
    if (objectClosed) return i;
  }
}

/** Whether the number token in [start, end) may overflow a double: a 3-digit exponent, or 300 digits. */
function mayOverflow(b: Buffer, start: number, end: number): boolean {
  if (end - start >= 300) return true;
  for (let k = start; k < end; k++) if (b[k] === C.LowerE || b[k] === C.UpperE) return end - k > 3;
  return false;
}

/** Where the first member of the top-level object `b` starts; -1 when `b` is not an object with members. */
function firstMember(b: Buffer): number {
  let i = wsAt(b, 0);
  if (b[i] !== C.LBrace) return -1;
  i = wsAt(b, i + 1);
  return b[i] === C.RBrace ? -1 : i;
}

/** Set by memberValue: the index of the closing quote of the member's key. */
let memberKeyEnd = 0;

/**
 * The start of the value of the object member whose key opens at `i` (a plain key: no escape, no control byte;
 * `noIndexKey`: not starting with a digit either), past its colon; -1 to decline.
 */
function memberValue(b: Buffer, i: number, noIndexKey: boolean): number {
  if (b[i] !== C.Quote) return -1;
  const keyEnd = plainKeyEnd(b, i);
  if (keyEnd < 0) return -1;
  if (noIndexKey && b[i + 1] >= C.Zero && b[i + 1] <= C.Nine) return -1;
  const colon = wsAt(b, keyEnd + 1);
  if (b[colon] !== C.Colon) return -1;
  memberKeyEnd = keyEnd;
  return wsAt(b, colon + 1);
}

/** Set by nextMember: the member was the object's last (a closing brace, not a comma, followed it). */
let objectClosed = false;

/** After a member's value at `i`: past the comma to the next member, or past the closing brace (`objectClosed`); -1 otherwise. */
function nextMember(b: Buffer, i: number): number {
  i = wsAt(b, i);
  const c = b[i];
  objectClosed = c === C.RBrace;
  if (c === C.Comma) return wsAt(b, i + 1);
  return objectClosed ? i + 1 : -1;
}

const ESCAPABLE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPABLE[c.charCodeAt(0)] = 1;
const isHex = (c: number): boolean => (c >= C.Zero && c <= C.Nine) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

/**
 * The end of the string at `i` if the lossless parser reads it without error and without a surrogate escape
 * (no control byte, every escape valid), else -1. Its value is not needed: only that it is a string.
 */
function checkedStringEnd(b: Buffer, i: number): number {
  const n = b.length;
  for (let j = i + 1; j < n; ) {
    const c = b[j];
    if (c === C.Quote) return j + 1;
    if (c < 0x20) return -1;
    if (c !== C.Backslash) {
      j++;
      continue;
    }
    const e = b[j + 1];
    if (ESCAPABLE[e] === 1) {
      j += 2;
      continue;
    }
    if (e !== 117 || !isHex(b[j + 2]) || !isHex(b[j + 3]) || !isHex(b[j + 4]) || !isHex(b[j + 5])) return -1;
    if ((b[j + 2] === 100 || b[j + 2] === 68) && isHex8toF(b[j + 3])) return -1;
    j += 6;
  }
  return -1;
}

/** See the section comment: scanStrict(b, { request: ['model'] }) or null. `b` must be valid UTF-8. */
export function scanExchangeFast(b: Buffer): FastExchangeScan | null {
  const n = b.length;
  let i = firstMember(b);
  if (i < 0) return null;
  const out: string[] = [];
  let copied = 0; // bytes [0, copied) are already in `out`
  let request: ValueSpan | null = null;
  let response: ValueSpan | null = null;
  let reducedReq = false;
  for (;;) {
    const keyStart = i;
    i = memberValue(b, i, true);
    if (i < 0) return null;
    const keyEnd = memberKeyEnd;
    const start = i;
    const isRequest = bytesEqual(b, keyStart + 1, keyEnd, 'request');
    if (isRequest) {
      if (request) return null;
      if (b[i] === C.LBrace) {
        if (start > copied) out.push((b as SliceBuffer).utf8Slice(copied, start));
        i = reducedRequest(b, i, out);
        if (i < 0) return null;
        copied = i;
        reducedReq = true;
      } else {
        i = keptValueEnd(b, i, 1);
        if (i < 0) return null;
      }
      request = { start, end: i };
    } else if (b[i] === C.Quote && (bytesEqual(b, keyStart + 1, keyEnd, 'response_raw') || bytesEqual(b, keyStart + 1, keyEnd, 'request_raw'))) {
      // The raw bodies (payloads, only their being strings is derived): checked, handed to JSON.parse as "".
      i = checkedStringEnd(b, i);
      if (i < 0) return null;
      if (start > copied) out.push((b as SliceBuffer).utf8Slice(copied, start));
      out.push('""');
      copied = i;
    } else {
      i = keptValueEnd(b, i, 1);
      if (i < 0) return null;
      if (bytesEqual(b, keyStart + 1, keyEnd, 'response')) response = { start, end: i };
    }
    i = nextMember(b, i);
    if (i < 0) return null;
    if (objectClosed) break;
  }
  if (wsAt(b, i) !== n) return null;
  if (copied < n) out.push((b as SliceBuffer).utf8Slice(copied, n));
  const text = out.length === 1 ? out[0] : out.join('');
  // Any \u escape in a kept part: declined. It may be a lone surrogate (an error in orjson mode only) or
  // spell a key the walk compares bytewise ("usag\u0065", "\u0030").
  if (text.indexOf('\\u') >= 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const obj = value as JsonObject;
  if (reducedReq) {
    const req = obj.request as JsonObject;
    const shallow: JsonObject = {};
    if (Object.prototype.hasOwnProperty.call(req, 'model')) shallow.model = req.model;
    obj.request = shallow;
  }
  return { value: obj, request, response };
}

// ---------------------------------------------------------------------------------------------------------
// The fast shallow scan of a rollout line (index ingest)
//
// `scanStrict(line, shallow, 'python')` for the objects of a rollouts file, as scanExchangeFast is for capture
// lines: one structural pass, the skipped values of the shallow objects left out of the text, one JSON.parse of
// the rest. Where Python's json and JSON.parse could differ for what a rollout line's reader takes from the value
// (lib/rollouts/rollout-line.ts), it declines (returns null) and the caller runs scanStrict:
//   - NaN, Infinity and any invalid token (JSON.parse throws); an integer of 16 or more digits, or `-0`, kept;
//   - a float with an integral or non-finite value (a JsonFloat losslessly, a plain number here) where the reader
//     tells them apart: under a top-level `_ng_*` key (rollout indices, ids), in `ng_model_call_capture` except its
//     `metrics` (read as numbers either way), and in a kept `usage` (token counts: a float is not one); elsewhere
//     (`reward`, task fields) both read the same;
//   - an array-index-like key in a kept part, a key with an escape or a control character at the top level or in a
//     shallow object, a second `ng_model_call_capture`, nesting deeper than FAST_DEPTH, anything not an object.
// Skipped scalars are collected and validated by JSON.parse; skipped strings and containers are walked
// structurally, as scanStrict's skipValue does; the counted array's own elements and delimiters are checked as
// countArrayObjects checks them (countedArrayEnd). `\u` escapes are kept as they are: in python mode a lone surrogate
// is a character of the string, as it is for JSON.parse. Invalid UTF-8 must be excluded by the caller (isUtf8).

const CAPTURE_KEY = 'ng_model_call_capture';

/** The index's ShallowScanner (lib/capture/json-parse.ts): natively where the addon is built (native.ts), else below. */
export function scanShallowFast(b: Buffer, shallow: Record<string, readonly string[]>, count: string | null): FastShallowScan | null {
  // With the addon its answer stands, a decline included: the two walks decline alike (rollout-line.property.test.ts).
  const answer = scanShallowFastNative(b, shallow, count);
  return answer !== undefined ? answer : scanShallowFastJs(b, shallow, count);
}

/** scanShallowFast in JavaScript. Exported for the equivalence tests. */
export function scanShallowFastJs(b: Buffer, shallow: Record<string, readonly string[]>, count: string | null): FastShallowScan | null {
  const n = b.length;
  let i = firstMember(b);
  if (i < 0) return null;
  const out: string[] = [];
  const scalars: string[] = [];
  let copied = 0;
  let counted: number | null = null;
  let sawCapture = false;
  const dot = count ? count.indexOf('.') : -1;
  const countParent = count && dot > 0 ? count.slice(0, dot) : null;
  const countKey = count && dot > 0 ? count.slice(dot + 1) : null;
  for (;;) {
    const keyStart = i;
    i = memberValue(b, i, true);
    if (i < 0) return null;
    const key = (b as SliceBuffer).utf8Slice(keyStart + 1, memberKeyEnd);
    const start = i;
    const isCapture = key === CAPTURE_KEY;
    if (isCapture) {
      if (sawCapture) return null;
      sawCapture = true;
    }
    const keep = Object.prototype.hasOwnProperty.call(shallow, key) ? shallow[key] : undefined;
    if (keep && b[i] === C.LBrace) {
      if (start > copied) out.push((b as SliceBuffer).utf8Slice(copied, start));
      const counting = key === countParent ? countKey : null;
      shallowCounted = null;
      i = reducedShallow(b, i, keep, counting, isCapture, out, scalars);
      if (i < 0) return null;
      if (counting) counted = shallowCounted;
      copied = i;
    } else {
      keptIntegralFloat = false;
      i = keptValueEnd(b, i, 1, true);
      if (i < 0) return null;
      if (keptIntegralFloat && (isCapture || key.startsWith('_ng_'))) return null;
    }
    i = nextMember(b, i);
    if (i < 0) return null;
    if (objectClosed) break;
  }
  if (wsAt(b, i) !== n) return null;
  if (copied < n) out.push((b as SliceBuffer).utf8Slice(copied, n));
  let value: unknown;
  try {
    if (scalars.length) JSON.parse(`[${scalars.join(',')}]`);
    value = JSON.parse(out.length === 1 ? out[0] : out.join(''));
  } catch {
    return null;
  }
  return { value: value as JsonObject, counted };
}

/** Set by reducedShallow: the objects in the array at its `counting` key (null: no such key). */
let shallowCounted: number | null = null;

/**
 * The text JSON.parse reads for a shallow object at `i`: the `keep` entries as they are, the others left out
 * (scalars collected into `scalars` for validation). Returns the end of the object, or -1 to decline.
 */
function reducedShallow(
  b: Buffer, i: number, keep: readonly string[], counting: string | null, isCapture: boolean, out: string[], scalars: string[],
): number {
  i = wsAt(b, i + 1);
  out.push('{');
  if (b[i] === C.RBrace) {
    out.push('}');
    return i + 1;
  }
  let first = true;
  for (;;) {
    const keyStart = i;
    i = memberValue(b, i, false);
    if (i < 0) return -1;
    const key = (b as SliceBuffer).utf8Slice(keyStart + 1, memberKeyEnd);
    const c = b[i];
    let end: number;
    if (keep.includes(key)) {
      keptIntegralFloat = false;
      end = keptValueEnd(b, i, 2, isCapture || key === 'usage');
      if (end < 0) return -1;
      if (keptIntegralFloat && key !== 'metrics') return -1;
      if (!first) out.push(',');
      out.push((b as SliceBuffer).utf8Slice(keyStart, end));
      first = false;
    } else if (c === C.Quote) {
      end = closingQuote(b, i + 1) + 1;
      if (end === 0) return -1;
      if (key === counting) shallowCounted = 0;
    } else if (key === counting && c === C.LBracket) {
      end = countedArrayEnd(b, i, 2);
      if (end < 0) return -1;
      shallowCounted = countedObjects;
    } else if (c === C.LBrace || c === C.LBracket) {
      end = skippedContainerEnd(b, i, 2);
      if (end < 0) return -1;
      if (key === counting) shallowCounted = 0;
    } else {
      end = i;
      while (end < b.length && SCALAR_END[b[end]] === 0) end++;
      if (end === i) return -1;
      scalars.push((b as SliceBuffer).latin1Slice(i, end));
      if (key === counting) shallowCounted = 0;
    }
    i = nextMember(b, end);
    if (i < 0) return -1;
    if (objectClosed) {
      out.push('}');
      return i;
    }
  }
}
