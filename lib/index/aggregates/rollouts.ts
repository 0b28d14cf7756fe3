// Per-rollout aggregates from a rollout's call rows, with the format's rules: null-skipping sums, the
// compensated latency sum (§4), and the capture gaps of §5.1. Ingest passes the calls it has just parsed;
// other changes (markers, appends) re-read the rollout's calls by primary key. Statements are prepared once.
import type Database from 'better-sqlite3';
import { captureGaps, gapJson } from '../../capture/attachment';
import { callTotals, type CallAgg, type CallTotals } from './call-totals';
import { callMirror } from '../ingest/rows';

export { median, type CallAgg, type CallTotals } from './call-totals';

export interface RolloutCaptureState {
  /** null: a line without a derivable rollout id (§1.4), which NeMo Gym's merge leaves without an attachment. */
  rollout_id: string | null;
  capture_file: number | null;
  marker: number;
  unreadable: number;
  attached_calls: number | null;
  attached_tokens_total: number | null;
  attached_gaps: string | null;
}

/**
 * A rollout's capture gaps (§5.1: from the capture dir, or the rollout line's own attachment when there is no
 * capture dir) and whether its attachment disagrees with the capture dir, given its call count and total.
 */
export function gapsAndMismatch(r: RolloutCaptureState, hasCaptureDir: boolean, calls: number, tokensTotal: number | null): { gaps: unknown[]; mismatch: 0 | 1 } {
  let gaps: unknown[];
  if (hasCaptureDir && r.rollout_id === null) {
    gaps = []; // no id, no capture to look for: the merge adds no attachment, so no gap either (§5.1 step 1)
  } else if (hasCaptureDir) {
    const found = r.capture_file !== null || r.marker === 1;
    gaps = (found ? captureGaps(r.unreadable, r.marker === 1, calls) : [{ code: 'model_call_capture_no_records' }]).map(gapJson);
  } else {
    gaps = r.attached_gaps ? (JSON.parse(r.attached_gaps) as unknown[]) : [];
  }
  const mismatch = hasCaptureDir && r.attached_calls !== null && (r.attached_calls !== calls || r.attached_tokens_total !== tokensTotal) ? 1 : 0;
  return { gaps, mismatch };
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

/** The aggregate columns, in aggregateRow's order: the call totals' first 10, gaps, gap_count, the other 5, mismatch. */
export const AGGREGATE_COLUMNS = [
  'num_calls', 'tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total', 'cached_tokens', 'latency_sum', 'latency_max', 'ttft_p50', 'errors',
  'gaps', 'gap_count', 'model_servers', 'dialects', 'error_categories', 'started_at', 'completed_at', 'mismatch',
] as const;

/** The SET list of the aggregates (AGGREGATE_COLUMNS), each a parameter but the three given. */
function setList(gaps: string, gapCount: string, mismatch: string): string {
  const given: Record<string, string> = { gaps, gap_count: gapCount, mismatch };
  return AGGREGATE_COLUMNS.map((c) => `${c} = ${given[c] ?? '?'}`).join(', ');
}

/** The values of `aggregateRow`, in order. */
const SET = setList('?', '?', '?');

/**
 * The SET list for a rollout of a run with a capture dir whose capture state is given (ingest's capture path),
 * then that state: what gapsAndMismatch reads the row for is decided in SQL, so the statement needs no read first.
 * A rollout without an id gets no gaps (gapsAndMismatch's first case); the mismatch compares the row's own
 * attachment with the given call count and token total (the two parameters in its place). See storeCaptured.
 */
const SET_CAPTURED =
  setList(
    "CASE WHEN rollout_id IS NULL THEN '[]' ELSE ? END",
    'CASE WHEN rollout_id IS NULL THEN 0 ELSE ? END',
    'CASE WHEN attached_calls IS NOT NULL AND (attached_calls IS NOT ? OR attached_tokens_total IS NOT ?) THEN 1 ELSE 0 END',
  ) + ', capture_file = ?, unreadable = ?, marker = ?';

export class RolloutAggregator {
  private readonly stmt;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      calls: db.prepare(
        `SELECT tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_ms, ttft_ms, error_category, model_server, dialect,
          started_at, completed_at FROM calls WHERE rollout_pk = ? ORDER BY call_index`,
      ),
      state: db.prepare('SELECT rollout_id, capture_file, marker, unreadable, attached_calls, attached_tokens_total, attached_gaps FROM rollouts WHERE pk = ?'),
      update: db.prepare(`UPDATE rollouts SET ${SET} WHERE pk = ?`),
      updateCaptured: db.prepare(`UPDATE rollouts SET ${SET_CAPTURED} WHERE pk = ?`),
    };
  }

  /** Recomputes one rollout's aggregates; `totals` are of its calls when the caller already holds all of them. */
  recompute(pk: number, hasCaptureDir: boolean, totals?: CallTotals): void {
    const state = this.stmt.state.get(pk) as RolloutCaptureState | undefined;
    if (!state) return;
    if (!totals) callMirror(this.db)?.localize(pk);
    const t = totals ?? callTotals(this.stmt.calls.all(pk) as CallAgg[]);
    this.stmt.update.run(...aggregateRow(t, state, hasCaptureDir), pk);
  }

  /**
   * A rollout of a run with a capture dir, all of whose calls are in `t`, stored with its new capture state (a
   * capture file it has): the aggregates and the state in one statement, without reading the row first.
   */
  storeCaptured(pk: number, t: CallTotals, capture: { capture_file: number; unreadable: number; marker: number }): void {
    const calls = t[0] as number;
    const tokensTotal = t[4] as number | null;
    const gaps = captureGaps(capture.unreadable, capture.marker === 1, calls).map(gapJson);
    this.stmt.updateCaptured.run(
      t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], JSON.stringify(gaps), gaps.length, t[10], t[11], t[12], t[13], t[14],
      calls, tokensTotal, capture.capture_file, capture.unreadable, capture.marker, pk,
    );
  }
}
