// Lossless JSON for the capture format: the value model (parsing in json-parse.ts, orjson.dumps in json-serialize.ts).
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

export class JsonFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
}

/**
 * Marks every JsonFloat, whichever copy of this module made it: `serve` and the Next bundle each load one, and a value
 * the index (serve's copy) parsed reaches a route's serialize (the bundle's), where `instanceof JsonFloat` misses it.
 */
export const JSON_FLOAT = Symbol.for('callscope.json.float');
Object.defineProperty(JsonFloat.prototype, JSON_FLOAT, { value: true });

export type JsonValue = null | boolean | number | bigint | string | JsonFloat | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export const KEY_ORDER = Symbol.for('callscope.json.keyOrder');

// orjson's integer range (u64 and i64): it reads a wider integer as a float and refuses to write one.
export const U64_MAX = 18446744073709551615n;
export const I64_MIN = -9223372036854775808n;

const enum C {
  Zero = 48,
  Nine = 57,
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
