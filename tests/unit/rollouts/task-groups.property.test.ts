// How rows become task groups, for any rows (several agents interleaved, rows without index or reward, unknown
// figures, names on some rows only, failures beside tasks), held to a plain statement of NeMo Gym's grouping written
// here; and the two forms the indexes use, rows as objects (SQLite's) and as columns with each task's name given apart
// (ClickHouse's: a grouped query names each task by the first row the group takes that has a name), give the same JSON.
// The figures of a group are held to NeMo Gym's own by task-groups.test.ts and pass-at-k.test.ts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { taskGroups, taskGroupsOfColumns, type TaskName, type TaskRolloutColumns, type TaskRolloutRow } from '@/lib/rollouts/task-groups';

const row = fc.record({
  agent: fc.constantFrom(null, 'math', 'code'),
  task_index: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 8 }),
  rollout_index: fc.option(fc.integer({ min: 0, max: 6 }), { freq: 8 }),
  reward: fc.option(fc.oneof(fc.constantFrom(0, 1), fc.double({ min: -1, max: 2, noNaN: true })), { freq: 6 }),
  task: fc.option(fc.constantFrom('Solve 2 + 2.', 'Write a sort.', 'Prove it.'), { freq: 2 }),
  tokens_total: fc.option(fc.integer({ min: 0, max: 100_000 }), { freq: 4 }),
  latency_ms: fc.option(fc.double({ min: 0, max: 1e5, noNaN: true }), { freq: 4 }),
});
const failure = fc.record({ agent: fc.constantFrom(null, 'math'), task_index: fc.option(fc.integer({ min: 0, max: 5 })) });

/** Rows in the order both indexes read them: task, then rollout index, rows without either first (stable). */
function ordered(rows: Omit<TaskRolloutRow, 'key'>[]): TaskRolloutRow[] {
  const key = (v: number | null) => (v === null ? -Infinity : v);
  return rows
    .map((r, i) => ({ ...r, key: `r${i}` }))
    .sort((a, b) => key(a.task_index) - key(b.task_index) || key(a.rollout_index) - key(b.rollout_index));
}

const taken = (r: TaskRolloutRow) => r.task_index !== null && r.rollout_index !== null && r.reward !== null;

describe('task groups', () => {
  it("are NeMo Gym's grouping: agents by first row, tasks by index, a task's rollouts in order, its name its first, left-out rows counted", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), fc.array(failure, { maxLength: 4 }), (raw, failures) => {
        const rows = ordered(raw);
        const groups = taskGroups(rows, failures);
        expect(groups.map((a) => a.agent)).toEqual([...new Set(rows.map((r) => r.agent))]);
        for (const a of groups) {
          const mine = rows.filter((r) => r.agent === a.agent);
          const indices = [...new Set(mine.filter(taken).map((r) => r.task_index!))].sort((x, y) => x - y);
          expect(a.tasks.map((t) => t.task_index)).toEqual(indices);
          for (const t of a.tasks) {
            const its = mine.filter((r) => taken(r) && r.task_index === t.task_index);
            expect(t.rollout_ids).toEqual(its.map((r) => r.key));
            expect(t.rewards).toEqual(its.map((r) => r.reward));
            expect(t.task).toBe(its.find((r) => r.task !== null)?.task ?? null);
            expect(t.tokens.unknown).toBe(its.filter((r) => r.tokens_total === null).length);
            expect(t.failed_attempts).toBe(failures.filter((f) => f.agent === a.agent && f.task_index === t.task_index).length);
          }
          expect(a.left_out).toEqual({
            no_index: mine.filter((r) => r.task_index === null || r.rollout_index === null).length,
            no_reward: mine.filter((r) => r.task_index !== null && r.rollout_index !== null && r.reward === null).length,
          });
          expect(a.counts.rollouts).toBe(mine.filter(taken).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("from columns with one name per task, as ClickHouse gives them, are the groups from rows", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), fc.array(failure, { maxLength: 4 }), (raw, failures) => {
        const rows = ordered(raw);
        const c: TaskRolloutColumns = {
          key: rows.map((r) => r.key), agent: rows.map((r) => r.agent), task_index: rows.map((r) => r.task_index), rollout_index: rows.map((r) => r.rollout_index),
          reward: rows.map((r) => r.reward), tokens_total: rows.map((r) => r.tokens_total), latency_ms: rows.map((r) => r.latency_ms),
        };
        // One row per (agent, task) that has any row, in no particular order, null where no row it takes has a name.
        const tasks = new Map<string, TaskName>();
        for (const r of rows.filter((r) => r.task_index !== null)) {
          const id = `${r.agent}\u0000${r.task_index}`;
          const name = tasks.get(id)?.[2] ?? (taken(r) ? r.task : null);
          tasks.set(id, [r.agent, r.task_index!, name]);
        }
        expect(JSON.stringify(taskGroupsOfColumns(c, [...tasks.values()].reverse(), failures))).toBe(JSON.stringify(taskGroups(rows, failures)));
      }),
      { numRuns: 300 },
    );
  });

  it('no rows, no agents, whatever the failures', () => {
    expect(taskGroupsOfColumns({ key: [], agent: [], task_index: [], rollout_index: [], reward: [], tokens_total: [], latency_ms: [] }, [[null, 0, 'x']], [{ agent: null, task_index: 0 }])).toEqual([]);
  });
});
