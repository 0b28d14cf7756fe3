// A run's rows given as objects (how SQLite's index reads them) and as columns with each task's name computed apart
// (how the ClickHouse index reads them: a grouped query names each task by the first row it takes that has a name)
// give the same task groups, for any rows: several agents interleaved, rows without index or reward, unknown figures,
// names on some rows only, failures beside tasks. (The grouping itself is held to NeMo Gym's by task-groups.test.ts
// and pass-at-k.test.ts.)
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { taskGroups, taskGroupsOfColumns, type TaskRolloutColumns, type TaskRolloutRow } from '@/lib/rollouts/task-groups';

const row = fc.record({
  agent: fc.constantFrom(null, 'math', 'code'),
  task_index: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 8 }),
  rollout_index: fc.option(fc.integer({ min: 0, max: 6 }), { freq: 8 }),
  reward: fc.option(fc.oneof(fc.constantFrom(0, 1), fc.double({ min: -1, max: 2, noNaN: true })), { freq: 6 }),
  task: fc.option(fc.constantFrom('Solve 2 + 2.', 'Write a sort.', 'Prove it.'), { freq: 2 }),
  tokens_total: fc.option(fc.integer({ min: 0, max: 100_000 }), { freq: 4 }),
  latency_ms: fc.option(fc.double({ min: 0, max: 1e5, noNaN: true }), { freq: 4 }),
});

/** Rows in the order both indexes read them: task, then rollout index, rows without either first (stable). */
function ordered(rows: Omit<TaskRolloutRow, 'key'>[]): TaskRolloutRow[] {
  const key = (v: number | null) => (v === null ? -Infinity : v);
  return rows
    .map((r, i) => ({ ...r, key: `r${i}` }))
    .sort((a, b) => key(a.task_index) - key(b.task_index) || key(a.rollout_index) - key(b.rollout_index));
}

function columns(rows: TaskRolloutRow[]): TaskRolloutColumns {
  return {
    key: rows.map((r) => r.key), agent: rows.map((r) => r.agent), task_index: rows.map((r) => r.task_index), rollout_index: rows.map((r) => r.rollout_index),
    reward: rows.map((r) => r.reward), tokens_total: rows.map((r) => r.tokens_total), latency_ms: rows.map((r) => r.latency_ms),
  };
}

/** Each task's name as a database gives it: that of the first row it takes that has one. */
function names(rows: TaskRolloutRow[]): (agent: string | null, taskIndex: number) => string | null {
  const first = new Map<string, string>();
  for (const r of rows) {
    if (r.task === null || r.task_index === null || r.rollout_index === null || r.reward === null) continue;
    const id = `${r.agent}\u0000${r.task_index}`;
    if (!first.has(id)) first.set(id, r.task);
  }
  return (agent, taskIndex) => first.get(`${agent}\u0000${taskIndex}`) ?? null;
}

describe('task groups from columns', () => {
  it('are the groups from rows, to the last figure and in the same order', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), fc.array(fc.record({ agent: fc.constantFrom(null, 'math'), task_index: fc.option(fc.integer({ min: 0, max: 5 })) }), { maxLength: 4 }), (raw, failures) => {
        const rows = ordered(raw);
        expect(JSON.stringify(taskGroupsOfColumns(columns(rows), names(rows), failures))).toBe(JSON.stringify(taskGroups(rows, failures)));
      }),
      { numRuns: 300 },
    );
  });

  it('a name the rows do not carry is not invented; no rows, no agents', () => {
    const rows = ordered([{ agent: null, task_index: 0, rollout_index: 0, reward: 1, task: null, tokens_total: null, latency_ms: null }]);
    const [agent] = taskGroupsOfColumns(columns(rows), names(rows));
    expect(agent.tasks[0].task).toBeNull();
    expect(agent.tasks[0].tokens).toEqual({ min: null, max: null, mean: null, unknown: 1 });
    expect(taskGroupsOfColumns(columns([]), () => 'x')).toEqual([]);
  });
});
