// What "best" means for a task's rollouts (lib/rollouts/task-groups.ts byBest), the one definition the task view,
// the rollout page's "diff with the best of its task" and compare's changed tasks share.
import { describe, expect, it } from 'vitest';
import { bestFirst, bestOf, byBest, taskGroups, type RolloutRank } from '@/lib/rollouts/task-groups';

const rank = (key: string, reward: number | null, over: Partial<RolloutRank> = {}): RolloutRank => ({ key, reward, failed: false, order: 0, attempt: 0, ...over });
const keys = (ranks: RolloutRank[]) => [...ranks].sort(byBest).map((r) => r.key);

describe('the best rollout of a task', () => {
  it('is the highest reward, an unknown reward last', () => {
    expect(keys([rank('a', 0), rank('b', null), rank('c', 1), rank('d', -1)])).toEqual(['c', 'a', 'd', 'b']);
  });

  it('on equal rewards: a persisted rollout before a failed attempt, then rollout order, the latest attempt, the key', () => {
    expect(keys([rank('f', 1, { failed: true, order: 0 }), rank('p', 1, { order: 3 })])).toEqual(['p', 'f']);
    expect(keys([rank('late', 1, { order: 2 }), rank('early', 1, { order: 1 })])).toEqual(['early', 'late']);
    expect(keys([rank('a0', 1, { order: 1 }), rank('a1', 1, { order: 1, attempt: 1 })])).toEqual(['a1', 'a0']);
    expect(keys([rank('b', 1), rank('a', 1)])).toEqual(['a', 'b']);
  });

  it('bestOf picks the first of that order; none of none', () => {
    expect(bestOf([rank('x', 0), rank('y', 1, { order: 2 }), rank('z', 1, { order: 1 })])?.key).toBe('z');
    expect(bestOf([])).toBeNull();
  });

  it("a group's rollouts best first: by reward, ties in rollout-index order whatever the completion order", () => {
    const row = (rollout: number, reward: number) => ({ key: `0-${rollout}`, agent: 'a', task_index: 0, rollout_index: rollout, reward, task: null, tokens_total: null, latency_ms: null });
    const [agent] = taskGroups([row(0, 0), row(1, 1), row(2, 0.5), row(3, 1)]);
    expect(bestFirst(agent.tasks[0])).toEqual(['0-1', '0-3', '0-2', '0-0']);
  });
});
