// Per-rollout aggregates from a rollout's call rows, with the format's rules: null-skipping sums, the
// compensated latency sum (§4), and the capture gaps of §5.1. Ingest passes the calls it has just parsed;
// other changes (markers, appends) re-read the rollout's calls by primary key. Statements are prepared once.
import type Database from 'better-sqlite3';
import { captureGaps, gapJson } from '../capture/attachment';
import { neumaierSum } from '../capture/metrics';

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

export interface RolloutCaptureState {
  capture_file: number | null;
  marker: number;
  unreadable: number;
  attached_calls: number | null;
  attached_tokens_total: number | null;
  attached_gaps: string | null;
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
 * A rollout's capture gaps (§5.1: from the capture dir, or the rollout line's own attachment when there is no
 * capture dir) and whether its attachment disagrees with the capture dir, given its call count and total.
 */
export function gapsAndMismatch(r: RolloutCaptureState, hasCaptureDir: boolean, calls: number, tokensTotal: number | null): { gaps: unknown[]; mismatch: 0 | 1 } {
  let gaps: unknown[];
  if (hasCaptureDir) {
    const found = r.capture_file !== null || r.marker === 1;
    gaps = (found ? captureGaps(r.unreadable, r.marker === 1, calls) : [{ code: 'model_call_capture_no_records' }]).map(gapJson);
  } else {
    gaps = r.attached_gaps ? (JSON.parse(r.attached_gaps) as unknown[]) : [];
  }
  const mismatch = hasCaptureDir && r.attached_calls !== null && (r.attached_calls !== calls || r.attached_tokens_total !== tokensTotal) ? 1 : 0;
  return { gaps, mismatch };
}

/**
 * The part of a rollout's aggregates that depends on its calls only (what an ingest worker can compute): the
 * values of `UPDATE_SQL`'s SET list without gaps, gap_count and mismatch, plus tokens_total at the end.
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

/** The values of `UPDATE_SQL`'s SET list, in order, from a rollout's call totals and capture state. */
export function aggregateRow(t: CallTotals, r: RolloutCaptureState, hasCaptureDir: boolean): unknown[] {
  const { gaps, mismatch } = gapsAndMismatch(r, hasCaptureDir, t[0] as number, t[4] as number | null);
  return [...t.slice(0, 10), JSON.stringify(gaps), gaps.length, ...t.slice(10), mismatch];
}

/** The values of `UPDATE_SQL`'s SET list, in order. */
export function rolloutAggregate(calls: CallAgg[], r: RolloutCaptureState, hasCaptureDir: boolean): unknown[] {
  return aggregateRow(callTotals(calls), r, hasCaptureDir);
}

export class RolloutAggregator {
  private readonly stmt;

  constructor(db: Database.Database) {
    this.stmt = {
      calls: db.prepare(
        `SELECT tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_ms, ttft_ms, error_category, model_server, dialect,
          started_at, completed_at FROM calls WHERE rollout_pk = ? ORDER BY call_index`,
      ),
      state: db.prepare('SELECT capture_file, marker, unreadable, attached_calls, attached_tokens_total, attached_gaps FROM rollouts WHERE pk = ?'),
      update: db.prepare(
        `UPDATE rollouts SET num_calls = ?, tokens_in = ?, tokens_out = ?, tokens_reasoning = ?, tokens_total = ?, cached_tokens = ?,
          latency_sum = ?, latency_max = ?, ttft_p50 = ?, errors = ?, gaps = ?, gap_count = ?, model_servers = ?, dialects = ?,
          error_categories = ?, started_at = ?, completed_at = ?, mismatch = ? WHERE pk = ?`,
      ),
    };
  }

  /** Recomputes one rollout's aggregates; `totals` are of its calls when the caller already holds all of them. */
  recompute(pk: number, hasCaptureDir: boolean, totals?: CallTotals): void {
    const state = this.stmt.state.get(pk) as RolloutCaptureState | undefined;
    if (!state) return;
    const t = totals ?? callTotals(this.stmt.calls.all(pk) as CallAgg[]);
    this.stmt.update.run(...aggregateRow(t, state, hasCaptureDir), pk);
  }
}
