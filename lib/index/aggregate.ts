// Per-rollout aggregates recomputed from the index's call rows, with the format's rules: null-skipping sums,
// the compensated latency sum (§4), and the capture gaps of §5.1.
import type Database from 'better-sqlite3';
import { captureGaps, gapJson } from '../capture/attachment';
import { neumaierSum } from '../capture/metrics';

interface CallAgg {
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

const sum = (values: (number | null)[]) => {
  let s: number | null = null;
  for (const v of values) if (v !== null) s = (s ?? 0) + v;
  return s;
};

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const tagList = (values: (string | null)[]) => {
  const set = [...new Set(values.filter((v): v is string => v !== null))].sort();
  return set.length ? `|${set.join('|')}|` : null;
};

export function recomputeRollout(db: Database.Database, pk: number, hasCaptureDir: boolean): void {
  const calls = db
    .prepare(
      `SELECT tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_ms, ttft_ms, error_category, model_server, dialect,
        started_at, completed_at FROM calls WHERE rollout_pk = ? ORDER BY call_index`,
    )
    .all(pk) as CallAgg[];
  const r = db.prepare('SELECT capture_file, marker, unreadable, attached_calls, attached_tokens_total, attached_gaps FROM rollouts WHERE pk = ?').get(pk) as {
    capture_file: number | null;
    marker: number;
    unreadable: number;
    attached_calls: number | null;
    attached_tokens_total: number | null;
    attached_gaps: string | null;
  };
  const latencies = calls.map((c) => c.latency_ms).filter((v): v is number => v !== null);
  const ttfts = calls.map((c) => c.ttft_ms).filter((v): v is number => v !== null);
  const tokensTotal = sum(calls.map((c) => c.tokens_total));
  let gaps: unknown[];
  if (hasCaptureDir) {
    const found = r.capture_file !== null || r.marker === 1;
    gaps = (found ? captureGaps(r.unreadable, r.marker === 1, calls.length) : [{ code: 'model_call_capture_no_records' }]).map(gapJson);
  } else {
    gaps = r.attached_gaps ? (JSON.parse(r.attached_gaps) as unknown[]) : [];
  }
  const mismatch = hasCaptureDir && r.attached_calls !== null && (r.attached_calls !== calls.length || r.attached_tokens_total !== tokensTotal) ? 1 : 0;
  const starts = calls.map((c) => c.started_at).filter((v): v is number => v !== null);
  const ends = calls.map((c) => c.completed_at).filter((v): v is number => v !== null);
  db.prepare(
    `UPDATE rollouts SET num_calls = ?, tokens_in = ?, tokens_out = ?, tokens_reasoning = ?, tokens_total = ?, cached_tokens = ?,
      latency_sum = ?, latency_max = ?, ttft_p50 = ?, errors = ?, gaps = ?, gap_count = ?, model_servers = ?, dialects = ?,
      error_categories = ?, started_at = ?, completed_at = ?, mismatch = ? WHERE pk = ?`,
  ).run(
    calls.length,
    sum(calls.map((c) => c.tokens_in)),
    sum(calls.map((c) => c.tokens_out)),
    sum(calls.map((c) => c.tokens_reasoning)),
    tokensTotal,
    sum(calls.map((c) => c.cached_tokens)),
    latencies.length ? neumaierSum(latencies) : null,
    latencies.length ? latencies.reduce((a, b) => Math.max(a, b)) : null,
    median(ttfts),
    calls.filter((c) => c.error_category !== null).length,
    JSON.stringify(gaps),
    gaps.length,
    tagList(calls.map((c) => c.model_server)),
    tagList(calls.map((c) => c.dialect)),
    tagList(calls.map((c) => c.error_category)),
    starts.length ? starts.reduce((a, b) => Math.min(a, b)) : null,
    ends.length ? ends.reduce((a, b) => Math.max(a, b)) : null,
    mismatch,
    pk,
  );
}
