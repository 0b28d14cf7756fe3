// Compare pairs tasks by index only when the runs are over the same tasks: the same task names at the shared
// indices, or (no line naming its task) identical materialized inputs; otherwise it says why and pairs nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { rolloutRows, writeGymEvalRun } from '../../../support/results-dir';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-task-relation-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const fixture = (name: string) => path.join(import.meta.dirname, '../../../fixtures/nemo-gym', name);

type Row = Record<string, unknown>;

/** Two runs, `a-x_rollouts` and `b-x_rollouts`, under one root; compared in that order. */
async function compareTwo(name: string, a: (dir: string) => void, b: (dir: string) => void) {
  const root = path.join(tmp, name);
  a(path.join(root, 'a'));
  b(path.join(root, 'b'));
  const index = await CallscopeIndex.open([{ path: root }], path.join(tmp, `idx-${name}`));
  await index.refresh();
  try {
    return index.compare(['a-x_rollouts', 'b-x_rollouts'])!;
  } finally {
    index.close();
  }
}

const halveRewards = (r: Row): Row => ({ ...r, reward: (r.reward as number) / 2 });

describe("compare's same-task decision", () => {
  it('the same task names at the shared indices (tau2: task.id): same tasks, paired, with their deltas', async () => {
    const c = await compareTwo(
      'named-same',
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('tau2.jsonl')),
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('tau2.jsonl'), { edit: halveRewards }),
    );
    expect(c.task_relation).toEqual({ same: true, basis: 'task_names', reason: 'Same tasks: the runs name the same task at each of the 5 shared task indices compared.' });
    const rows = rolloutRows(fixture('tau2.jsonl'));
    expect(c.tasks.map((t) => t.task_index)).toEqual(rows.map((r) => r._ng_task_index as number).sort((x, y) => x - y));
    for (const t of c.tasks) {
      const reward = rows.find((r) => r._ng_task_index === t.task_index)!.reward as number;
      expect(t.delta_reward).toBeCloseTo(reward / 2 - reward, 9);
    }
  });

  it('another task under the same index: unrelated, naming the index and both tasks, and nothing paired', async () => {
    const c = await compareTwo(
      'named-different',
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('tau2.jsonl')),
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('tau2.jsonl'), { edit: (r) => (r._ng_task_index === 37 ? { ...r, task: { ...(r.task as Row), id: 'other-task' } } : r) }),
    );
    expect(c.task_relation).toEqual({
      same: false,
      basis: 'task_names',
      reason: 'Unrelated tasks: task 37 is "37" in a-x_rollouts but "other-task" in b-x_rollouts, so equal task indices are not the same task and no task is paired.',
    });
    expect(c.tasks).toEqual([]);
  });

  it('lines that name no task (string_match) from identical materialized inputs: same tasks', async () => {
    let inputs = '';
    const c = await compareTwo(
      'inputs-same',
      (d) => (inputs = path.join(d, 'x_rollouts_materialized_inputs.jsonl')) && writeGymEvalRun(d, 'x_rollouts', fixture('string_match.jsonl')),
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('string_match.jsonl'), { edit: halveRewards, inputsFrom: inputs }),
    );
    expect(c.task_relation.same).toBe(true);
    expect(c.task_relation.basis).toBe('inputs_file');
    expect(c.tasks.map((t) => t.task_index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('lines that name no task over different inputs (string_match against hermes math, both tasks 0-4): unrelated, nothing paired', async () => {
    const c = await compareTwo(
      'inputs-different',
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('string_match.jsonl')),
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('hermes_agent_math.jsonl')),
    );
    expect(c.task_relation).toMatchObject({ same: false, basis: null });
    expect(c.task_relation.reason).toMatch(/^Unrelated tasks: no line names its task/);
    expect(c.tasks).toEqual([]);
  });

  it('one run naming its tasks and the other not: unrelated', async () => {
    const c = await compareTwo(
      'named-unnamed',
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('string_match.jsonl'), { edit: (r) => ({ ...r, task_id: `t${r._ng_task_index}` }) }),
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('string_match.jsonl')),
    );
    expect(c.task_relation.same).toBe(false);
    expect(c.task_relation.reason).toMatch(/^Unrelated tasks: task 0 is "t0" in a-x_rollouts but unnamed in b-x_rollouts/);
    expect(c.tasks).toEqual([]);
  });

  it('no shared task index, and a single run: nothing to pair, said so', async () => {
    const c = await compareTwo(
      'disjoint',
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('tau2.jsonl')),
      (d) => writeGymEvalRun(d, 'x_rollouts', fixture('anyswe_claude_code.jsonl')),
    );
    expect(c.task_relation).toEqual({ same: false, basis: null, reason: 'These runs share no task indices.' });
  });
});
