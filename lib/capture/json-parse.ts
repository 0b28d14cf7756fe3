// Parsing lossless JSON (the values of json-value.ts): orjson.loads (strict), Python's json.loads (encoding
// detection, NaN/Infinity, integers of any size), and the shallow scan the readers of big lines use (scanStrict:
// some values read one level deep, the others only checked structurally, with their byte spans).
import { isUtf8 } from 'node:buffer';
import * as jsonSkip from './json-skip';
import * as jsonValue from './json-value';
import type { JsonObject, JsonValue } from './json-value';

// What the parser's loops use of other modules, bound to constants of this one: where imports compile to property
// reads (CommonJS, bundles without scope hoisting), reading them per byte and per member made parseStrict 9% and
// scanStrict 12-25% slower on the demo lines (as native ES modules, the way tsx loads the CLI, no difference).
const { closingQuote, TOKEN_BYTE } = jsonSkip;
const { I64_MIN, JsonFloat, pyFloat, setKey, U64_MAX } = jsonValue;

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at byte ${position}`);
    this.name = 'JsonSyntaxError';
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

// Python's json recursion guard and orjson's parse depth; both refuse deeper documents.
const PARSE_DEPTH_LIMIT = { python: 990, orjson: 1024 } as const;

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

// Node's unchecked slice decoders (Buffer#toString without its argument handling).
export interface SliceBuffer extends Buffer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
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
 * A faster scanStrict(b, shallow, 'python') of a line `b` (valid UTF-8) that also counts, as countArrayObjects does,
 * the objects of the array at the `count` key ("parent.key", a skipped value): the same value and count, or null to
 * decline (the caller then runs scanStrict). The index's is scanShallowFast (lib/index/scan/fast-scan.ts).
 */
export type ShallowScanner = (b: Buffer, shallow: Record<string, readonly string[]>, count: string | null) => FastShallowScan | null;

export interface FastShallowScan {
  value: JsonObject;
  /** Objects in the array at the `count` key ("parent.key"), as countArrayObjects counts them; null without one. */
  counted: number | null;
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
