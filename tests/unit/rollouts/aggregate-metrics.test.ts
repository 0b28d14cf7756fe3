// NeMo Gym's X_aggregate_metrics.json read as the collector writes it (an indented array of per-agent entries) and
// set beside callscope's own figures: agreement where the rollouts file is what the collector aggregated, and each
// difference named where rollouts were appended after it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAggregateMetrics } from '@/lib/index/aggregates/metrics-file';
import { agreement } from '@/lib/rollouts/aggregate-metrics';
import { passMajorityMetrics } from '@/lib/rollouts/pass-at-k';
import { sharedPrefix, taskGroups, type TaskRolloutRow } from '@/lib/rollouts/task-groups';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-aggregate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const row = (task: number, rollout: number, reward: number): TaskRolloutRow => ({
  key: `${task}-${rollout}`, agent: 'math_simple_agent', task_index: task, rollout_index: rollout, reward, task: `Solve: ${task}`, tokens_total: null, latency_ms: null,
});

/** The collector's file for these task rewards: its shape (rollout_collection.py), pass@k from compute_metrics. */
function collectorFile(tasks: number[][]): string {
  const metrics = passMajorityMetrics(tasks).metrics;
  const all = tasks.flat();
  const entry = {
    agent_ref: { name: 'math_simple_agent' },
    agent_metrics: { 'mean/reward': all.reduce((a, b) => a + b, 0) / all.length, 'max/reward': 1.0, ...metrics, per_sample_aggregate: { accuracy: [50.0] } },
    key_metrics: { 'mean/reward': all.reduce((a, b) => a + b, 0) / all.length, 'pass@1/accuracy': metrics['pass@1/accuracy'] },
    group_level_metrics: tasks.map((t, i) => ({ _ng_task_index: i, 'mean/reward': t.reduce((a, b) => a + b, 0) / t.length, num_rollouts: t.length, sample: { question: `Solve: ${i}` } })),
  };
  const file = path.join(tmp, `x${Math.random().toString(36).slice(2)}_aggregate_metrics.json`);
  writeFileSync(file, JSON.stringify([entry], null, 2));
  return file;
}

describe("NeMo Gym's aggregate metrics beside callscope's", () => {
  it('agrees figure by figure and task by task when the file aggregated the rollouts file as it is', async () => {
    const rewards = [[1, 0, 1], [0, 0, 0], [1, 1, 0]];
    const read = await readAggregateMetrics(collectorFile(rewards));
    if (!read.ok) throw new Error(read.problem);
    const [ours] = taskGroups(rewards.flatMap((t, i) => t.map((r, j) => row(i, j, r))));
    const report = agreement(read.agents[0], ours);
    expect(report.figures.map((f) => f.key)).toContain('pass@3/accuracy');
    expect(report.figures.every((f) => f.agrees === true)).toBe(true);
    expect(report.tasks).toEqual({ file: 3, callscope: 3, differing: [] });
  });

  it('names what differs when rollouts were appended after the file was written', async () => {
    const read = await readAggregateMetrics(collectorFile([[1, 0], [0, 0]]));
    if (!read.ok) throw new Error(read.problem);
    const now = [[1, 0, 1], [0, 0]];
    const [ours] = taskGroups(now.flatMap((t, i) => t.map((r, j) => row(i, j, r))));
    const report = agreement(read.agents[0], ours);
    expect(report.figures.find((f) => f.key === 'mean/reward')).toMatchObject({ file: 0.25, callscope: 0.4, agrees: false });
    expect(report.tasks.differing).toEqual([{ task_index: 0, file: { task_index: 0, num_rollouts: 2, mean_reward: 0.5 }, callscope: { rollouts: 3, mean_reward: 2 / 3 } }]);
  });

  it('a damaged file is a problem naming the file, not a crash', async () => {
    const file = path.join(tmp, 'bad_aggregate_metrics.json');
    writeFileSync(file, '[{"agent_ref": {"name": "a"}, ');
    const read = await readAggregateMetrics(file);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problem).toContain(file);
    writeFileSync(path.join(tmp, 'obj_aggregate_metrics.json'), '{"agent_metrics": {}}');
    const obj = await readAggregateMetrics(path.join(tmp, 'obj_aggregate_metrics.json'));
    expect(!obj.ok && obj.problem).toMatch(/not a JSON array/);
  });
});

describe('the shared start of task names', () => {
  it('is cut at a word and only when long enough to be an instruction', () => {
    const names = ['Solve the following math problem. Put the answer in a box. What is 1+1?', 'Solve the following math problem. Put the answer in a box. Find x.'];
    expect(sharedPrefix(names)).toBe('Solve the following math problem. Put the answer in a box. ');
    expect(sharedPrefix(['What is 1+1?', 'What is 2+2?'])).toBe('');
    expect(sharedPrefix(['only one name that is long enough to share'])).toBe('');
    expect(sharedPrefix([names[0], null])).toBe('');
  });
});
