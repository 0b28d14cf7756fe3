// Filtered keyset pages and the compare figures kept across processes: what the list and compare views rely on.

import { appendFileSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rolloutOrderKey } from '../../../../lib/index/rollout-order';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { useDemo } from '../../../support/demo';
import { kthOfSorted, percentilesOfSorted, quantiles } from '../../../../lib/index/compare/compare';
import { listRollouts, runTotals, type PageOptions, type RolloutFilters } from '../../../../lib/index/queries/rollouts';
import { SORT_COLUMNS, type SortKey } from '../../../../lib/index/schema';
import { line, makeExchange } from '../../../support/exchange';
import { presentRollout } from '../../../../lib/api/present';
import { shownTokens } from '../../../../lib/view/table';
import { TIERS } from '../../../support/nemo-gym-data';

const fx = useDemo('callscope-queries-');
const TOKEN_SORTS = { tokens_in: 'tokens_in', tokens_out: 'tokens_out', tokens_reasoning: 'tokens_reasoning', tokens_cached: 'cached_tokens', tokens_total: 'tokens_total' } as const;

async function openIndex(dir: string) {
  const index = await CallscopeIndex.open([{ path: fx.demo }], dir);
  await index.refresh();
  return index;
}

// The SWE file's rollouts by their line's response.usage input_tokens, read off it with Python's json.loads.
const BY_TOKENS_IN = {
  fixtures: ['0-0', '0-4', '0-1', '0-3', '0-2'], // 163841, 48213, 35102, 30655, 29870
  real: ['0-0', '0-2', '0-1', '0-3', '0-4'], // 174322, 51762, 32994, 31397, 31259
};

for (const data of TIERS) {
  describe.skipIf(!data.present)(`token sort keys over ${data.title}`, () => {
    it("sort rollouts without captured calls by their line's response.usage, as the views show them", async () => {
      const index = await CallscopeIndex.open([{ path: data.file.anyswe_claude_code }], path.join(fx.tmp, `idx-usage-sort-${data.tier}`));
      await index.refresh();
      const run = index.listRuns()[0].id;
      const keys = (sort: SortKey, order: 'asc' | 'desc') => index.listRollouts(run, { sort, order, limit: 2 });
      const desc = BY_TOKENS_IN[data.tier];
      const first = keys('tokens_in', 'desc')!;
      expect(first.rollouts.map((r) => r.key)).toEqual(desc.slice(0, 2));
      const rest = index.listRollouts(run, { sort: 'tokens_in', order: 'desc', limit: 10, cursor: first.next_cursor! })!;
      expect(rest.rollouts.map((r) => r.key)).toEqual(desc.slice(2));
      expect(keys('tokens_in', 'asc')!.rollouts.map((r) => r.key)).toEqual([...desc].reverse().slice(0, 2));
      index.close();
    });
  });
}

describe('filtered pages', () => {
  it('every filter pages in sort order without duplicates or holes, and its total counts the matches', async () => {
    const index = await openIndex(path.join(fx.tmp, 'idx-pages'));
    const run = index.listRuns().find((r) => r.id === 'workplace-assistant')!;
    const all = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 10_000 })!.rollouts;
    const server = all.find((r) => r.model_servers)!.model_servers!.split('|').filter(Boolean)[0];
    const rewards = all.map((r) => r.reward).filter((r): r is number => r !== null).sort((a, b) => a - b);
    const filters: [RolloutFilters, (r: (typeof all)[number]) => boolean][] = [
      [{ has_errors: true }, (r) => r.errors > 0],
      [{ has_errors: false }, (r) => r.errors === 0],
      [{ model_server: server }, (r) => (r.model_servers ?? '').includes(`|${server}|`)],
      [{ reward_min: rewards[rewards.length >> 1] }, (r) => r.reward !== null && r.reward >= rewards[rewards.length >> 1]],
      [{ attempt: 0 }, (r) => (r.attempt ?? 0) === 0],
    ];
    for (const [filter, matches] of filters) {
      const expected = all.filter(matches);
      expect(expected.length).toBeGreaterThan(0);
      for (const sort of ['tokens_total', 'started_at', 'rollout'] as const) {
        for (const order of ['asc', 'desc'] as const) {
          const seen: typeof all = [];
          let cursor: string | undefined;
          do {
            const page = index.listRollouts(run.id, { sort, order, limit: 3, cursor, ...filter })!;
            expect(page.total).toBe(expected.length);
            seen.push(...page.rollouts);
            cursor = page.next_cursor ?? undefined;
          } while (cursor);
          expect(seen.map((r) => r.key).sort()).toEqual(expected.map((r) => r.key).sort());
          const values = seen.map((r) => (sort === 'rollout' ? rolloutOrderKey(r.key) : (r[sort] ?? -Infinity)));
          const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expect(values).toEqual(order === 'asc' ? sorted : sorted.reverse());
        }
      }
    }
    index.close();
  });
});

describe('page plans', () => {
  it('every filter x sort key x order x plan pages exactly like a brute-force sort of the matching rows', async () => {
    const index = await openIndex(path.join(fx.tmp, 'idx-plans'));
    {
      const run = index.listRuns().find((r) => r.id === 'workplace-assistant')!;
      const runNo = index.runSource(run.id)!.no;
      const all = listRollouts(index.db, runNo, { sort: 'rollout', order: 'asc', limit: 100_000 }).rollouts;
      expect(all.length).toBeGreaterThan(20);
      const server = all.find((r) => r.model_servers)?.model_servers?.split('|').filter(Boolean)[0];
      const rewards = all.map((r) => r.reward).filter((r): r is number => r !== null).sort((a, b) => a - b);
      const filters: [RolloutFilters, (r: (typeof all)[number]) => boolean][] = [
        [{}, () => true],
        [{ has_errors: true }, (r) => r.errors > 0],
        [{ has_errors: false }, (r) => r.errors === 0],
        [{ failed: true }, (r) => r.failure_class !== null],
        [{ failed: false }, (r) => r.failure_class === null],
        [{ line_problem: true }, (r) => r.line_problem !== null],
        [{ line_problem: false, has_errors: true }, (r) => r.line_problem === null && r.errors > 0],
        [{ attempt: 0 }, (r) => (r.attempt ?? 0) === 0],
        [{ has_errors: false, attempt: 0 }, (r) => r.errors === 0 && (r.attempt ?? 0) === 0],
      ];
      if (server) filters.push([{ model_server: server }, (r) => (r.model_servers ?? '').includes(`|${server}|`)]);
      if (rewards.length) {
        const mid = rewards[rewards.length >> 1];
        filters.push([{ reward_min: mid }, (r) => r.reward !== null && r.reward >= mid]);
        filters.push([{ reward_max: mid, has_errors: false }, (r) => r.reward !== null && r.reward <= mid && r.errors === 0]);
      }
      const plans: PageOptions[] = [
        { plan: 'auto' },
        { plan: 'walk' },
        { plan: 'matches' },
        { plan: 'auto', matchesMax: 0, walkSpan: 4 }, // walks a little, then falls back
      ];
      for (const [filter, matches] of filters) {
        for (const sort of ['rollout', ...Object.keys(SORT_COLUMNS)] as SortKey[]) {
          // Token keys sort by the counts the views show (the captured sums, or a call-less rollout's response.usage).
          const value = (r: (typeof all)[number]) =>
            sort === 'rollout'
              ? rolloutOrderKey(r.key)
              : sort in TOKEN_SORTS
                ? (shownTokens(presentRollout(r), r.num_calls, TOKEN_SORTS[sort as keyof typeof TOKEN_SORTS]).value ?? -1e308)
                : ((r[SORT_COLUMNS[sort as Exclude<SortKey, 'rollout'>] as keyof typeof r] as number | null) ?? -1e308);
          for (const order of ['asc', 'desc'] as const) {
            const sign = order === 'asc' ? 1 : -1;
            const expected = all
              .filter(matches)
              .sort((a, b) => {
                const va = value(a);
                const vb = value(b);
                return sign * (va < vb ? -1 : va > vb ? 1 : a.pk - b.pk);
              })
              .map((r) => r.pk);
            for (const options of plans) {
              const seen: number[] = [];
              let cursor: string | undefined;
              do {
                const page = listRollouts(index.db, runNo, { sort, order, limit: 7, cursor, ...filter }, options);
                expect(page.total).toBe(expected.length);
                expect(page.rollouts.length).toBeLessThanOrEqual(7);
                seen.push(...page.rollouts.map((r) => r.pk));
                cursor = page.next_cursor ?? undefined;
              } while (cursor);
              expect(seen, `${run.id} ${JSON.stringify(filter)} ${sort} ${order} ${JSON.stringify(options)}`).toEqual(expected);
            }
          }
        }
      }
    }
    index.close();
  }, 180_000);
});

describe('run totals', () => {
  it('are kept between reads and follow every change, made by this connection or by another process', async () => {
    const dir = path.join(fx.tmp, 'idx-totals');
    const a = await openIndex(dir);
    const calls = () => a.listRuns().find((r) => r.id === 'workplace-assistant')!.totals.calls;
    const before = calls();
    expect(calls()).toBe(before);
    const captures = a.runSource('workplace-assistant')!.captureDir!;
    const file = path.join(captures, (await fsp.readdir(captures)).find((n) => n.endsWith('.capture.jsonl'))!);
    appendFileSync(file, line(makeExchange({ model_call_id: 'totals-1' })));
    const b = await CallscopeIndex.open([{ path: fx.demo }], dir); // another connection, as another process would have
    await b.refreshPaths(new Set([file]));
    b.close();
    expect(calls()).toBe(before + 1);
    appendFileSync(file, line(makeExchange({ model_call_id: 'totals-2' })));
    await a.refreshPaths(new Set([file]));
    expect(calls()).toBe(before + 2);
    a.close();
  });

  it("name each run's agents (agent_ref.name), distinct and sorted, from one batch or many", async () => {
    for (const shift of [1, 24]) {
      const index = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, `idx-agents-${shift}`), { compareBatchShift: shift });
      await index.refresh();
      const runs = index.listRuns();
      expect(runs.some((r) => r.totals.agents.length > 0)).toBe(true);
      for (const r of runs) {
        const rows = index.db.prepare('SELECT DISTINCT agent FROM rollouts WHERE run_no = ? AND agent IS NOT NULL').pluck().all(index.runSource(r.id)!.no) as string[];
        expect(r.totals.agents, r.id).toEqual(rows.sort());
      }
      index.close();
    }
  });
});

describe('compare figures', () => {
  it('are the same from a fresh process over an unchanged index, and follow a change to the run', async () => {
    const dir = path.join(fx.tmp, 'idx-compare');
    const first = await openIndex(dir);
    const before = first.compare(['workplace-assistant']);
    first.close();
    const second = await openIndex(dir);
    expect(second.compare(['workplace-assistant'])).toEqual(before);
    const captures = second.listRuns().find((r) => r.id === 'workplace-assistant')!.capture_dir!;
    const file = path.join(captures, (await fsp.readdir(captures)).find((n) => n.endsWith('.capture.jsonl'))!);
    appendFileSync(file, line(makeExchange({ model_call_id: 'extra' })));
    await second.refreshPaths(new Set([file]));
    const after = second.compare(['workplace-assistant'])!;
    expect(after.runs[0].totals.calls).toBe(before!.runs[0].totals.calls + 1);
    second.close();
    const third = await openIndex(dir);
    expect(third.compare(['workplace-assistant'])).toEqual(after);
    third.close();
  });

  it('a change to one run recomputes only the changed batch, equals a recompute from scratch, and keeps other runs\' figures', async () => {
    const small = { compareBatchShift: 2, compareFillMin: 1 }; // 4 rollouts per batch
    const dir = path.join(fx.tmp, 'idx-compare-runs');
    const index = await CallscopeIndex.open([{ path: fx.demo }], dir, small);
    await index.refresh();
    await index.compareFilled();
    const ids = index.listRuns().filter((r) => r.capture_dir).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(1);
    const [changed, other] = ids;
    const changedNo = index.runSource(changed)!.no;
    const stored = (runNo: number) =>
      new Map((index.db.prepare('SELECT batch, data FROM compare_batches WHERE run_no = ?').all(runNo) as { batch: number; data: Buffer }[]).map((r) => [r.batch, r.data.toString('hex')]));
    // The background fill stored every batch of every run before any compare.
    const batchesOf = (runNo: number) => (index.db.prepare('SELECT DISTINCT pk >> 2 FROM rollouts WHERE run_no = ?').pluck().all(runNo) as number[]).sort((a, b) => a - b);
    for (const id of ids) expect([...stored(index.runSource(id)!.no).keys()].sort((a, b) => a - b)).toEqual(batchesOf(index.runSource(id)!.no));
    expect(batchesOf(changedNo).length).toBeGreaterThan(3);
    const before = index.compare(ids)!;
    const otherBefore = stored(index.runSource(other)!.no);
    const changedBefore = stored(changedNo);

    const captures = index.runSource(changed)!.captureDir!;
    const name = (await fsp.readdir(captures)).find((n) => n.endsWith('.capture.jsonl'))!;
    const file = path.join(captures, name);
    const pk = index.db.prepare('SELECT pk FROM rollouts WHERE run_no = ? AND rollout_id = ?').pluck().get(changedNo, name.replace('.capture.jsonl', '')) as number;
    appendFileSync(file, line(makeExchange({ model_call_id: 'extra-2', latency_ms: 123456 })));
    await index.refreshPaths(new Set([file]));
    expect(stored(index.runSource(other)!.no)).toEqual(otherBefore);
    const changedAfter = stored(changedNo);
    expect([...changedBefore.keys()].filter((b) => !changedAfter.has(b))).toEqual([pk >> 2]);
    for (const [b, data] of changedAfter) expect(data).toBe(changedBefore.get(b));

    const after = index.compare(ids)!;
    expect(after.runs[1]).toEqual(before.runs[1]);
    expect(after.runs[0].totals.calls).toBe(before.runs[0].totals.calls + 1);
    // The totals, kept per batch and read again for the changed batch only, equal a scan of the run's rows.
    const scanned = runTotals(index.db, changedNo);
    expect({ ...after.runs[0].totals, latency_sum: 0, mean_reward: 0 }).toEqual({ ...scanned, latency_sum: 0, mean_reward: 0 });
    expect(after.runs[0].totals.latency_sum).toBeCloseTo(scanned.latency_sum!, 6);
    expect(after.runs[0].calls.latency_ms[2]).toBeLessThanOrEqual(123456);
    expect(stored(changedNo).size).toBe(changedBefore.size);
    // The whole figures after a small change are stored only once the run has been quiet a while.
    const whole = () => index.db.prepare('SELECT stats FROM run_stats WHERE run_no = ?').pluck().get(changedNo) as string | undefined;
    expect(whole()).toBeUndefined();
    await expect.poll(whole, { timeout: 10_000 }).toBeDefined();
    expect(JSON.parse(whole()!).comparison.totals.calls).toBe(after.runs[0].totals.calls);
    index.close();
    // From scratch: a fresh index over the same files.
    const fresh = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx-compare-runs-fresh'), small);
    await fresh.refresh();
    expect(fresh.compare(ids)).toEqual(after);
    fresh.close();
  });

  it('are filled in the background by the first pass over an index that has none (as one from an older version)', async () => {
    const small = { compareBatchShift: 2, compareFillMin: 1 };
    const dir = path.join(fx.tmp, 'idx-compare-upgrade');
    const first = await CallscopeIndex.open([{ path: fx.demo }], dir, small);
    await first.refresh();
    await first.compareFilled();
    const expected = first.compare(first.listRuns().map((r) => r.id));
    first.db.exec('DELETE FROM compare_batches; DELETE FROM run_stats;');
    first.close();
    const second = await CallscopeIndex.open([{ path: fx.demo }], dir, small);
    await second.refresh(); // nothing to ingest
    await second.compareFilled();
    const stored = second.db.prepare('SELECT count(*) FROM compare_batches').pluck().get() as number;
    const batches = second.db.prepare('SELECT count(*) FROM (SELECT DISTINCT run_no, pk >> 2 FROM rollouts)').pluck().get() as number;
    expect(stored).toBe(batches);
    expect(second.db.prepare('SELECT count(*) FROM run_stats').pluck().get()).toBe(second.listRuns().length);
    expect(second.compare(second.listRuns().map((r) => r.id))).toEqual(expected);
    second.close();
  });

  it('merged from many small batches, equal the figures of one batch and a brute-force computation over the rows', async () => {
    const many = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx-compare-many'), { compareBatchShift: 1 });
    await many.refresh();
    const one = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx-compare-one'), { compareBatchShift: 24 });
    await one.refresh();
    const ids = many.listRuns().map((r) => r.id);
    const a = many.compare(ids)!;
    const b = one.compare(ids)!;
    for (let i = 0; i < ids.length; i++) {
      const [x, y] = [a.runs[i], b.runs[i]];
      // Totals: counts and token sums exact; float sums (latency, reward) added in another order by batch.
      const { latency_sum: lx, mean_reward: rx, ...restX } = x.totals;
      const { latency_sum: ly, mean_reward: ry, ...restY } = y.totals;
      expect(restX).toEqual(restY);
      for (const [p, q] of [[lx, ly], [rx, ry]]) {
        if (q === null) expect(p).toBeNull();
        else expect(p).toBeCloseTo(q, 6);
      }
      expect(x.totals).toEqual({ ...runTotals(many.db, many.runSource(ids[i])!.no), latency_sum: x.totals.latency_sum, mean_reward: x.totals.mean_reward });
      expect(x.gaps).toEqual(y.gaps);
      expect(x.calls).toEqual(y.calls);
      for (const d of [...Object.keys(x.rollout_tokens).map((k) => [x.rollout_tokens[k as 'tokens_in'], y.rollout_tokens[k as 'tokens_in']]), [x.reward, y.reward]]) {
        expect(d[0].count).toBe(d[1].count);
        expect(d[0].quantiles).toEqual(d[1].quantiles);
        if (d[1].mean === null) expect(d[0].mean).toBeNull();
        else expect(d[0].mean).toBeCloseTo(d[1].mean, 9);
      }
      // Brute force over the rows.
      const runNo = many.runSource(ids[i])!.no;
      const latency = (many.db.prepare('SELECT latency_ms FROM calls WHERE rollout_pk IN (SELECT pk FROM rollouts WHERE run_no = ?) AND latency_ms IS NOT NULL').pluck().all(runNo) as number[]).sort((p, q) => p - q);
      expect(x.calls.latency_ms).toEqual(quantiles(latency, [0.5, 0.9, 0.99]));
      const tokens = (many.db.prepare('SELECT shown_tokens_total FROM rollouts WHERE run_no = ? AND shown_tokens_total IS NOT NULL').pluck().all(runNo) as number[]).sort((p, q) => p - q);
      expect(x.rollout_tokens.tokens_total.quantiles).toEqual(quantiles(tokens, [0.05, 0.25, 0.5, 0.75, 0.95]));
      expect(x.rollout_tokens.tokens_total.mean).toBe(tokens.length ? tokens.reduce((p, q) => p + q, 0) / tokens.length : null);
      const calls = many.db.prepare('SELECT count(*) FROM calls WHERE rollout_pk IN (SELECT pk FROM rollouts WHERE run_no = ?)').pluck().get(runNo) as number;
      expect(x.calls.servers.reduce((n, s) => n + s.calls, 0)).toBe(calls);
    }
    expect(a.tasks.map((t) => t.task_index)).toEqual(b.tasks.map((t) => t.task_index));
    expect(a.tasks.map((t) => t.runs.map((r) => r.rollouts))).toEqual(b.tasks.map((t) => t.runs.map((r) => r.rollouts)));
    many.close();
    one.close();
  });
});

describe('order statistics over sorted batches', () => {
  it('equal nearest-rank quantiles of the concatenation', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 200; trial++) {
      const arrays = Array.from({ length: 1 + Math.floor(rand() * 6) }, () =>
        Float64Array.from({ length: Math.floor(rand() * 8) }, () => Math.floor(rand() * 10) / (rand() < 0.5 ? 1 : 3)).sort(),
      );
      const all = arrays.flatMap((a) => Array.from(a)).sort((a, b) => a - b);
      for (let k = 0; k < all.length; k++) expect(kthOfSorted(arrays, k)).toBe(all[k]);
      const qs = [0, 0.01, 0.5, 0.9, 0.99, 1];
      expect(percentilesOfSorted(arrays, qs)).toEqual(quantiles(all, qs));
    }
  });

  it('equal the sorted concatenation for many large batches with repeated values (property)', () => {
    const value = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((x) => x + 0));
    fc.assert(
      fc.property(fc.array(fc.array(value, { maxLength: 300 }), { minLength: 1, maxLength: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (lists, q) => {
        const arrays = lists.map((l) => Float64Array.from(l).sort());
        const all = lists.flat().sort((a, b) => a - b);
        if (!all.length) return;
        const k = Math.min(all.length - 1, Math.floor(q * all.length));
        expect(kthOfSorted(arrays, k)).toBe(all[k]);
        expect(kthOfSorted(arrays, 0)).toBe(all[0]);
        expect(kthOfSorted(arrays, all.length - 1)).toBe(all[all.length - 1]);
      }),
      { numRuns: 500 },
    );
  });
});
