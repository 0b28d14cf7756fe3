// The Tasks view and compare's changed tasks over a results dir shaped as NeMo Gym writes one: GRPO groups of
// NeMo Gym's string_match lines (its key order, float rewards, written in completion order), the collector's
// X_aggregate_metrics.json beside them, a copy with rollouts appended after that file, and a second policy over the
// same materialized inputs. What the pages say is checked against values upstream's own compute_pass_majority_metrics
// returned for these rewards (tests/fixtures/pass-at-k/cases.json), not against callscope's code.
import { readFileSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiJson, CLEAN, problems, settle, type TrackedPage } from '../../support/browser';
import { rolloutRows } from '../../support/results-dir';
import type { Served } from '../../support/server';
import { closeSession, openSession, type Session } from '../../support/session';

let session: Session;
let served: Served;
let t: TrackedPage;

const fixture = path.join(import.meta.dirname, '../../fixtures/nemo-gym/string_match.jsonl');
const reference = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../fixtures/pass-at-k/cases.json'), 'utf8')) as {
  cases: { name: string; tasks: number[][]; metrics: Record<string, number> }[];
};
const CASE = reference.cases.find((c) => c.name === 'binary, 3 tasks of 4')!; // [[1,0,0,1],[0,0,0,0],[1,1,1,1]]
const AGENT = 'string_match_simple_agent';
type Row = Record<string, unknown>;

/** orjson's line: compact, a float reward written with its `.0`. */
const lineOf = (r: Row) => JSON.stringify(r).replace(/"reward":(-?\d+)([,}])/, '"reward":$1.0$2') + '\n';

/** Groups of the fixture's first three tasks with these rewards by rollout index, in a shuffled completion order. */
function groupLines(rewards: number[][]): string[] {
  const base = rolloutRows(fixture).sort((a, b) => (a._ng_task_index as number) - (b._ng_task_index as number));
  const lines: { order: number; text: string }[] = [];
  rewards.forEach((group, task) =>
    group.forEach((reward, rollout) => {
      lines.push({ order: (task * 7 + rollout * 5) % 11, text: lineOf({ ...base[task], reward, _ng_task_index: task, _ng_rollout_index: rollout }) });
    }),
  );
  return lines.sort((a, b) => a.order - b.order).map((l) => l.text);
}

function aggregateFile(metrics: Record<string, number>, rewards: number[][]): string {
  const all = rewards.flat();
  return JSON.stringify(
    [
      {
        agent_ref: { name: AGENT },
        agent_metrics: { 'mean/reward': all.reduce((a, b) => a + b, 0) / all.length, ...metrics },
        key_metrics: { 'mean/reward': all.reduce((a, b) => a + b, 0) / all.length, 'pass@1/accuracy': metrics['pass@1/accuracy'], 'pass@4/accuracy': metrics['pass@4/accuracy'] },
        group_level_metrics: rewards.map((g, i) => ({ _ng_task_index: i, 'mean/reward': g.reduce((a, b) => a + b, 0) / g.length, num_rollouts: g.length })),
      },
    ],
    null,
    2,
  );
}

beforeAll(async () => {
  session = await openSession('tasks', (dir) => {
    const results = path.join(dir, 'results');
    for (const sub of ['', 'stale', 'policy-b']) mkdirSync(path.join(results, sub), { recursive: true });
    const write = (sub: string, lines: string[], aggregate: string) => {
      const file = path.join(results, sub, 'x_rollouts.jsonl');
      writeFileSync(file, lines.join(''));
      writeFileSync(path.join(results, sub, 'x_rollouts_aggregate_metrics.json'), aggregate);
      writeFileSync(path.join(results, sub, 'x_rollouts_materialized_inputs.jsonl'), '{"responses_create_params": {"input": "same"}}\n');
      return file;
    };
    const aggregate = aggregateFile(CASE.metrics, CASE.tasks);
    write('', groupLines(CASE.tasks), aggregate);
    // The stale copy: one more rollout of task 1 (reward 1) appended after the collector wrote its file.
    const stale = write('stale', [...groupLines(CASE.tasks), lineOf({ ...rolloutRows(fixture)[0], reward: 1, _ng_task_index: 1, _ng_rollout_index: 4 })], aggregate);
    const past = Date.now() / 1000 - 3600;
    utimesSync(path.join(results, 'stale', 'x_rollouts_aggregate_metrics.json'), past, past);
    utimesSync(stale, past + 60, past + 60);
    // Policy b: task 0 never solved any more, task 1 solved twice.
    const b = [[0, 0, 0, 0], [1, 0, 1, 0], [1, 1, 1, 1]];
    write('policy-b', groupLines(b), aggregateFile(CASE.metrics, b));
    return [results];
  });
  ({ served, t } = session);
}, 400_000);

afterAll(() => closeSession(session));

describe('the Tasks view', () => {
  it("headline pass@k equals NeMo Gym's own figures for these rewards, in the API and on the page", async () => {
    const page = await apiJson<{ agents: { agent: string; metrics: Record<string, number> }[] }>(served.url, '/api/runs/x_rollouts/tasks');
    expect(page.agents.map((a) => a.agent)).toEqual([AGENT]);
    expect(page.agents[0].metrics).toEqual(CASE.metrics);
    t.reset();
    await t.goto('/runs/x_rollouts/tasks');
    const section = t.page.getByRole('region', { name: `Tasks of ${AGENT}` });
    await section.waitFor();
    const figure = (label: string) => section.locator('dt', { hasText: new RegExp(`^${label.replace(/[[\]]/g, '\\$&')}$`) }).locator('xpath=following-sibling::dd');
    expect(await figure('pass@1').textContent()).toBe(`${CASE.metrics['pass@1/accuracy'].toFixed(2)} %`);
    expect(await figure('pass@4').textContent()).toBe(`${CASE.metrics['pass@4/accuracy'].toFixed(2)} %`);
    const avg = CASE.metrics['pass@1[avg-of-4]/accuracy'];
    const se = CASE.metrics['pass@1[avg-of-4]/accuracy/std_err_across_runs'];
    expect(await figure('pass@1[avg-of-4]').textContent()).toBe(`${avg.toFixed(2)} % ± ${se.toFixed(2)}`);
    expect(await figure('tasks').textContent()).toBe('3');
    await settle(t.page);
    expect(problems(t)).toEqual(CLEAN);
  }, 60_000);

  it('each task row says its group: rollouts, mean, per-task pass@1, one mark per rollout, zero variance', async () => {
    t.reset();
    await t.goto('/runs/x_rollouts/tasks');
    const table = t.page.getByRole('table', { name: `Tasks of ${AGENT}` });
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    for (const [i, rewards] of CASE.tasks.entries()) {
      const row = table.locator(`tr[data-task="${i}"]`);
      const cells = await row.getByRole('cell').allTextContents();
      const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
      const incorrect = rewards.filter((r) => r === 0).length;
      expect(cells[0]).toBe(`${i}${new Set(rewards).size === 1 ? 'ZV' : ''}`);
      expect(cells[3]).toBe(String(rewards.length));
      expect(cells[4]).toBe(mean.toFixed(3));
      expect(cells[8]).toBe(`${(100 * (1 - incorrect / rewards.length)).toFixed(2)} %`);
      expect(await row.getByRole('img').getAttribute('aria-label')).toBe(`rewards ${rewards.map((r) => r.toFixed(3)).join(', ')}`);
    }
    await t.page.getByRole('link', { name: /^zero variance/ }).click();
    await expect.poll(() => new URL(t.page.url()).searchParams.get('zero_variance')).toBe('true');
    await expect.poll(async () => (await table.locator('tr[data-task]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task')))).join(',')).toBe('1,2');
    await settle(t.page);
    expect(problems(t)).toEqual(CLEAN);
  }, 60_000);

  it('an open task lists its rollouts best to worst, each with diff-with-best; j opens the next task', async () => {
    t.reset();
    await t.goto('/runs/x_rollouts/tasks?open=0');
    const open = t.page.getByRole('table', { name: 'Rollouts of task 0' });
    await open.waitFor();
    const rows = await open.getByRole('row').allTextContents();
    expect(rows).toHaveLength(5);
    // Rewards [1, 0, 0, 1] by rollout index: best to worst is 0-0, 0-3 (reward 1), then 0-1, 0-2.
    const keys = await open.locator('td:nth-child(2)').allTextContents();
    expect(keys).toEqual(['0-0', '0-3', '0-1', '0-2']);
    const diff = await open.getByRole('link', { name: 'diff with best' }).first().getAttribute('href');
    expect(decodeURIComponent(diff!)).toBe('/diff?a=x_rollouts/0-0&b=x_rollouts/0-3');
    await t.page.keyboard.press('j');
    await expect.poll(() => new URL(t.page.url()).searchParams.get('open')).toBe('1');
    await t.page.getByRole('table', { name: 'Rollouts of task 1' }).waitFor();
    await settle(t.page);
    expect(problems(t)).toEqual(CLEAN);
  }, 60_000);

  it("NeMo Gym's aggregate file agrees where the rollouts file is what it aggregated, and says what changed where not", async () => {
    t.reset();
    await t.goto('/runs/x_rollouts/tasks');
    const card = t.page.getByRole('region', { name: "NeMo Gym's aggregate metrics" });
    await card.waitFor();
    const verdicts = await card.getByRole('table', { name: 'key metrics' }).locator('td:last-child').allTextContents();
    expect(verdicts.length).toBeGreaterThan(3);
    expect(new Set(verdicts)).toEqual(new Set(['agrees']));
    expect(await card.textContent()).toContain("3 tasks in the file, 3 here; every task's rollout count and mean reward agree");
    await t.goto('/runs/stale-x_rollouts/tasks');
    const stale = t.page.getByRole('region', { name: "NeMo Gym's aggregate metrics" });
    await stale.waitFor();
    const text = await stale.textContent();
    expect(text).toContain('The rollouts file changed after it was written');
    expect(text).toContain('task 1: file 4 rollouts, mean 0.000; here 5 rollouts, mean 0.200');
    const meanRow = stale.getByRole('row').filter({ hasText: 'mean/reward' });
    expect(await meanRow.locator('td:last-child').textContent()).toBe('differs');
    await settle(t.page);
    expect(problems(t)).toEqual(CLEAN);
  }, 60_000);
});

describe("compare's changed tasks", () => {
  it('lists the tasks whose pass@1 changed, largest fall first, with solved ↔ unsolved and the pair to diff', async () => {
    const c = await apiJson<{ task_changes: { pair_by: string; paired: number; unchanged: number; changes: { a: { task_index: number; pass_at_1: number; best: string }; b: { best: string }; delta: number; kind: string }[] } }>(served.url, '/api/compare?runs=x_rollouts,policy-b-x_rollouts');
    expect(c.task_changes.pair_by).toBe('index');
    expect(c.task_changes.paired).toBe(3);
    expect(c.task_changes.unchanged).toBe(1);
    // Task 0: pass@1 50 → 0 (solved → unsolved); task 1: 0 → 50 (unsolved → solved).
    expect(c.task_changes.changes.map((x) => [x.a.task_index, x.delta, x.kind])).toEqual([[0, -50, 'newly_unsolved'], [1, 50, 'newly_solved']]);
    t.reset();
    await t.goto('/compare?runs=x_rollouts,policy-b-x_rollouts');
    const card = t.page.getByRole('region', { name: 'Tasks whose pass@1 changed: x_rollouts → policy-b-x_rollouts' });
    await card.waitFor();
    expect(await card.textContent()).toContain('3 tasks paired by _ng_task_index: 1 fell (1 solved → unsolved), 1 rose (1 unsolved → solved), 1 unchanged.');
    const first = await card.getByRole('row').nth(1).getByRole('cell').allTextContents();
    expect(first[0]).toBe('0');
    expect(first[6]).toBe('-50.00');
    expect(first[7]).toBe('solved → unsolved');
    const diff = await card.getByRole('link', { name: 'diff best pair' }).first().getAttribute('href');
    expect(decodeURIComponent(diff!)).toBe('/diff?a=x_rollouts/0-0&b=policy-b-x_rollouts/0-0');
    const pass = t.page.getByRole('table', { name: 'pass@k by run' });
    const p1 = await pass.getByRole('row').filter({ hasText: /^pass@1\/accuracy/ }).getByRole('cell').allTextContents();
    expect(p1.slice(1)).toEqual([`${CASE.metrics['pass@1/accuracy'].toFixed(2)} %`, '50.00 %']);
    await settle(t.page);
    expect(problems(t)).toEqual(CLEAN);
  }, 60_000);
});
