// orjson.dumps for lossless JSON values (json-value.ts): compact, raw non-ASCII, whole floats keep their `.0`,
// NaN/Infinity as null; what orjson refuses (a 64-bit overflow, a lone surrogate, too deep a document) throws.
import * as jsonValue from './json-value';
import type { JsonObject, JsonValue } from './json-value';

// Bound to constants of this module, as in json-parse.ts (read through imports compiled to property reads,
// serialize was 4% slower).
const { I64_MIN, JSON_FLOAT, JsonFloat, keysOf, U64_MAX } = jsonValue;

export class JsonSerializeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSerializeError';
  }
}

// orjson.dumps raises "Recursion limit reached" past this many nested containers.
const SERIALIZE_DEPTH_LIMIT = 255;

const enum C {
  Minus = 45,
}

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
  if ((v as Record<symbol, unknown>)[JSON_FLOAT] === true) {
    out.push(formatFloat((v as unknown as { value: number }).value)); // another module copy's JsonFloat (json-value.ts)
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
