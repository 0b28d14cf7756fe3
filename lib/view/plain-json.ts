// Values read on the server by the format library keep numbers exactly as written: a float as a small wrapper object
// (so that `1.0` stays `1.0`), a big integer as a bigint. What a page renders or hands to a client component must be
// plain JSON, so those become numbers here (a bigint beyond 2^53 becomes its digits, not a rounded number). lib/view
// also runs in the browser, where the format library does not, so the wrapper is recognised by shape: an instance
// of a class (not a plain object) whose one field is a numeric `value`.

/** The number a lossless numeric value stands for, or undefined when `v` is not one. */
export function losslessNumber(v: unknown): number | string | undefined {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return undefined;
  const value = (v as { value?: unknown }).value;
  return typeof value === 'number' ? value : undefined;
}

export function plainJson(v: unknown): unknown {
  const n = losslessNumber(v);
  if (n !== undefined) return n;
  if (Array.isArray(v)) return v.map(plainJson);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x)]));
  return v;
}
