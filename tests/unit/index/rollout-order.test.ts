// The default rollouts order: task index, rollout index, attempt (numbers by value), then other keys as text with
// their numbers by value; through the index, with keyset pages.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { rolloutOrderKey } from '../../../lib/index/rollout-order';

const byOrderKey = (keys: string[]) => [...keys].sort((a, b) => (rolloutOrderKey(a) < rolloutOrderKey(b) ? -1 : rolloutOrderKey(a) > rolloutOrderKey(b) ? 1 : 0));

describe('rolloutOrderKey', () => {
  it('orders derived ids by task, rollout and attempt as numbers', () => {
    const keys = ['10-0', '2-0', '1-1', '0-1', '1-0', '0-0', '0-0-a1', '0-0-a10', '0-0-a2', '10-1', '2-0~l7', '9-0'];
    expect(byOrderKey(keys)).toEqual(['0-0', '0-0-a1', '0-0-a2', '0-0-a10', '0-1', '1-0', '1-1', '2-0', '2-0~l7', '9-0', '10-0', '10-1']);
  });

  it('puts every other key after them, as text with numbers by value', () => {
    expect(byOrderKey(['line-10', 'abc', '3-1', 'line-2', 's7-3-2', 'failure-line-1', 'x.capture'])).toEqual(['3-1', 'abc', 'failure-line-1', 'line-2', 'line-10', 's7-3-2', 'x.capture']);
  });

  it('agrees with the (task, rollout, attempt) order for any derived ids (property)', () => {
    const id = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }));
    fc.assert(
      fc.property(fc.array(id, { maxLength: 40 }), (ids) => {
        const keys = ids.map(([t, r, a]) => `${t}-${r}${a ? `-a${a}` : ''}`);
        const expected = [...ids]
          .sort(([t1, r1, a1], [t2, r2, a2]) => (t1 !== t2 ? (t1 < t2 ? -1 : 1) : r1 !== r2 ? (r1 < r2 ? -1 : 1) : (a1 ?? 0) - (a2 ?? 0)))
          .map(([t, r, a]) => `${t}-${r}${a ? `-a${a}` : ''}`);
        expect(byOrderKey(keys)).toEqual(expected);
      }),
    );
  });
});

describe('sort=rollout through the index', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-order-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('pages 0-0, 0-1, 1-0, 1-1, 2-0 ... 10-1, then the lines without an id, both ways', async () => {
    const run = path.join(tmp, 'run');
    mkdirSync(run);
    const lines: string[] = [];
    for (let task = 10; task >= 0; task--) for (const rollout of [1, 0]) lines.push(JSON.stringify({ reward: 1.0, _ng_task_index: task, _ng_rollout_index: rollout }));
    lines.push(JSON.stringify({ reward: 0.5 }), JSON.stringify({ reward: 0.5, _ng_task_index: 2, _ng_rollout_index: 0, _ng_attempt_index: 1 }));
    writeFileSync(path.join(run, 'rollouts.jsonl'), lines.join('\n') + '\n');
    const index = await CallscopeIndex.open([{ path: run }], path.join(tmp, 'idx'));
    await index.refresh();
    const runId = index.listRuns()[0].id;
    const walk = (order: 'asc' | 'desc') => {
      const keys: string[] = [];
      let cursor: string | undefined;
      do {
        const page = index.listRollouts(runId, { sort: 'rollout', order, limit: 4, cursor })!;
        keys.push(...page.rollouts.map((r) => r.key));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return keys;
    };
    const expected = [];
    for (let task = 0; task <= 10; task++) for (const rollout of [0, 1]) expected.push(`${task}-${rollout}`, ...(task === 2 && rollout === 0 ? ['2-0-a1'] : []));
    expected.push('line-23');
    expect(walk('asc')).toEqual(expected);
    expect(walk('desc')).toEqual([...expected].reverse());
    index.close();
  });
});
