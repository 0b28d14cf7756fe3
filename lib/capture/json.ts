// Lossless JSON for the capture format.
//
// NeMo Gym parses payloads with Python's `json` (permissive: NaN/Infinity, any-size ints, BOM and UTF-16/32
// detection) and writes lines with orjson (compact, raw non-ASCII, `1.0` stays `1.0`). Readers parse lines
// with orjson (strict). JavaScript's JSON.parse/stringify lose the int/float distinction, so values here are:
//   - a JS `number` that is an integer      -> a Python int
//   - a JS `number` that is not an integer  -> a Python float
//   - a `JsonFloat`                         -> a Python float whose value is integral, -0.0, NaN or ±Infinity
//   - a `bigint`                            -> a Python int outside the safe-integer range
// Objects are plain objects created without prototype pollution (`__proto__` is an own key). When an object
// holds array-index-like keys (which JS would enumerate first), its insertion order is kept under KEY_ORDER.
import { isUtf8 } from 'node:buffer';
import { nativeAddon } from '../util/native-addon';

export class JsonFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
}

export type JsonValue = null | boolean | number | bigint | string | JsonFloat | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export const KEY_ORDER = Symbol.for('callscope.json.keyOrder');

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at byte ${position}`);
    this.name = 'JsonSyntaxError';
  }
}

export class JsonSerializeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSerializeError';
  }
}

export type ParseMode = 'python' | 'orjson';

export interface ValueSpan {
  start: number;
  end: number;
}

export interface ScanResult {
  value: JsonValue;
  /**
   * Byte spans of the top-level values, relative to the start of the scanned bytes; values skipped inside a
   * shallow object are listed as `parent.key`.
   */
  spans: Record<string, ValueSpan>;
}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;
// Python's json recursion guard and orjson's parse depth; both refuse deeper documents.
const PARSE_DEPTH_LIMIT = { python: 990, orjson: 1024 } as const;
// orjson.dumps raises "Recursion limit reached" past this many nested containers.
const SERIALIZE_DEPTH_LIMIT = 255;

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

function isArrayIndexKey(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c < C.Zero || c > C.Nine) return false;
  if (key.length > 1 && c === C.Zero) return false;
  for (let i = 1; i < key.length; i++) {
    const d = key.charCodeAt(i);
    if (d < C.Zero || d > C.Nine) return false;
  }
  return key.length < 10 || Number(key) < 4294967295;
}

/** Sets a key on an object the way a Python dict assignment would (order of first insertion kept). */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  const c = key.charCodeAt(0);
  // Fast path, nearly every key: not index-like, not __proto__, no recorded order to maintain.
  if (!(c >= C.Zero && c <= C.Nine) && c !== 95 && (obj as Record<symbol, unknown>)[KEY_ORDER] === undefined) {
    obj[key] = value;
    return;
  }
  const ordered = (obj as Record<symbol, string[] | undefined>)[KEY_ORDER];
  const isNew = !Object.prototype.hasOwnProperty.call(obj, key);
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
  if (!isNew) return;
  if (ordered) ordered.push(key);
  else if (isArrayIndexKey(key)) {
    const keys = Object.keys(obj).filter((k) => k !== key);
    // Object.keys already lists index keys first, so rebuild from the previous non-index order: before this
    // insertion no index key existed, so the previous order is exactly Object.keys minus the new key.
    keys.push(key);
    Object.defineProperty(obj, KEY_ORDER, { value: keys, enumerable: false, writable: true });
  }
}

/** The keys of an object in insertion order (Python dict order). */
export function keysOf(obj: JsonObject): string[] {
  const ordered = (obj as Record<symbol, string[] | undefined>)[KEY_ORDER];
  if (!ordered) return Object.keys(obj);
  const present = ordered.filter((k) => Object.prototype.hasOwnProperty.call(obj, k));
  if (present.length === Object.keys(obj).length) return present;
  const seen = new Set(present);
  for (const k of Object.keys(obj)) if (!seen.has(k)) present.push(k);
  return present;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat);
}

// ---------------------------------------------------------------------------------------------------------
// Parsing

class Parser {
  private i = 0;
  private depth = 0;
  private readonly depthLimit: number;

  constructor(
    private readonly b: Uint8Array,
    private readonly mode: ParseMode,
  ) {
    this.depthLimit = PARSE_DEPTH_LIMIT[mode];
  }

  parseDocument(): JsonValue {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.i !== this.b.length) this.fail('Extra data');
    return v;
  }

  /**
   * A top-level object whose values are parsed, except those under `shallow` keys: objects there are read one
   * level deep (only the listed keys parsed, other values skipped), so a huge request is never materialized.
   * Records each top-level value's byte span. Skipped values are checked structurally (brackets, strings).
   */
  scanDocument(shallow: Record<string, readonly string[]>): ScanResult {
    const b = this.b;
    const spans: Record<string, ValueSpan> = {};
    this.ws();
    if (b[this.i] !== C.LBrace) return { value: this.parseDocument(), spans };
    const obj: JsonObject = {};
    this.enter();
    this.i++;
    this.ws();
    if (b[this.i] === C.RBrace) this.i++;
    else
      for (;;) {
        if (b[this.i] !== C.Quote) this.fail('Expecting property name enclosed in double quotes');
        const key = this.string();
        this.ws();
        if (b[this.i] !== C.Colon) this.fail("Expecting ':' delimiter");
        this.i++;
        this.ws();
        const start = this.i;
        const keep = Object.prototype.hasOwnProperty.call(shallow, key) ? shallow[key] : undefined;
        setKey(obj, key, keep && b[this.i] === C.LBrace ? this.shallowObject(keep, key, spans) : this.value());
        spans[key] = { start, end: this.i };
        this.ws();
        const c = b[this.i];
        if (c === C.Comma) {
          this.i++;
          this.ws();
          continue;
        }
        if (c === C.RBrace) {
          this.i++;
          break;
        }
        this.fail("Expecting ',' delimiter");
      }
    this.depth--;
    this.ws();
    if (this.i !== b.length) this.fail('Extra data');
    return { value: obj, spans };
  }

  private shallowObject(keep: readonly string[], parent: string, spans: Record<string, ValueSpan>): JsonObject {
    const b = this.b;
    const obj: JsonObject = {};
    this.enter();
    this.i++;
    this.ws();
    if (b[this.i] === C.RBrace) {
      this.i++;
      this.depth--;
      return obj;
    }
    for (;;) {
      if (b[this.i] !== C.Quote) this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.ws();
      if (b[this.i] !== C.Colon) this.fail("Expecting ':' delimiter");
      this.i++;
      this.ws();
      if (keep.includes(key)) setKey(obj, key, this.value());
      else {
        const start = this.i;
        this.skipValue();
        spans[nestedSpanName(parent, key)] = { start, end: this.i };
      }
      this.ws();
      const c = b[this.i];
      if (c === C.Comma) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === C.RBrace) {
        this.i++;
        this.depth--;
        return obj;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  /** The number of elements of the array at the cursor that are objects (elements checked structurally). */
  countArrayObjects(): number {
    const b = this.b;
    if (b[this.i] !== C.LBracket) return 0;
    this.enter();
    this.i++;
    this.ws();
    let n = 0;
    if (b[this.i] === C.RBracket) return 0;
    for (;;) {
      if (b[this.i] === C.LBrace) n++;
      this.skipValue();
      this.ws();
      const c = b[this.i];
      if (c === C.Comma) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === C.RBracket) return n;
      this.fail("Expecting ',' delimiter");
    }
  }

  private skipString(): void {
    const j = skipStringAt(this.b as Buffer, this.i);
    if (j < 0) this.fail('Unterminated string');
    this.i = j;
  }

  /** Skips a value checking only its structure (strings closed, brackets matched, nesting depth). */
  private skipValue(): void {
    const b = this.b as Buffer;
    let i = this.i;
    const c = b[i];
    if (c === C.Quote) return this.skipString();
    if (c !== C.LBrace && c !== C.LBracket) {
      this.value();
      return;
    }
    const n = b.length;
    const room = this.depthLimit - this.depth;
    const closers = room <= CLOSERS.length ? CLOSERS : new Uint8Array(room);
    let depth = 0;
    while (i < n) {
      const d = b[i];
      if (d === C.Quote) {
        const end = skipStringAt(b, i);
        if (end < 0) {
          this.i = i;
          this.fail('Unterminated string');
        }
        i = end;
        continue;
      }
      if (d === C.LBrace || d === C.LBracket) {
        if (depth >= room) {
          this.i = i;
          this.fail('Maximum nesting depth exceeded');
        }
        closers[depth++] = d + 2; // '{' + 2 = '}', '[' + 2 = ']'
      } else if (d === C.RBrace || d === C.RBracket) {
        if (depth === 0 || closers[--depth] !== d) {
          this.i = i;
          this.fail('Mismatched bracket');
        }
        if (depth === 0) {
          this.i = i + 1;
          return;
        }
      } else if (TOKEN_BYTE[d] === 0) {
        this.i = i;
        this.fail('Unexpected character');
      }
      i++;
    }
    this.i = i;
    this.fail('Unterminated value');
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(message, this.i);
  }

  private ws(): void {
    const b = this.b;
    let i = this.i;
    while (i < b.length) {
      const c = b[i];
      if (c === C.Space || c === C.Lf || c === C.Cr || c === C.Tab) i++;
      else break;
    }
    this.i = i;
  }

  private value(): JsonValue {
    const b = this.b;
    if (this.i >= b.length) this.fail('Expecting value');
    const c = b[this.i];
    switch (c) {
      case C.LBrace:
        return this.object();
      case C.LBracket:
        return this.array();
      case C.Quote:
        return this.string();
      case 116: // t
        return this.literal('true', true);
      case 102: // f
        return this.literal('false', false);
      case 110: // n
        return this.literal('null', null);
      case 78: // N
        if (this.mode === 'python') return this.literal('NaN', new JsonFloat(NaN));
        return this.fail('Expecting value');
      case 73: // I
        if (this.mode === 'python') return this.literal('Infinity', new JsonFloat(Infinity));
        return this.fail('Expecting value');
      default:
        if (c === C.Minus || (c >= C.Zero && c <= C.Nine)) return this.number();
        return this.fail('Expecting value');
    }
  }

  private literal<T extends JsonValue>(word: string, v: T): T {
    const b = this.b;
    for (let k = 0; k < word.length; k++) {
      if (b[this.i + k] !== word.charCodeAt(k)) this.fail('Expecting value');
    }
    this.i += word.length;
    return v;
  }

  private enter(): void {
    if (++this.depth > this.depthLimit) this.fail('Maximum nesting depth exceeded');
  }

  private object(): JsonObject {
    this.enter();
    const b = this.b;
    const obj: JsonObject = {};
    this.i++;
    this.ws();
    if (b[this.i] === C.RBrace) {
      this.i++;
      this.depth--;
      return obj;
    }
    for (;;) {
      if (b[this.i] !== C.Quote) this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.ws();
      if (b[this.i] !== C.Colon) this.fail("Expecting ':' delimiter");
      this.i++;
      this.ws();
      setKey(obj, key, this.value());
      this.ws();
      const c = b[this.i];
      if (c === C.Comma) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === C.RBrace) {
        this.i++;
        this.depth--;
        return obj;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  private array(): JsonValue[] {
    this.enter();
    const b = this.b;
    const arr: JsonValue[] = [];
    this.i++;
    this.ws();
    if (b[this.i] === C.RBracket) {
      this.i++;
      this.depth--;
      return arr;
    }
    for (;;) {
      arr.push(this.value());
      this.ws();
      const c = b[this.i];
      if (c === C.Comma) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === C.RBracket) {
        this.i++;
        this.depth--;
        return arr;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  private string(): string {
    const b = this.b;
    const start = ++this.i;
    let i = start;
    // Fast path: no escapes.
    while (i < b.length) {
      const c = b[i];
      if (c === C.Quote) {
        this.i = i + 1;
        return decodeUtf8(b, start, i);
      }
      if (c === C.Backslash) break;
      if (c < 0x20) {
        this.i = i;
        this.fail('Invalid control character');
      }
      i++;
    }
    if (i >= b.length) {
      this.i = start - 1;
      this.fail('Unterminated string');
    }
    // Slow path: find the closing quote, then let the engine unescape (the escape grammar is identical).
    let j = i;
    while (j < b.length) {
      const c = b[j];
      if (c === C.Backslash) {
        j += 2;
        continue;
      }
      if (c === C.Quote) break;
      if (c < 0x20) {
        this.i = j;
        this.fail('Invalid control character');
      }
      j++;
    }
    if (j >= b.length) {
      this.i = start - 1;
      this.fail('Unterminated string');
    }
    const raw = decodeUtf8(b, start - 1, j + 1);
    let s: string;
    try {
      s = JSON.parse(raw) as string;
    } catch {
      this.i = start;
      this.fail('Invalid \\escape');
    }
    if (this.mode === 'orjson' && !s.isWellFormed()) {
      this.i = start;
      this.fail('Invalid surrogate escape');
    }
    this.i = j + 1;
    return s;
  }

  private number(): JsonValue {
    const b = this.b;
    const start = this.i;
    let i = start;
    if (b[i] === C.Minus) {
      i++;
      if (this.mode === 'python' && b[i] === 73) {
        this.i = i;
        this.literal('Infinity', null);
        return new JsonFloat(-Infinity);
      }
    }
    if (b[i] === C.Zero) i++;
    else if (b[i] >= 49 && b[i] <= C.Nine) while (b[i] >= C.Zero && b[i] <= C.Nine) i++;
    else {
      this.i = start;
      this.fail('Expecting value');
    }
    let isFloat = false;
    if (b[i] === C.Dot && b[i + 1] >= C.Zero && b[i + 1] <= C.Nine) {
      isFloat = true;
      i += 2;
      while (b[i] >= C.Zero && b[i] <= C.Nine) i++;
    }
    if (b[i] === C.LowerE || b[i] === C.UpperE) {
      let k = i + 1;
      if (b[k] === C.Plus || b[k] === C.Minus) k++;
      if (b[k] >= C.Zero && b[k] <= C.Nine) {
        isFloat = true;
        i = k;
        while (b[i] >= C.Zero && b[i] <= C.Nine) i++;
      }
    }
    this.i = i;
    const text = asciiSlice(b, start, i);
    if (isFloat) return this.float(text, start);
    if (i - start < 16) {
      const n = Number(text);
      return n === 0 ? 0 : n; // Python int("-0") is 0
    }
    const big = BigInt(text);
    if (big >= -9007199254740991n && big <= 9007199254740991n) return Number(big);
    if (this.mode === 'orjson' && (big > U64_MAX || big < I64_MIN)) return this.float(text, start);
    return big;
  }

  /** A float token's value. orjson refuses one that overflows a double; Python's json reads it as ±inf. */
  private float(text: string, start: number): JsonValue {
    const n = Number(text);
    if (this.mode === 'orjson' && !Number.isFinite(n)) {
      this.i = start;
      this.fail('number is infinity when parsed as double');
    }
    return pyFloat(n);
  }
}


// The `parent.key` names of nested spans, kept so that each line reuses the same (hashed) strings.
const nestedNames = new Map<string, Map<string, string>>();
function nestedSpanName(parent: string, key: string): string {
  let names = nestedNames.get(parent);
  if (!names) nestedNames.set(parent, (names = new Map()));
  let name = names.get(key);
  if (name === undefined) {
    name = `${parent}.${key}`;
    if (names.size < 4096) names.set(key, name);
  }
  return name;
}

// Closing brackets of the containers open in a skipped value (a value never nests deeper than the limit).
const CLOSERS = new Uint8Array(1100);

// 1 for the bytes a JSON text can hold outside its strings: whitespace, punctuation, numbers and the letters of
// true, false, null (and Python's NaN, Infinity). A skipped value is walked by its strings and brackets only; a
// byte outside this set between them (a NUL, a bare word from a torn line) still makes the line unreadable.
const TOKEN_BYTE = new Uint8Array(256);
for (const c of ' \t\n\r,:[]{}+-.0123456789eEtrufalsnNIiy') TOKEN_BYTE[c.charCodeAt(0)] = 1;
// The fast skip's byte classes: 0 not allowed outside a string, then a plain token byte, a quote, an opening and a
// closing bracket.
const SKIP_TOKEN = 1;
const SKIP_QUOTE = 2;
const SKIP_OPEN = 3;
const SKIP_CLOSE = 4;
const SKIP_CLASS = new Uint8Array(256);
for (let c = 0; c < 256; c++) SKIP_CLASS[c] = TOKEN_BYTE[c] ? SKIP_TOKEN : 0;
SKIP_CLASS[C.Quote] = SKIP_QUOTE;
SKIP_CLASS[C.LBrace] = SKIP_CLASS[C.LBracket] = SKIP_OPEN;
SKIP_CLASS[C.RBrace] = SKIP_CLASS[C.RBracket] = SKIP_CLOSE;

/** The index just past the string starting at `i` (its opening quote), or -1 when it is unterminated. */
function skipStringAt(b: Buffer, i: number): number {
  const q = closingQuote(b, i + 1);
  return q < 0 ? -1 : q + 1;
}

function asciiSlice(b: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let k = start; k < end; k++) s += String.fromCharCode(b[k]);
  return s;
}

const utf8 = new TextDecoder('utf-8');

function decodeUtf8(b: Uint8Array, start: number, end: number): string {
  if (Buffer.isBuffer(b)) return (b as SliceBuffer).utf8Slice(start, end); // toString('utf8', start, end) without its argument checks
  return utf8.decode(b.subarray(start, end));
}

/**
 * orjson.loads: strict JSON on UTF-8 bytes (no NaN/Infinity, no BOM, invalid UTF-8 rejected).
 * Throws JsonSyntaxError.
 */
export function parseStrict(input: Uint8Array | string): JsonValue {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  if (!isUtf8(bytes)) throw new JsonSyntaxError('Invalid UTF-8', 0);
  return new Parser(bytes, 'orjson').parseDocument();
}

/**
 * orjson.loads of one line, except that the values under `shallow` keys are read one level deep (see
 * Parser.scanDocument). Used by the index, which must not materialize request bodies.
 */
export function scanStrict(input: Buffer, shallow: Record<string, readonly string[]>, mode: ParseMode = 'orjson'): ScanResult {
  if (!isUtf8(input)) throw new JsonSyntaxError('Invalid UTF-8', 0);
  return new Parser(input, mode).scanDocument(shallow);
}

/** How many elements of the array spanning `input` are objects (see `scanStrict`'s skipped spans). */
export function countArrayObjects(input: Uint8Array, mode: ParseMode = 'orjson'): number {
  return new Parser(input, mode).countArrayObjects();
}

/**
 * Python's `json.loads` applied to bytes: encoding detection (UTF-8 with or without BOM, UTF-16/32),
 * NaN/Infinity literals, integers of any size, last duplicate key wins. Throws JsonSyntaxError.
 */
export function parsePython(input: Uint8Array | string): JsonValue {
  let bytes: Uint8Array;
  if (typeof input === 'string') {
    if (input.charCodeAt(0) === 0xfeff) throw new JsonSyntaxError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    bytes = Buffer.from(input, 'utf8');
  } else {
    bytes = decodeForPython(input);
  }
  return new Parser(bytes, 'python').parseDocument();
}

function decodeForPython(b: Uint8Array): Uint8Array {
  const encoding = detectEncoding(b);
  if (encoding === 'utf-8' || encoding === 'utf-8-sig') {
    const body = encoding === 'utf-8-sig' ? b.subarray(3) : b;
    if (!isUtf8(body)) throw new JsonSyntaxError('Invalid UTF-8', 0);
    return body;
  }
  let text: string;
  try {
    text = decodeWide(b, encoding);
  } catch {
    throw new JsonSyntaxError(`Invalid ${encoding}`, 0);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return Buffer.from(text, 'utf8');
}

type PyEncoding = 'utf-8' | 'utf-8-sig' | 'utf-16' | 'utf-16-le' | 'utf-16-be' | 'utf-32' | 'utf-32-le' | 'utf-32-be';

/** json.detect_encoding from CPython. */
export function detectEncoding(b: Uint8Array): PyEncoding {
  const startsWith = (...sig: number[]) => sig.every((x, k) => b[k] === x);
  if (startsWith(0x00, 0x00, 0xfe, 0xff) || startsWith(0xff, 0xfe, 0x00, 0x00)) return 'utf-32';
  if (startsWith(0xfe, 0xff) || startsWith(0xff, 0xfe)) return 'utf-16';
  if (startsWith(0xef, 0xbb, 0xbf)) return 'utf-8-sig';
  if (b.length >= 4) {
    if (!b[0]) return b[1] ? 'utf-16-be' : 'utf-32-be';
    if (!b[1]) return b[2] || b[3] ? 'utf-16-le' : 'utf-32-le';
  } else if (b.length === 2) {
    if (!b[0]) return 'utf-16-be';
    if (!b[1]) return 'utf-16-le';
  }
  return 'utf-8';
}

function decodeWide(b: Uint8Array, encoding: PyEncoding): string {
  if (encoding === 'utf-16' || encoding === 'utf-16-le' || encoding === 'utf-16-be') {
    let le = encoding !== 'utf-16-be';
    let body = b;
    if (encoding === 'utf-16') {
      le = b[0] === 0xff;
      body = b.subarray(2);
    }
    if (body.length % 2) throw new Error('truncated');
    return new TextDecoder(le ? 'utf-16le' : 'utf-16be', { fatal: true }).decode(body);
  }
  let le = encoding === 'utf-32-le';
  let body = b;
  if (encoding === 'utf-32') {
    le = b[0] === 0xff;
    body = b.subarray(4);
  }
  if (body.length % 4) throw new Error('truncated');
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let s = '';
  for (let k = 0; k < body.length; k += 4) {
    const cp = view.getUint32(k, le);
    if (cp > 0x10ffff) throw new Error('code point out of range');
    s += String.fromCodePoint(cp);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------------------
// Serialization (orjson.dumps)

/** orjson's float formatting: shortest round-trip digits laid out as the ryu crate's `format64` does. */
export function formatFloat(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const exp = n.toExponential(); // shortest round-trip digits, e.g. "-1.2345e+16"
  const negative = exp.charCodeAt(0) === C.Minus;
  const ePos = exp.indexOf('e');
  const mantissa = exp.slice(negative ? 1 : 0, ePos);
  const digits = mantissa.length > 1 ? mantissa[0] + mantissa.slice(2) : mantissa;
  const length = digits.length;
  const kk = Number(exp.slice(ePos + 1)) + 1; // decimal point position: 10^(kk-1) <= |n| < 10^kk
  const k = kk - length;
  let out: string;
  if (k >= 0 && kk <= 16) out = digits + '0'.repeat(k) + '.0';
  else if (kk > 0 && kk <= 16) out = digits.slice(0, kk) + '.' + digits.slice(kk);
  else if (kk > -5 && kk <= 0) out = '0.' + '0'.repeat(-kk) + digits;
  else if (length === 1) out = digits + 'e' + (kk - 1);
  else out = digits[0] + '.' + digits.slice(1) + 'e' + (kk - 1);
  return negative ? '-' + out : out;
}

function formatInt(n: number | bigint): string {
  if (typeof n === 'number' && Number.isSafeInteger(n)) return String(n);
  const big = BigInt(n);
  if (big > U64_MAX || big < I64_MIN) throw new JsonSerializeError('Integer exceeds 64-bit range');
  return big.toString();
}

function writeValue(v: JsonValue | undefined, out: string[], depth: number): void {
  if (v === null || v === undefined) {
    out.push('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      if (!v.isWellFormed()) throw new JsonSerializeError('str is not valid UTF-8: surrogates not allowed');
      out.push(JSON.stringify(v));
      return;
    case 'number':
      out.push(Number.isInteger(v) && !Object.is(v, -0) ? formatInt(v) : formatFloat(v));
      return;
    case 'bigint':
      out.push(formatInt(v));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
  }
  if (v instanceof JsonFloat) {
    out.push(formatFloat(v.value));
    return;
  }
  if (depth >= SERIALIZE_DEPTH_LIMIT) throw new JsonSerializeError('Recursion limit reached');
  if (Array.isArray(v)) {
    out.push('[');
    for (let k = 0; k < v.length; k++) {
      if (k) out.push(',');
      writeValue(v[k], out, depth + 1);
    }
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const key of keysOf(v)) {
    const item = v[key];
    if (item === undefined) continue;
    if (!first) out.push(',');
    first = false;
    if (!key.isWellFormed()) throw new JsonSerializeError('str is not valid UTF-8: surrogates not allowed');
    out.push(JSON.stringify(key), ':');
    writeValue(item, out, depth + 1);
  }
  out.push('}');
}

/** orjson.dumps as text: compact, raw non-ASCII, NaN/Infinity as null. Throws JsonSerializeError. */
export function serialize(v: JsonValue): string {
  return serializeAtDepth(v, 0);
}

/** serialize() of a value that will sit `depth` containers deep in the document (the depth limit counts). */
export function serializeAtDepth(v: JsonValue, depth: number): string {
  const out: string[] = [];
  writeValue(v, out, depth);
  return out.join('');
}

/**
 * serialize(obj) as UTF-8 bytes, where the top-level values under the keys of `preserialized` are replaced by
 * the given bytes, which must already be their serialization (see canonical.ts). `suffix` is appended.
 */
export function serializeWithPreserialized(obj: JsonObject, preserialized: Readonly<Record<string, Uint8Array>>, suffix = ''): Buffer {
  const parts: Uint8Array[] = [];
  let out: string[] = ['{'];
  let first = true;
  for (const key of keysOf(obj)) {
    const item = obj[key];
    if (item === undefined) continue;
    if (!first) out.push(',');
    first = false;
    if (!key.isWellFormed()) throw new JsonSerializeError('str is not valid UTF-8: surrogates not allowed');
    out.push(JSON.stringify(key), ':');
    const bytes = Object.hasOwn(preserialized, key) ? preserialized[key] : undefined;
    if (bytes) {
      parts.push(Buffer.from(out.join(''), 'utf8'), bytes);
      out = [];
    } else writeValue(item, out, 1);
  }
  out.push('}', suffix);
  parts.push(Buffer.from(out.join(''), 'utf8'));
  return Buffer.concat(parts);
}

/** A Python float with the value of a JS number (whole values keep their `.0`). */
export function pyFloat(n: number): number | JsonFloat {
  return Number.isInteger(n) || !Number.isFinite(n) || Object.is(n, -0) ? new JsonFloat(n) : n;
}

/** The numeric value of an int or float, or null for anything else. */
export function numericValue(v: JsonValue | undefined): number | null {
  if (typeof v === 'number') return v;
  if (v instanceof JsonFloat) return v.value;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/** Python truthiness of a JSON value. */
export function truthy(v: JsonValue | undefined): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '' || v === 0n) return false;
  if (v instanceof JsonFloat) return v.value !== 0; // NaN is truthy in Python
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') {
    for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) return true; // without building the key list
    return false;
  }
  return true;
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

// Node's unchecked slice decoders (Buffer#toString without its argument handling).
interface SliceBuffer extends Buffer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

export interface FastExchangeScan {
  value: JsonObject;
  /** Spans of the last top-level `request` and `response` values, relative to the scanned bytes. */
  request: ValueSpan | null;
  response: ValueSpan | null;
}

const FAST_DEPTH = 512;
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

/**
 * The index of the unescaped quote closing a string whose content starts at `j`, or -1: a native search for
 * the quote, walked byte by byte instead once the string shows an escaped quote (escaped JSON is dense in them).
 */
function closingQuote(b: Buffer, j: number): number {
  const q = b.indexOf(C.Quote, j);
  if (q < 0) return -1;
  let k = q - 1;
  while (b[k] === C.Backslash) k--;
  if ((q - 1 - k) % 2 === 0) return q;
  const n = b.length;
  for (j = q + 1; j < n; ) {
    const c = b[j];
    if (c === C.Quote) return j;
    j += c === C.Backslash ? 2 : 1;
  }
  return -1;
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
 * it is built (the same walk in C++, held equal by tests/unit/capture/skip-native.property.test.ts), else below.
 */
export function skippedContainerEnd(b: Buffer, i: number, depth: number): number {
  const native = nativeAddon();
  return native ? native.skipContainer(b, i, depth) : skippedContainerEndJs(b, i, depth);
}

/** skippedContainerEnd in JavaScript. Exported for the equivalence tests. */
export function skippedContainerEndJs(b: Buffer, i: number, depth: number): number {
  const n = b.length;
  let level = 0;
  while (i < n) {
    const c = b[i];
    // One table lookup sorts the byte (SKIP_CLASS): most bytes between strings are plain token bytes.
    const k = SKIP_CLASS[c];
    if (k === SKIP_TOKEN) {
      i++;
      continue;
    }
    if (k === SKIP_QUOTE) {
      const q = closingQuote(b, i + 1);
      if (q < 0) return -1;
      i = q + 1;
      continue;
    }
    if (k === SKIP_OPEN) {
      if (depth + level >= FAST_DEPTH) return -1;
      fastClosers[++level] = c + 2;
    } else if (k === SKIP_CLOSE) {
      if (level === 0 || fastClosers[level] !== c) return -1;
      if (--level === 0) return i + 1;
    } else return -1; // a byte that cannot occur outside a JSON string
    i++;
  }
  return -1;
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
// (rollout-line.ts), it declines (returns null) and the caller runs scanStrict:
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

export interface FastShallowScan {
  value: JsonObject;
  /** Objects in the array at the `count` key ("parent.key"), as countArrayObjects counts them; null without one. */
  counted: number | null;
}

const CAPTURE_KEY = 'ng_model_call_capture';

export function scanShallowFast(b: Buffer, shallow: Record<string, readonly string[]>, count: string | null): FastShallowScan | null {
  // With the addon its answer stands, a decline included: the two walks decline alike (rollout-fast.property.test.ts).
  const answer = scanShallowFastNative(b, shallow, count);
  return answer !== undefined ? answer : scanShallowFastJs(b, shallow, count);
}

// The native port of scanShallowFastJs (native/scan.cc, struct Shallow): the same reduced text, written into a
// buffer of this thread's, then the same JSON.parse; it declines where the JavaScript walk does.
const shallowIds = new WeakMap<object, Map<string | null, number>>();
let shallowText = Buffer.alloc(0);
const shallowMeta = new Float64Array(1);

/** The native scan's answer; null when it declines, undefined without the addon. Exported for the equivalence tests. */
export function scanShallowFastNative(b: Buffer, shallow: Record<string, readonly string[]>, count: string | null): FastShallowScan | null | undefined {
  const native = nativeAddon();
  if (!native) return undefined;
  let ids = shallowIds.get(shallow);
  if (!ids) shallowIds.set(shallow, (ids = new Map()));
  let id = ids.get(count);
  if (id === undefined) {
    const spec = [count ?? '', ...Object.entries(shallow).map(([k, keep]) => `${k}\t${keep.join(',')}`)].join('\n');
    ids.set(count, (id = native.shallowConfig(spec)));
  }
  if (shallowText.length < b.length) shallowText = Buffer.allocUnsafe(Math.max(b.length, 2 * shallowText.length, 1 << 16));
  const len = native.scanShallow(b, id, shallowText, shallowMeta);
  if (len < 0) return null;
  let value: unknown;
  try {
    value = JSON.parse((shallowText as SliceBuffer).utf8Slice(0, len));
  } catch {
    return null;
  }
  return { value: value as JsonObject, counted: shallowMeta[0] < 0 ? null : shallowMeta[0] };
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

