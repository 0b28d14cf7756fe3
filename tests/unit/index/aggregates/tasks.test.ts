// Task groups read from the index over rollouts files shaped as NeMo Gym writes them (key order of a simple-agent
// verify response, the collector's stamps appended, lines in completion order, a `_failures` sidecar): grouped the way
// the collector's aggregation groups them, with the metrics worked out by hand from upstream's definition.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { loadTasksPage } from '../../../../lib/index/queries/tasks-page';
import { bestFirst } from '../../../../lib/rollouts/task-groups';
import { taskChanges } from '../../../../lib/rollouts/task-changes';
import { passMajorityMetrics } from '../../../../lib/rollouts/pass-at-k';
import { writeGymEvalRun } from '../../../support/results-dir';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-tasks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = (name: string) => path.join(import.meta.dirname, '../../../fixtures/nemo-gym', name);

/** A rollout line in NeMo Gym's key order: the verify response, then the collector's stamps. */
function line(task: number, rollout: number, reward: number, agent = 'math_simple_agent', extra: Record<string, unknown> = {}): string {
  const question = `What is ${task} + ${task}?`;
  const body = {
    responses_create_params: { input: [{ role: 'user', content: question }] },
    response: { id: `resp_${task}_${rollout}`, output: [], usage: { input_tokens: 10 + task, output_tokens: 5 + rollout, total_tokens: 15 + task + rollout } },
    reward,
    expected_answer: String(2 * task),
    _ng_task_index: task,
    _ng_rollout_index: rollout,
    agent_ref: { name: agent },
    ...extra,
  };
  // Python writes 1.0 for a float reward: keep the float text, as the real files do.
  return JSON.stringify(body).replace(/"reward":(-?\d+)(,|})/, '"reward":$1.0$2') + '\n';
}

async function tasksOf(name: string, write: (dir: string) => void) {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  write(dir);
  const index = await CallscopeIndex.open([{ path: dir }], path.join(tmp, `idx-${name}`));
  await index.refresh();
  return index;
}

describe('task groups', () => {
  it('groups by task in rollout-index order whatever the completion order, with pass@k as NeMo Gym computes it', async () => {
    // Task 0: rewards by rollout index [1, 0, 0, 1]; task 1: [0, 0, 0, 0]; task 2: [1, 1, 1] (a partial group).
    const lines = [line(2, 1, 1), line(0, 3, 1), line(1, 0, 0), line(0, 0, 1), line(2, 0, 1), line(1, 2, 0), line(0, 1, 0), line(1, 1, 0), line(0, 2, 0), line(1, 3, 0), line(2, 2, 1)];
    const index = await tasksOf('order', (d) => writeFileSync(path.join(d, 'x_rollouts.jsonl'), lines.join('')));
    try {
      const page = index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 100 })!;
      expect(page.agents).toHaveLength(1);
      const [a] = page.agents;
      expect(a.agent).toBe('math_simple_agent');
      expect(a.max_k).toBe(4);
      expect(a.tasks.map((t) => [t.task_index, t.rewards])).toEqual([[0, [1, 0, 0, 1]], [1, [0, 0, 0, 0]], [2, [1, 1, 1]]]);
      expect(a.tasks[0].rollout_ids).toEqual(['0-0', '0-1', '0-2', '0-3']);
      // By hand: pass@1 = mean(1 − 2/4, 0, 1 − 0/3) = 50 %; pass@2 = mean(1 − C(2,2)/C(4,2), 0, 1) = (5/6 + 1) / 3;
      // pass@4 has task 0 (1: only 2 incorrect) and task 1 (0): 50 %; task 2 has 3 rollouts and is left out of it.
      expect(a.metrics['pass@1/accuracy']).toBe(50);
      expect(a.metrics['pass@2/accuracy']).toBeCloseTo((100 * (5 / 6 + 1)) / 3, 12);
      expect(a.metrics['pass@4/accuracy']).toBe(50);
      // pass@1[avg-of-1] takes each task's first rollout: (1 + 0 + 1) / 3.
      expect(a.metrics['pass@1[avg-of-1]/accuracy']).toBeCloseTo(200 / 3, 12);
      expect(a.metrics).toEqual(passMajorityMetrics([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1]]).metrics);
      // Per task: sample std, zero variance, solved, partial, pass@k up to the group's size.
      const [t0, t1, t2] = a.tasks;
      expect(t0.reward_std).toBeCloseTo(Math.sqrt(1 / 3), 12); // mean 0.5, Σ(x−m)² = 1, n − 1 = 3
      expect([t0.zero_variance, t1.zero_variance, t2.zero_variance]).toEqual([false, true, true]);
      expect([t0.solved, t1.solved, t2.solved]).toEqual(['some', 'never', 'always']);
      expect([t0.partial, t1.partial, t2.partial]).toEqual([false, false, true]);
      expect(t0['pass@k']).toEqual({ 1: 50, 2: 100 * (1 - 1 / 6), 3: 100, 4: 100 });
      expect(Object.keys(t2['pass@k'])).toEqual(['1', '2', '3']);
      expect(t1.task).toBe('What is 1 + 1?');
      // Tokens: no capture dir, so each rollout's line usage (total_tokens = 15 + task + rollout).
      expect(t1.tokens).toEqual({ min: 16, max: 19, mean: 17.5, unknown: 0 });
    } finally {
      index.close();
    }
  });

  it('two agents in one file: one set of groups and metrics per agent, in order of first appearance', async () => {
    const lines = [line(0, 0, 1, 'b_agent'), line(0, 0, 0, 'a_agent'), line(0, 1, 1, 'a_agent'), line(1, 0, 1, 'b_agent'), line(0, 1, 1, 'b_agent')];
    const index = await tasksOf('agents', (d) => writeFileSync(path.join(d, 'x_rollouts.jsonl'), lines.join('')));
    try {
      const page = index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 100 })!;
      // Sorted by (task, rollout): 0-0 (b, first in the file) comes before 0-0 (a).
      expect(page.agents.map((a) => a.agent)).toEqual(['b_agent', 'a_agent']);
      expect(page.agents[0].tasks.map((t) => t.rewards)).toEqual([[1, 1], [1]]);
      expect(page.agents[1].tasks.map((t) => t.rewards)).toEqual([[0, 1]]);
      expect(page.agents[1].metrics['pass@1[avg-of-1]/accuracy']).toBe(0);
      const only = index.tasks('x_rollouts', { agent: 'a_agent', sort: 'task', order: 'asc', limit: 100 })!;
      expect(only.agents.map((a) => a.agent)).toEqual(['a_agent']);
    } finally {
      index.close();
    }
  });

  it('sidecar failures are counted beside their task, never in it; a resumed attempt (-a1) that succeeded counts once', async () => {
    const main = [line(0, 0, 1), line(0, 1, 0, 'math_simple_agent', { _ng_attempt_index: 1 }), line(1, 0, 0), line(1, 1, 0)];
    const failures = [line(0, 1, 0, 'math_simple_agent', { _ng_failure_class: 'agent_error' }), line(1, 0, 0, 'math_simple_agent', { _ng_failure_class: 'timeout' })];
    const index = await tasksOf('failures', (d) => {
      writeFileSync(path.join(d, 'x_rollouts.jsonl'), main.join(''));
      writeFileSync(path.join(d, 'x_rollouts_failures.jsonl'), failures.join(''));
    });
    try {
      const [a] = index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 100 })!.agents;
      expect(a.tasks.map((t) => [t.task_index, t.rollouts, t.failed_attempts])).toEqual([[0, 2, 1], [1, 2, 1]]);
      expect(a.tasks[0].rollout_ids).toEqual(['0-0', '0-1-a1']);
      expect(a.metrics['pass@1/accuracy']).toBe(25);
      const detail = index.task('x_rollouts', 'math_simple_agent', 0)!;
      expect(detail.rollouts.map((r) => [r.key, r.reward])).toEqual([['0-0', 1], ['0-1-a1', 0]]); // best to worst
      expect(detail.failures.map((f) => [f.key, f.failure_class])).toEqual([['0-1', 'agent_error']]);
      expect(index.tasks('x_rollouts', { failed: true, sort: 'task', order: 'asc', limit: 100 })!.agents[0].matching_tasks).toBe(2);
    } finally {
      index.close();
    }
  });

  it('lines NeMo Gym would not aggregate are left out and counted', async () => {
    const noReward = JSON.stringify({ responses_create_params: { input: 'q' }, response: { output: [] }, _ng_task_index: 0, _ng_rollout_index: 2, agent_ref: { name: 'math_simple_agent' } }) + '\n';
    const noIndex = JSON.stringify({ responses_create_params: { input: 'q' }, response: { output: [] }, reward: 1.0, agent_ref: { name: 'math_simple_agent' } }) + '\n';
    const index = await tasksOf('left-out', (d) => writeFileSync(path.join(d, 'x_rollouts.jsonl'), [line(0, 0, 1), line(0, 1, 0), noReward, noIndex].join('')));
    try {
      const [a] = index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 100 })!.agents;
      expect(a.tasks.map((t) => t.rewards)).toEqual([[1, 0]]);
      expect(a.left_out).toEqual({ no_reward: 1, no_index: 1 });
    } finally {
      index.close();
    }
  });

  it('sorts, filters and pages: every task once across pages, in order', async () => {
    const lines: string[] = [];
    for (let t = 0; t < 25; t++) for (let r = 0; r < 4; r++) lines.push(line(t, r, (t * 7 + r * 3) % 5 === 0 ? 1 : 0));
    const index = await tasksOf('pages', (d) => writeFileSync(path.join(d, 'x_rollouts.jsonl'), lines.join('')));
    try {
      const seen: number[] = [];
      let cursor: string | undefined;
      const means: number[] = [];
      do {
        const page = index.tasks('x_rollouts', { sort: 'reward_mean', order: 'desc', limit: 7, cursor })!;
        seen.push(...page.agents[0].tasks.map((t) => t.task_index));
        means.push(...page.agents[0].tasks.map((t) => t.reward_mean));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect([...seen].sort((x, y) => x - y)).toEqual([...Array(25).keys()]);
      expect(means).toEqual([...means].sort((x, y) => y - x));
      const zero = index.tasks('x_rollouts', { zero_variance: true, sort: 'task', order: 'asc', limit: 100 })!.agents[0];
      expect(zero.tasks.every((t) => new Set(t.rewards).size === 1)).toBe(true);
      expect(zero.matching_tasks).toBe(zero.tasks.length);
      expect(zero.total_tasks).toBe(25);
      expect(() => index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 5, cursor: 'nope' })).toThrow(/cursor/);
    } finally {
      index.close();
    }
  });

  it("a NeMo Gym fixture's groups hold every persisted line once", async () => {
    const index = await tasksOf('fixture', (d) => writeGymEvalRun(d, 'x_rollouts', fixture('tau2.jsonl'), { failures: true }));
    try {
      const [a] = index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 1000 })!.agents;
      const run = index.listRuns()[0];
      const keys = a.tasks.flatMap((t) => t.rollout_ids);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBe(run.totals.rollouts - 1); // the sidecar's one failure row is not in a group
      expect(a.tasks.reduce((n, t) => n + t.failed_attempts, 0)).toBe(1);
      expect(a.left_out).toEqual({ no_reward: 0, no_index: 0 });
    } finally {
      index.close();
    }
  });

  it('lines without indices (NeMo Gym\'s mcqa example file): no groups, every line counted as left out', async () => {
    const index = await tasksOf('no-indices', (d) => writeGymEvalRun(d, 'x_rollouts', fixture('mcqa.jsonl')));
    try {
      const page = index.tasks('x_rollouts', { sort: 'task', order: 'asc', limit: 1000 })!;
      expect(page.agents.map((a) => [a.agent, a.tasks.length, a.left_out])).toEqual([[null, 0, { no_reward: 0, no_index: 5 }]]);
      expect(page.agents[0].metrics).toEqual({});
    } finally {
      index.close();
    }
  });

  it("compare never builds a large run's groups in its request: pending until the background build, then the changed tasks", async () => {
    const dir = path.join(tmp, 'compare-pending');
    for (const [sub, flip] of [['a', 0], ['b', 1]] as const) {
      mkdirSync(path.join(dir, sub), { recursive: true });
      writeFileSync(path.join(dir, sub, 'x_rollouts.jsonl'), [line(0, 0, 1), line(0, 1, flip), line(1, 0, 0), line(1, 1, 0)].join(''));
    }
    // A fresh process over a built index: no pass has run yet, so no groups are built.
    const built = await CallscopeIndex.open([{ path: dir }], path.join(tmp, 'idx-compare-pending'));
    await built.refresh();
    built.close();
    const index = await CallscopeIndex.open([{ path: dir }], path.join(tmp, 'idx-compare-pending'), { compareTaskRows: 2 });
    try {
      const first = index.compare(['a-x_rollouts', 'b-x_rollouts'])!;
      expect(first.pass_at_k.map((p) => p.pending)).toEqual([true, true]);
      expect(first.task_changes).toBeNull();
      await index.tasksBuilt();
      const next = index.compare(['a-x_rollouts', 'b-x_rollouts'])!;
      expect(next.pass_at_k.map((p) => p.pending)).toEqual([false, false]);
      expect(next.task_changes!.changes.map((c) => [c.a.task_index, c.delta])).toEqual([[0, 50]]);
    } finally {
      index.close();
    }
  });
});

describe('one best rollout, one set of groups per request', () => {
  it("a task's best is the same everywhere: its rollouts best first, the rollout page's best other, a changed task's link", async () => {
    // Task 0 by rollout index: rewards [0, 1, 1, 0]; the sidecar's failed attempt of rollout 0 also got reward 1.
    const main = [line(0, 3, 0), line(0, 1, 1), line(0, 0, 0), line(0, 2, 1), line(1, 0, 0), line(1, 1, 0)];
    const failures = [line(0, 0, 1, 'math_simple_agent', { _ng_failure_class: 'agent_error' })];
    const index = await tasksOf('best', (d) => {
      writeFileSync(path.join(d, 'x_rollouts.jsonl'), main.join(''));
      writeFileSync(path.join(d, 'x_rollouts_failures.jsonl'), failures.join(''));
    });
    try {
      const detail = index.task('x_rollouts', 'math_simple_agent', 0)!;
      // the highest reward, then the lowest rollout index; ties of reward keep rollout order
      expect(detail.rollouts.map((r) => r.key)).toEqual(['0-1', '0-2', '0-0', '0-3']);
      expect(bestFirst(detail.group)).toEqual(['0-1', '0-2', '0-0', '0-3']);
      // the best other rollout: a persisted one before the failed attempt of the same reward and a lower index
      expect(index.bestOfTask('x_rollouts', '0-0')).toEqual({ key: '0-1', reward: 1 });
      expect(index.bestOfTask('x_rollouts', '0-2')).toEqual({ key: '0-1', reward: 1 });
      expect(index.bestOfTask('x_rollouts', '0-1')).toEqual({ key: '0-2', reward: 1 }); // never itself
      const failed = index.listRollouts('x_rollouts', { sort: 'rollout', order: 'asc', limit: 100 })!.rollouts.find((r) => r.failure_class !== null)!;
      expect(index.bestOfTask('x_rollouts', failed.key)).toEqual({ key: '0-1', reward: 1 });
      // a changed task links to its best rollout on each side
      const [a] = index.taskGroups('x_rollouts')!;
      const worse = { ...a, tasks: a.tasks.map((t) => ({ ...t, 'pass@k': { ...t['pass@k'], 1: 0 } })) };
      const change = taskChanges(worse, a, 'index').changes.find((c) => c.a.task_index === 0)!;
      expect(change.b.best).toBe('0-1');
    } finally {
      index.close();
    }
  });

  it('while a pass is under way the groups are built for each read and kept by none; the Tasks page reads them once', async () => {
    const index = await tasksOf('live', (d) => writeGymEvalRun(d, 'x_rollouts', fixture('anyswe_claude_code.jsonl'), { failures: true }));
    try {
      const kept = index.taskGroups('x_rollouts');
      expect(index.taskGroups('x_rollouts')).toBe(kept); // a ready run: built once, kept
      // A pass over the run is under way: the index has no version of its groups to keep them by.
      vi.spyOn(index as unknown as { taskVersion: () => string | null }, 'taskVersion').mockReturnValue(null);
      const first = index.taskGroups('x_rollouts');
      const second = index.taskGroups('x_rollouts');
      expect(first).not.toBe(second);
      expect(second).toEqual(first);
      expect(first).toEqual(kept);
      const reads = vi.spyOn(index, 'taskGroups');
      const data = (await loadTasksPage(index, 'x_rollouts', { sort: 'reward_mean', order: 'desc' }, 0, 100))!;
      expect(reads).toHaveBeenCalledTimes(1);
      // the open task, the sections and the figures all come from that one read
      const [section] = data.sections;
      expect(data.detail!.group).toBe(section.agent.tasks.find((t) => t.task_index === 0));
      expect(data.detail!.rollouts.map((r) => r.key)).toEqual(bestFirst(data.detail!.group));
      expect(data.detail!.failures).toHaveLength(1);
      expect(section.agent.tasks.reduce((n, t) => n + t.rollouts, 0)).toBe(5);
    } finally {
      vi.restoreAllMocks();
      index.close();
    }
  });
});
