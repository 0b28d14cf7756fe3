// The part of a rollout's aggregates that depends on its calls only, with the format's rules: null-skipping
// sums, the compensated latency sum (§4), the median time to first token. Pure and free of file-system imports,
// so that ingest workers compute it beside the scan (aggregate.ts adds the gaps and writes the row).
import { neumaierSum } from '../../capture/metrics';

export interface CallAgg {
  tokens_in: number | null;
  tokens_out: number | null;
  tokens_reasoning: number | null;
  tokens_total: number | null;
  cached_tokens: number | null;
  latency_ms: number | null;
  ttft_ms: number | null;
  error_category: string | null;
  model_server: string | null;
  dialect: string | null;
  started_at: number | null;
  completed_at: number | null;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const tagList = (values: Set<string>) => (values.size ? `|${[...values].sort().join('|')}|` : null);

const add = (s: number | null, v: number | null) => (v === null ? s : (s ?? 0) + v);

/**
 * The part of a rollout's aggregates that depends on its calls only (what an ingest worker can compute): the
 * values of `UPDATE_SQL`'s SET list without gaps, gap_count and mismatch.
 */
export type CallTotals = unknown[];

export function callTotals(calls: CallAgg[]): CallTotals {
  let tokensIn = null, tokensOut = null, tokensReasoning = null, tokensTotal = null, cached = null;
  let errors = 0;
  let started: number | null = null;
  let completed: number | null = null;
  let latencyMax: number | null = null;
  const latencies: number[] = [];
  const ttfts: number[] = [];
  const servers = new Set<string>();
  const dialects = new Set<string>();
  const categories = new Set<string>();
  for (const c of calls) {
    tokensIn = add(tokensIn, c.tokens_in);
    tokensOut = add(tokensOut, c.tokens_out);
    tokensReasoning = add(tokensReasoning, c.tokens_reasoning);
    tokensTotal = add(tokensTotal, c.tokens_total);
    cached = add(cached, c.cached_tokens);
    if (c.latency_ms !== null) {
      latencies.push(c.latency_ms);
      latencyMax = latencyMax === null ? c.latency_ms : Math.max(latencyMax, c.latency_ms);
    }
    if (c.ttft_ms !== null) ttfts.push(c.ttft_ms);
    if (c.error_category !== null) {
      errors++;
      categories.add(c.error_category);
    }
    if (c.model_server !== null) servers.add(c.model_server);
    if (c.dialect !== null) dialects.add(c.dialect);
    if (c.started_at !== null) started = started === null ? c.started_at : Math.min(started, c.started_at);
    if (c.completed_at !== null) completed = completed === null ? c.completed_at : Math.max(completed, c.completed_at);
  }
  return [
    calls.length, tokensIn, tokensOut, tokensReasoning, tokensTotal, cached,
    latencies.length ? neumaierSum(latencies) : null, latencyMax, median(ttfts), errors,
    tagList(servers), tagList(dialects), tagList(categories), started, completed,
  ];
}

