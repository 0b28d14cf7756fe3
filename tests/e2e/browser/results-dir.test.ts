// `callscope serve results/` over a results directory laid out as `gym eval run --output results/x_rollouts.jsonl
// ++model_call_capture_dir=results/model-calls` and `gym eval profile` leave it, with a retry file captured into the
// same dir, the same tasks run by another policy, and other tasks under the same indices: what the pages say. The
// reward profile is the run's task profile (its figures the file's), not a run; the shared capture dir is explained
// on both runs and by serve; compare pairs tasks only for the runs over the same tasks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, expectClean, type TrackedPage } from '../../support/browser';
import { rolloutRows, writeGymEvalRun } from '../../support/results-dir';
import type { Served } from '../../support/server';
import { closeSession, openSession, type Session } from '../../support/session';

let session: Session;
let served: Served;
let t: TrackedPage;
let results = '';

const fixture = (name: string) => path.join(import.meta.dirname, '../../fixtures/nemo-gym', name);
const STRING_MATCH = fixture('string_match.jsonl');

beforeAll(async () => {
  session = await openSession('results-dir', (dir) => {
    results = path.join(dir, 'results');
    writeGymEvalRun(results, 'x_rollouts', STRING_MATCH, { captureDir: 'model-calls', profile: true });
    writeGymEvalRun(results, 'x_rollouts_retry', STRING_MATCH, { captureDir: 'model-calls', edit: (r) => ({ ...r, _ng_attempt_index: 1 }) });
    const inputs = path.join(results, 'x_rollouts_materialized_inputs.jsonl');
    writeGymEvalRun(path.join(results, 'policy-b'), 'x_rollouts', STRING_MATCH, { inputsFrom: inputs, edit: (r) => ({ ...r, reward: (r.reward as number) / 2 }) });
    writeGymEvalRun(path.join(results, 'other'), 'y_rollouts', fixture('hermes_agent_math.jsonl'));
    return [results];
  });
  ({ served, t } = session);
}, 400_000);

afterAll(() => closeSession(session));

interface Run {
  id: string;
  rollouts_file: string | null;
  capture_dir: string | null;
  capture_dir_note: string | null;
  reward_profile_file: string | null;
}

describe('a NeMo Gym results dir', () => {
  it('serve lists the rollouts files as runs (not the profile), and says which run the shared capture dir went to', async () => {
    const { runs } = await apiJson<{ runs: Run[] }>(served.url, '/api/runs');
    expect(runs.map((r) => r.id).sort()).toEqual(['other-y_rollouts', 'policy-b-x_rollouts', 'x_rollouts', 'x_rollouts_retry']);
    const x = runs.find((r) => r.id === 'x_rollouts')!;
    expect(x.capture_dir).toBe(path.join(results, 'model-calls'));
    expect(x.reward_profile_file).toBe(path.join(results, 'x_rollouts_reward_profiling.jsonl'));
    const retry = runs.find((r) => r.id === 'x_rollouts_retry')!;
    expect(retry.capture_dir).toBeNull();
    expect(retry.capture_dir_note).toMatch(/^The capture dir model-calls beside this file holds 5 of 5 sampled rollout ids of this run, but it is paired with run x_rollouts /);
    const log = served.output();
    expect(log).toContain(`callscope: capture dir ${path.join(results, 'model-calls')}: paired with ${path.join(results, 'x_rollouts.jsonl')} (5 of 5 sampled rollout ids), not with ${path.join(results, 'x_rollouts_retry.jsonl')}`);
    expect(log).not.toContain('reward_profiling');
  });

  it("the run page shows the task profile, its figures the file's, and both runs explain the shared capture dir", async () => {
    t.reset();
    await t.goto('/runs/x_rollouts');
    const card = t.page.getByRole('region', { name: 'Task profile' });
    await card.waitFor();
    const lines = readFileSync(path.join(results, 'x_rollouts_reward_profiling.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    await expect.poll(() => card.getByRole('row').count()).toBe(lines.length + 1);
    const header = await card.getByRole('columnheader').allTextContents();
    expect(header).toEqual(['task', 'name', 'rollouts', 'mean reward', 'std', 'min', 'max']);
    for (const [i, l] of lines.entries()) {
      const cells = card.getByRole('row').nth(i + 1).getByRole('cell');
      const text = await cells.allTextContents();
      expect(text[0]).toBe(String(l._ng_task_index));
      expect(text[2]).toBe(String(l.num_rollouts));
      const titles = await Promise.all([3, 4, 5, 6].map((j) => cells.nth(j).getAttribute('title')));
      expect(titles.map(Number)).toEqual([l['mean/reward'], l['std/reward'], l['min/reward'], l['max/reward']]);
    }
    await expect.poll(() => card.textContent()).toMatch(/5 tasks, 5 rollouts of 5 expected/);
    await expect.poll(() => t.page.getByRole('note', { name: 'Capture dir' }).textContent()).toMatch(/^The capture dir model-calls is paired with this run \(5 of 5 sampled rollout ids\); it also holds rollout ids of run x_rollouts_retry/);
    await t.goto('/runs/x_rollouts_retry');
    await expect.poll(() => t.page.getByRole('note', { name: 'Capture dir' }).textContent()).toMatch(/but it is paired with run x_rollouts \(x_rollouts\.jsonl, 5 of 5 sampled rollout ids\): a capture dir belongs to one run/);
    expect(await t.page.getByRole('region', { name: 'Task profile' }).count()).toBe(0);
    await expectClean(t);
  }, 60_000);

  it('compare over other tasks under the same indices says the tasks are unrelated and shows no task deltas', async () => {
    t.reset();
    await t.goto('/compare?runs=x_rollouts,other-y_rollouts');
    const tasks = t.page.getByRole('region', { name: 'Paired by task' });
    await expect.poll(() => tasks.textContent()).toMatch(/Unrelated tasks: no line names its task .* no task is paired\./);
    expect(await tasks.getByRole('table').count()).toBe(0);
    expect(await t.page.getByRole('navigation', { name: 'sort tasks' }).count()).toBe(0);
    await expectClean(t);
  }, 60_000);

  it('compare over the same tasks pairs them with their deltas; a wide table scrolls in its card and its headers name the runs in full', async () => {
    t.reset();
    await t.page.setViewportSize({ width: 760, height: 900 });
    try {
      await t.goto('/compare?runs=x_rollouts,policy-b-x_rollouts');
      const tasks = t.page.getByRole('region', { name: 'Paired by task' });
      await expect.poll(() => tasks.textContent()).toMatch(/Same tasks: the runs were collected from identical materialized inputs files/);
      const rows = rolloutRows(STRING_MATCH).sort((a, b) => (a._ng_task_index as number) - (b._ng_task_index as number));
      await expect.poll(() => tasks.getByRole('row').count()).toBe(rows.length + 1);
      for (const [i, r] of rows.entries()) {
        const cells = tasks.getByRole('row').nth(i + 1).getByRole('cell');
        expect(await cells.first().textContent()).toBe(String(r._ng_task_index));
        const reward = r.reward as number;
        expect(Number(await cells.last().getAttribute('title'))).toBe(reward / 2 - reward);
      }
      const header = tasks.getByRole('columnheader', { name: 'policy-b-x_rollouts mean reward' });
      expect(await header.getAttribute('title')).toBe('policy-b-x_rollouts mean reward');
      expect(await header.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true); // wrapped, not cut
      const scroller = tasks.getByRole('table').locator('..');
      expect(await scroller.evaluate((el) => getComputedStyle(el).overflowX)).toBe('auto');
      expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      expect(await t.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await expectClean(t);
    } finally {
      await t.page.setViewportSize({ width: 1440, height: 900 });
    }
  }, 60_000);
});
