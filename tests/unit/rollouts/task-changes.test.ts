// Compare's "tasks that changed": pairing by index or by name, what counts as a change and a crossing between solved
// and unsolved, the order (largest fall first), and that every paired task is either changed or unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taskChanges } from '@/lib/rollouts/task-changes';
import { taskGroups, type TaskRolloutRow } from '@/lib/rollouts/task-groups';

const groupsOf = (tasks: number[][], name = (i: number) => `task ${i}`, offset = 0) =>
  taskGroups(tasks.flatMap((rewards, i) => rewards.map((reward, j): TaskRolloutRow => ({ key: `${i + offset}-${j}`, agent: 'a', task_index: i + offset, rollout_index: j, reward, task: name(i), tokens_total: null, latency_ms: null }))))[0];

describe('tasks that changed', () => {
  it('pairs by task index, orders by change, and marks solved ↔ unsolved', () => {
    const a = groupsOf([[1, 1], [1, 0], [0, 0], [1, 0]]);
    const b = groupsOf([[0, 0], [1, 1], [1, 0], [1, 0]]);
    const c = taskChanges(a, b, 'index');
    expect(c.changes.map((x) => [x.a.task_index, x.delta, x.kind])).toEqual([[0, -100, 'newly_unsolved'], [1, 50, 'rose'], [2, 50, 'newly_solved']]);
    expect([c.paired, c.unchanged, c.only_a, c.only_b]).toEqual([4, 1, 0, 0]);
    expect(c.changes[1].b.best).toBe('1-0'); // the first rollout of the highest reward
  });

  it('pairs by name when the indices differ, and a name two tasks share pairs neither', () => {
    const a = groupsOf([[1], [0], [1]], (i) => ['alpha', 'beta', 'beta'][i]);
    const b = groupsOf([[0], [0]], (i) => ['beta', 'alpha'][i], 10);
    const c = taskChanges(a, b, 'task');
    expect(c.changes.map((x) => [x.task, x.a.task_index, x.b.task_index, x.kind])).toEqual([['alpha', 0, 11, 'newly_unsolved']]);
    expect(c.unpairable).toBe(2);
    expect(c.paired).toBe(1);
    expect(taskChanges(a, b, 'index').paired).toBe(0); // indices 0–2 against 10–11
  });

  it('every paired task is changed or unchanged, and changes are sorted by delta', () => {
    const groups = fc.array(fc.array(fc.constantFrom(0, 1, 0.5), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(groups, groups, (x, y) => {
        const c = taskChanges(groupsOf(x), groupsOf(y), 'index');
        expect(c.paired).toBe(Math.min(x.length, y.length));
        expect(c.changes.length + c.unchanged).toBe(c.paired);
        expect(c.changes.every((ch, i) => ch.delta !== 0 && (i === 0 || c.changes[i - 1].delta <= ch.delta + 1e-9))).toBe(true);
      }),
    );
  });
});
