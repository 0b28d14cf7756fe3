// Python's `json.dumps`, for writing rollout lines byte for byte as NeMo Gym's example files are written:
// `compact` is `json.dumps(row, separators=(",", ":"), ensure_ascii=False)` (the bytes orjson writes for the
// same values), `spaced` is plain `json.dumps(row)` (", " and ": ", every non-ASCII character as \uXXXX).
// Kept apart from lib/capture/json on purpose: the fixtures are evidence for that code, not its output.
// Values: JS numbers are Python ints, `py.float(x)` a Python float (so `1.0` stays `1.0`), objects keep
// their insertion order (integer-like keys, which JS would reorder, are refused).

export class PyFloat {
  constructor(readonly value: number) {}
}

export type Py = null | boolean | number | string | PyFloat | Py[] | { [key: string]: Py };

export type Style = 'compact' | 'spaced';

export const float = (value: number): PyFloat => new PyFloat(value);

/** `repr(float)`, for the magnitudes rollout lines hold (Python switches to exponents outside 1e-4..1e16). */
function formatFloat(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite float: ${n}`);
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs < 1e-4 || abs >= 1e16) throw new Error(`float outside the plain-decimal range: ${n}`);
  const s = String(n); // shortest round-trip digits, as repr
  return Number.isInteger(n) ? `${s}.0` : s;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };
const hex4 = (code: number) => '\\u' + code.toString(16).padStart(4, '0');

function formatString(s: string, style: Style): string {
  if (!s.isWellFormed()) throw new Error('a lone surrogate cannot be written');
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else if (code < 0x20) out += hex4(code);
    else if (style === 'compact' || (code >= 0x20 && code <= 0x7e)) out += ch;
    else if (code > 0xffff) out += hex4(0xd800 + ((code - 0x10000) >> 10)) + hex4(0xdc00 + ((code - 0x10000) & 0x3ff));
    else out += hex4(code);
  }
  return out + '"';
}

export function dumps(v: Py, style: Style): string {
  const [comma, colon] = style === 'compact' ? [',', ':'] : [', ', ': '];
  const write = (x: Py): string => {
    if (x === null) return 'null';
    if (x === true) return 'true';
    if (x === false) return 'false';
    if (typeof x === 'number') {
      if (!Number.isSafeInteger(x)) throw new Error(`not a Python int: ${x} (use float())`);
      return String(x);
    }
    if (typeof x === 'string') return formatString(x, style);
    if (x instanceof PyFloat) return formatFloat(x.value);
    if (Array.isArray(x)) return `[${x.map(write).join(comma)}]`;
    const keys = Object.keys(x);
    for (const k of keys) if (/^(0|[1-9]\d*)$/.test(k)) throw new Error(`integer-like key ${k}: JS objects reorder those`);
    return `{${keys.map((k) => formatString(k, style) + colon + write(x[k])).join(comma)}}`;
  };
  return write(v);
}
