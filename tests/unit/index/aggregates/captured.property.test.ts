// A capture file read whole stores its rollout's aggregates in one statement whose gaps and mismatch are decided in
// SQL (RolloutAggregator.storeCaptured, SET_CAPTURED); every other change recomputes them in JavaScript (aggregateRow,
// through recompute). The two must write the same row for the same rollout, capture state and calls, or a rollout's
// gaps and mismatch flag would depend on which path wrote it last (a cold pass, then a marker that comes and goes).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RolloutAggregator } from '../../../../lib/index/aggregates/rollouts';
import { callTotals, type CallAgg } from '../../../../lib/index/aggregates/call-totals';
import { migrate } from '../../../../lib/index/schema';

const AGGREGATES = `num_calls, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_sum, latency_max, ttft_p50, errors, gaps,
  gap_count, model_servers, dialects, error_categories, started_at, completed_at, mismatch, capture_file, unreadable, marker`;

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const callAgg: fc.Arbitrary<CallAgg> = fc.record({
  tokens_in: maybe(fc.nat(1e6)),
  tokens_out: maybe(fc.nat(1e5)),
  tokens_reasoning: maybe(fc.nat(1e4)),
  tokens_total: maybe(fc.nat(2e6)),
  cached_tokens: maybe(fc.nat(1e5)),
  latency_ms: maybe(fc.double({ min: 0, max: 1e6, noNaN: true })),
  ttft_ms: maybe(fc.double({ min: 0, max: 1e5, noNaN: true })),
  error_category: maybe(fc.constantFrom('timeout', 'connection', 'http_5xx')),
  model_server: maybe(fc.constantFrom('policy', 'judge')),
  dialect: maybe(fc.constantFrom('responses', 'chat_completions', 'anthropic')),
  started_at: maybe(fc.double({ min: 1.7e9, max: 1.8e9, noNaN: true })),
  completed_at: maybe(fc.double({ min: 1.7e9, max: 1.8e9, noNaN: true })),
});

/** A rollout line's own state: whether it has an id, and the attachment it carried (count and token total). */
const lineState = fc.record({
  rolloutId: maybe(fc.constantFrom('a1b2c3', 'rollout-7')),
  attachedCalls: maybe(fc.nat(6)),
  attachedTokens: maybe(fc.nat(5000)),
});
const captureState = fc.record({ unreadable: fc.nat(3), marker: fc.constantFrom(0, 1) });

describe('storeCaptured and recompute', () => {
  it('write the same aggregates, gaps and mismatch for a rollout of a run with a capture dir', () => {
    const db = new Database(':memory:');
    migrate(db);
    const aggregator = new RolloutAggregator(db);
    const insert = db.prepare(`INSERT INTO rollouts (run_no, key, rollout_id, attached_calls, attached_tokens_total, attached_gaps, order_key)
      VALUES (1, ?, ?, ?, ?, '[]', ?)`);
    const setState = db.prepare('UPDATE rollouts SET capture_file = ?, unreadable = ?, marker = ? WHERE pk = ?');
    const read = db.prepare(`SELECT ${AGGREGATES} FROM rollouts WHERE pk = ?`);
    let n = 0;
    fc.assert(
      fc.property(lineState, captureState, fc.array(callAgg, { maxLength: 6 }), (line, capture, calls) => {
        // The totals as a worker computes them beside its scan, and as the count and total an attachment is compared with.
        const totals = callTotals(calls);
        const row = (key: string) => Number(insert.run(key, line.rolloutId, line.attachedCalls, line.attachedTokens, key).lastInsertRowid);
        const viaSql = row(`sql-${++n}`);
        const viaJs = row(`js-${n}`);
        const state = { capture_file: 7, unreadable: capture.unreadable, marker: capture.marker };
        aggregator.storeCaptured(viaSql, totals, state);
        setState.run(state.capture_file, state.unreadable, state.marker, viaJs);
        aggregator.recompute(viaJs, true, totals);
        expect(read.get(viaSql)).toEqual(read.get(viaJs));
      }),
      { numRuns: 500 },
    );
    db.close();
  });
});
