// Appends folded into a rollout's cached aggregates must give exactly the row a full recompute gives.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../lib/capture/json-value';
import { RolloutAggregator } from '../../../../lib/index/aggregates/rollouts';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { line, makeExchange } from '../../../support/exchange';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-fold-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const AGGREGATES = `num_calls, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_sum, latency_max, ttft_p50, errors, gaps,
  gap_count, model_servers, dialects, error_categories, started_at, completed_at, mismatch`;

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const call: fc.Arbitrary<JsonObject | 'junk'> = fc.oneof(
  { weight: 12, arbitrary: fc.record({
    latency_ms: maybe(fc.double({ min: 0, max: 1e7, noNaN: true })),
    latency_ttft_ms: maybe(fc.double({ min: 0, max: 1e5, noNaN: true })),
    error_category: maybe(fc.constantFrom('timeout', 'connection', 'http_5xx')),
    server: fc.constantFrom('a', 'b', 'c'),
    started_at: maybe(fc.double({ min: 1e9, max: 2e9, noNaN: true })),
    completed_at: maybe(fc.double({ min: 1e9, max: 2e9, noNaN: true })),
    input: maybe(fc.nat(1e6)),
    output: maybe(fc.nat(1e5)),
  }).map((c) => makeExchange({
    model_call_id: null,
    model_ref: { type: 'responses_api_models', name: c.server },
    latency_ms: c.latency_ms,
    latency_ttft_ms: c.latency_ttft_ms,
    error_category: c.error_category,
    started_at: c.started_at,
    completed_at: c.completed_at,
    response: c.input === null ? {} : { usage: { input_tokens: c.input, output_tokens: c.output, total_tokens: c.input + (c.output ?? 0) } },
  })) },
  { weight: 1, arbitrary: fc.constant('junk' as const) },
);

describe('live aggregates', () => {
  it('appends folded in equal a full recompute', async () => {
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(call, { minLength: 0, maxLength: 6 }), { minLength: 1, maxLength: 6 }), async (chunks) => {
        const root = path.join(tmp, `s${seq++}`);
        const captures = path.join(root, 'run', 'captures');
        mkdirSync(captures, { recursive: true });
        const file = path.join(captures, '0-0.capture.jsonl');
        const text = (cs: (JsonObject | 'junk')[]) => cs.map((c) => (c === 'junk' ? '{"broken\n' : line(c))).join('');
        writeFileSync(file, text(chunks[0]));
        const index = await CallscopeIndex.open([{ path: root }], path.join(root, '.idx'));
        try {
          await index.refresh();
          for (const chunk of chunks.slice(1)) {
            appendFileSync(file, text(chunk));
            await index.refreshPaths(new Set([file]));
          }
          const pk = index.db.prepare("SELECT pk FROM rollouts WHERE key = '0-0'").pluck().get() as number;
          const folded = index.db.prepare(`SELECT ${AGGREGATES} FROM rollouts WHERE pk = ?`).get(pk);
          new RolloutAggregator(index.db).recompute(pk, true);
          const full = index.db.prepare(`SELECT ${AGGREGATES} FROM rollouts WHERE pk = ?`).get(pk);
          expect(folded).toEqual(full);
          expect((folded as { num_calls: number }).num_calls).toBe(chunks.flat().filter((c) => c !== 'junk').length);
        } finally {
          index.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
