// A rollouts file with lines that cannot be read (not JSON, not an object, a bad rollout id) next to good ones:
// every line is listed, the damaged ones say so and why, on the runs page, in the rollouts table, in the run's
// header and on the rollout's own page, with zero page errors.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, expectClean, type TrackedPage } from '../../support/browser';
import type { Served } from '../../support/server';
import { closeSession, openSession, type Session } from '../../support/session';

let session: Session;
let served: Served;
let t: TrackedPage;

const LINES = [
  '{"reward": 1.0, "task_id": "good-1", "_ng_task_index": 0, "_ng_rollout_index": 0}',
  '{"reward": 0.5, "task_id": "torn", "respo',
  '[1, 2, 3]',
  '{"reward": 0.0, "task_id": "bad-id", "_ng_rollout_id": "../etc"}',
  '{"reward": NaN, "task_id": "good-3"}',
];

beforeAll(async () => {
  session = await openSession('damaged', (dir) => {
    writeFileSync(path.join(dir, 'damaged.jsonl'), LINES.join('\n') + '\n');
    return [path.join(dir, 'damaged.jsonl')];
  });
  ({ served, t } = session);
});

afterAll(() => closeSession(session));

interface Row {
  key: string;
  line_no: number;
  line_problem: string | null;
}

describe('unreadable rollout lines', () => {
  it('the API lists every line, the unreadable ones with why (json.loads reads NaN, so that line is fine)', async () => {
    const { runs } = await apiJson<{ runs: { id: string; totals: { rollouts: number; line_problems: number } }[] }>(served.url, '/api/runs');
    expect(runs).toEqual([expect.objectContaining({ id: 'damaged', totals: expect.objectContaining({ rollouts: 5, line_problems: 3 }) })]);
    const { rollouts } = await apiJson<{ rollouts: Row[] }>(served.url, '/api/runs/damaged/rollouts?sort=rollout&order=asc');
    const byLine = Object.fromEntries(rollouts.map((r) => [r.line_no, r.line_problem]));
    expect(byLine[1]).toBeNull();
    expect(byLine[2]).toMatch(/^not JSON: /);
    expect(byLine[3]).toBe('not a JSON object');
    expect(byLine[4]).toMatch(/^_ng_rollout_id must be a string of letters, digits, dots, dashes or underscores .*; got '\.\.\/etc'$/);
    expect(byLine[5]).toBeNull();
  });

  it('the runs page, the rollouts table and the run header count and mark them', async () => {
    t.reset();
    await t.goto('/');
    await t.page.getByRole('row', { name: 'run damaged' }).getByText('(3 unreadable)').waitFor();
    // The count links to the run's rollouts filtered to those lines; the filter is in the URL and the controls.
    await t.page.getByRole('row', { name: 'run damaged' }).getByRole('link', { name: '(3 unreadable)' }).click();
    await t.page.waitForURL(/\/runs\/damaged\?line_problem=true$/);
    await t.page.getByText(/^3 rollouts match$/).waitFor();
    await expect.poll(() => t.page.getByLabel('Line').inputValue()).toBe('true');
    await t.goto('/runs/damaged');
    await t.page.getByText(/^5 \(3 unreadable lines\)$/).waitFor();
    const badges = t.page.getByRole('table').getByText('unreadable', { exact: true });
    await expect.poll(() => badges.count()).toBe(3);
    expect(await badges.first().getAttribute('title')).toMatch(/^Line \d could not be read: /);
    await expectClean(t);
  });

  it("the rollout page of a damaged line says which line of which file, and why", async () => {
    t.reset();
    const res = await t.goto('/runs/damaged/rollouts/line-2');
    expect(res.status()).toBe(200);
    const alert = t.page.getByRole('alert').filter({ hasText: 'could not be read' });
    await expect.poll(() => alert.textContent()).toMatch(/^Line 2 of the rollouts file could not be read: not JSON: .+\. It is listed so that no line goes missing; nothing else could be read from it\.$/);
    // A line whose id NeMo Gym rejects was read otherwise: its reward is there.
    await t.goto('/runs/damaged/rollouts/line-4');
    await expect.poll(() => alert.textContent()).toMatch(/^Line 4 of the rollouts file could not be read: _ng_rollout_id must be .+ its other fields are shown as read\.$/);
    await expectClean(t);
  });
});
