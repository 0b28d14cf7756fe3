// Filtered keyset pages and the compare figures kept across processes: what the list and compare views rely on.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../lib/index/index';
import { kthOfSorted, percentilesOfSorted, quantiles } from '../../../lib/index/compare';
import { listRollouts, type PageOptions, type RolloutFilters } from '../../../lib/index/queries';
import { SORT_COLUMNS, type SortKey } from '../../../lib/index/schema';
import { line, makeExchange } from '../../support/exchange';

const ROOT = path.resolve(import.meta.dirname, '../../..');
let tmp: string;
let demo: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-queries-'));
  demo = path.join(tmp, 'demo');
  const r = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', demo], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
});
afterAll(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

async function openIndex(dir: string) {
  const index = await CallscopeIndex.open([{ path: demo }], dir);
  await index.refresh();
  return index;
}

describe('filtered pages', () => {
  it('every filter pages in sort order without duplicates or holes, and its total counts the matches', async () => {
    const index = await openIndex(path.join(tmp, 'idx-pages'));
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
          const values = seen.map((r) => (sort === 'rollout' ? r.key : (r[sort] ?? -Infinity)));
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
    const index = await openIndex(path.join(tmp, 'idx-plans'));
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
          const value = (r: (typeof all)[number]) =>
            sort === 'rollout' ? r.key : (r[SORT_COLUMNS[sort as Exclude<SortKey, 'rollout'>]] as number | null) ?? -1e308;
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

describe('compare figures', () => {
  it('are the same from a fresh process over an unchanged index, and follow a change to the run', async () => {
    const dir = path.join(tmp, 'idx-compare');
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

  it('a change to one run recomputes only its changed batches, equals a recompute from scratch, and keeps other runs\' figures', async () => {
    const dir = path.join(tmp, 'idx-compare-runs');
    const index = await openIndex(dir);
    const ids = index.listRuns().filter((r) => r.capture_dir).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(1);
    const [changed, other] = ids;
    const before = index.compare(ids)!;
    const otherNo = index.runSource(other)!.no;
    const stored = () => index.db.prepare('SELECT stats FROM run_stats WHERE run_no = ?').pluck().get(otherNo);
    const otherStats = stored();
    expect(otherStats).toBeTruthy();
    const captures = index.runSource(changed)!.captureDir!;
    const file = path.join(captures, (await fsp.readdir(captures)).find((n) => n.endsWith('.capture.jsonl'))!);
    appendFileSync(file, line(makeExchange({ model_call_id: 'extra-2', latency_ms: 123456 })));
    await index.refreshPaths(new Set([file]));
    expect(stored()).toBe(otherStats);
    const after = index.compare(ids)!;
    expect(after.runs[1]).toEqual(before.runs[1]);
    expect(after.runs[0].totals.calls).toBe(before.runs[0].totals.calls + 1);
    index.close();
    // From scratch: a fresh index over the same files.
    const fresh = await openIndex(path.join(tmp, 'idx-compare-runs-fresh'));
    expect(fresh.compare(ids)).toEqual(after);
    fresh.close();
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
});
