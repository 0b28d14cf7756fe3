// Aggregation of records into the attachment's `metrics` (spec §4). Null means unknown: sums skip nulls and
// are null when nothing is known. The latency sum reproduces Python 3.13 `sum()` over floats (Neumaier).
import { pyFloat, type JsonObject, type JsonValue } from './json-value';
import type { ModelCallRecord } from './record';

export const METRIC_FIELDS = ['tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total', 'cached_tokens', 'latency_total_ms', 'num_calls'] as const;

function intSum(values: JsonValue[]): number | bigint | null {
  let sum: bigint | null = null;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'number' || typeof v === 'bigint') sum = (sum ?? 0n) + BigInt(v);
  }
  if (sum === null) return null;
  return sum <= BigInt(Number.MAX_SAFE_INTEGER) && sum >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(sum) : sum;
}

/**
 * CPython's compensated float sum (`sum()` since 3.12). `prefix`, when given, hears the sum of each prefix as the same
 * `sum()` of it would be (k values, k from 1), on the way.
 */
export function neumaierSum(values: readonly number[], prefix?: (k: number, sum: number) => void): number {
  let s = 0;
  let c = 0;
  let k = 0;
  for (const x of values) {
    const t = s + x;
    if (Math.abs(s) >= Math.abs(x)) c += s - t + x;
    else c += x - t + s;
    s = t;
    if (prefix) prefix(++k, c && Number.isFinite(c) ? s + c : s);
  }
  if (c && Number.isFinite(c)) s += c;
  return s;
}

export function aggregateMetrics(records: ModelCallRecord[]): JsonObject {
  const column = (key: string) => records.map((r) => r[key]);
  const latencies = records.map((r) => r.latency_total_ms).filter((v) => v !== null && v !== undefined).map(Number);
  return {
    tokens_in: intSum(column('tokens_in')),
    tokens_out: intSum(column('tokens_out')),
    tokens_reasoning: intSum(column('tokens_reasoning')),
    tokens_total: intSum(column('tokens_total')),
    cached_tokens: intSum(column('cached_tokens')),
    latency_total_ms: latencies.length ? pyFloat(neumaierSum(latencies)) : null,
    num_calls: records.length,
  };
}
