// The statistics every benchmark report uses. Percentiles are nearest-rank (the smallest sample with at least
// q of the sample at or below it: no interpolation), so a median of an even count is the lower middle value;
// the reports in reports/ and the README's tables were computed this way, and stay comparable only while it is.
// An empty sample gives NaN (null in the JSON reports).

/** Nearest-rank percentile of an unsorted sample, `q` in [0, 1]. */
export function pct(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const median = (values: readonly number[]): number => pct(values, 0.5);

/** `x` to `digits` decimals; NaN and ±Infinity pass unchanged. */
export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** bench:index's summary of a sample: count, p50/p95/p99, max and mean, to 3 decimals. */
export function summary(values: readonly number[]) {
  return {
    n: values.length,
    p50: round(pct(values, 0.5)),
    p95: round(pct(values, 0.95)),
    p99: round(pct(values, 0.99)),
    max: round(values.length ? Math.max(...values) : NaN),
    mean: round(values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN),
  };
}

/** bench:proxy's summary of a sample: count, p50/p99 and max, to 3 decimals. */
export function shortSummary(values: readonly number[]) {
  return { n: values.length, p50: round(pct(values, 0.5)), p99: round(pct(values, 0.99)), max: round(values.length ? Math.max(...values) : NaN) };
}
