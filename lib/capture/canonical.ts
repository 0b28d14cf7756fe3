// Whether a body is already written exactly as the capture would write it: the bytes of a JSON object that
// `serialize(parsePython(bytes))` (orjson.dumps of Python's json.loads, §1.6) would reproduce byte for byte.
// Such a body goes into the line as it is, which skips a lossless parse and a re-serialization of what is
// usually the largest value of the line (the request). Clients that write compact JSON with raw UTF-8
// (JSON.stringify, orjson, httpx) send exactly this.
//
// The check is a single pass over the bytes that accepts only the one spelling the serializer produces for
// each value, and answers false (use the slow path) for anything else, including what it could have proven
// canonical with more work:
//   - no whitespace outside strings, and the object is the whole body;
//   - strings: raw UTF-8 (valid, checked first), escapes only where JSON.stringify writes them (`\"`, `\\`,
//     `\b\f\n\r\t`, other control characters as lowercase `\u00xx`);
//   - integers of at most 15 characters other than `-0` (longer ones may be bigints or out of range);
//     floats whose text formatFloat gives back unchanged (so no NaN/Infinity, `1e5`, `1.50`);
//   - no duplicate key in an object (Python keeps the last value at the first position);
//   - at most MAX_DEPTH nested containers (the serializer refuses 255).
// tests/unit/capture/canonical.property.test.ts checks that whatever passes equals the slow path's output.
import { isUtf8 } from 'node:buffer';
import { formatFloat } from './json-serialize';

const MAX_DEPTH = 128;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isLowerHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102);
const hexValue = (c: number) => (c <= NINE ? c - ZERO : c - 87);

// Escapes JSON.stringify writes in short form; every other control character is `\u00xx`.
const SHORT_ESCAPES = new Set([QUOTE, BACKSLASH, 98, 102, 110, 114, 116]); // " \ b f n r t
const SHORT_FORM_CODES = new Set([8, 9, 10, 12, 13]);

// A raw control character can never be part of a canonical body (strings escape them, and no whitespace is
// allowed between tokens), so one regular-expression scan of the whole body rules them out, and strings are
// then scanned with Buffer.indexOf for their closing quote and escapes only.
const CONTROL = /[\x00-\x1f]/;

class Checker {
  i = 0;
  /** Position of the next backslash at or after the last search, or Infinity when there is none. */
  private backslash = -1;
  constructor(private readonly b: Buffer) {}

  /** Moves past the string at `i` if it is spelled canonically. */
  string(): boolean {
    const b = this.b;
    let i = this.i + 1;
    for (;;) {
      const q = b.indexOf(QUOTE, i);
      if (q < 0) return false;
      if (this.backslash < i) {
        const k = b.indexOf(BACKSLASH, i);
        this.backslash = k < 0 ? Infinity : k;
      }
      if (this.backslash > q) {
        this.i = q + 1;
        return true;
      }
      i = this.backslash;
      const e = b[i + 1];
      if (SHORT_ESCAPES.has(e)) {
        i += 2;
        continue;
      }
      if (e !== 117 || b[i + 2] !== ZERO || b[i + 3] !== ZERO) return false; // \u00..
      const h1 = b[i + 4];
      const h2 = b[i + 5];
      if ((h1 !== ZERO && h1 !== 49) || !isLowerHex(h2)) return false;
      if (SHORT_FORM_CODES.has(hexValue(h1) * 16 + hexValue(h2))) return false;
      i += 6;
    }
  }

  number(): boolean {
    const b = this.b;
    const start = this.i;
    let i = start;
    if (b[i] === MINUS) i++;
    if (b[i] === ZERO) i++;
    else if (b[i] >= 49 && b[i] <= NINE) while (isDigit(b[i])) i++;
    else return false;
    let isFloat = false;
    if (b[i] === DOT) {
      if (!isDigit(b[i + 1])) return false;
      isFloat = true;
      i += 2;
      while (isDigit(b[i])) i++;
    }
    if (b[i] === 101 || b[i] === 69) {
      let k = i + 1;
      if (b[k] === 43 || b[k] === MINUS) k++;
      if (!isDigit(b[k])) return false;
      isFloat = true;
      i = k;
      while (isDigit(b[i])) i++;
    }
    this.i = i;
    const length = i - start;
    if (!isFloat) return length < 16 && !(length === 2 && b[start] === MINUS && b[start + 1] === ZERO);
    let text = '';
    for (let k = start; k < i; k++) text += String.fromCharCode(b[k]);
    return formatFloat(Number(text)) === text;
  }

  literal(word: string): boolean {
    const b = this.b;
    for (let k = 0; k < word.length; k++) if (b[this.i + k] !== word.charCodeAt(k)) return false;
    this.i += word.length;
    return true;
  }

  keyText(start: number, end: number): string {
    return this.b.toString('latin1', start, end);
  }

  /** A scalar at `i`, or a container opened (pushed on `stack`). */
  value(stack: Frame[]): boolean {
    const c = this.b[this.i];
    if (c === QUOTE) return this.string();
    if (c === LBRACE || c === LBRACKET) {
      if (stack.length >= MAX_DEPTH) return false;
      stack.push({ object: c === LBRACE, keys: null, first: true });
      this.i++;
      return true;
    }
    if (c === 116) return this.literal('true');
    if (c === 102) return this.literal('false');
    if (c === 110) return this.literal('null');
    return this.number();
  }
}

interface Frame {
  object: boolean;
  /** Keys seen so far, once the object has a second key. */
  keys: Set<string> | string | null;
  first: boolean;
}

/** True when `serialize(parsePython(body))` is exactly `body` and the body is a JSON object. */
export function isCanonicalJsonObject(body: Uint8Array): boolean {
  const b = body;
  if (b.length < 2 || b[0] !== LBRACE || !isUtf8(b)) return false;
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (CONTROL.test(buf.toString('latin1'))) return false;
  const chk = new Checker(buf);
  const stack: Frame[] = [];
  if (!chk.value(stack)) return false;
  while (stack.length) {
    const frame = stack[stack.length - 1];
    const c = b[chk.i];
    if (c === (frame.object ? RBRACE : RBRACKET)) {
      stack.pop();
      chk.i++;
      if (stack.length === 0) break;
      continue;
    }
    if (!frame.first) {
      if (c !== COMMA) return false;
      chk.i++;
    }
    frame.first = false;
    if (frame.object) {
      const keyStart = chk.i;
      if (b[keyStart] !== QUOTE || !chk.string()) return false;
      const key = chk.keyText(keyStart, chk.i);
      if (frame.keys === null) frame.keys = key;
      else if (typeof frame.keys === 'string') {
        if (frame.keys === key) return false;
        frame.keys = new Set([frame.keys, key]);
      } else {
        if (frame.keys.has(key)) return false;
        frame.keys.add(key);
      }
      if (b[chk.i] !== COLON) return false;
      chk.i++;
    }
    if (chk.i >= b.length || !chk.value(stack)) return false;
  }
  return stack.length === 0 && chk.i === b.length;
}
