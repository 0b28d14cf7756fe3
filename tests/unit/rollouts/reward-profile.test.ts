// The reader of gym eval profile's X_reward_profiling.jsonl: the file's figures as they are, line by line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTaskProfile } from '../../../lib/rollouts/reward-profile';
import { rewardProfileLines, rolloutRows } from '../../support/results-dir';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-reward-profile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('readTaskProfile', () => {
  it("reads every task line's index, rollouts and reward figures as the file has them", async () => {
    const lines = rewardProfileLines(rolloutRows(path.join(import.meta.dirname, '../../fixtures/nemo-gym/anyswe_claude_code.jsonl')));
    const file = path.join(tmp, 'x_rollouts_reward_profiling.jsonl');
    writeFileSync(file, lines.map((l) => JSON.stringify(l) + '\n').join(''));
    const profile = (await readTaskProfile(file))!;
    expect(profile.tasks).toBe(1);
    expect(profile.problems).toEqual([]);
    const [row] = profile.rows;
    const l = lines[0];
    expect(row).toEqual({
      line: 1,
      task_index: 0,
      task: null,
      rollouts: 5,
      expected_rollouts: 5,
      reward: { mean: l['mean/reward'], std: l['std/reward'], min: l['min/reward'], max: l['max/reward'], median: l['median/reward'] },
      pass_at: [],
    });
    expect(row.reward.std).toBeGreaterThan(0);
  });

  it("keeps pass@ keys, names the task from its sample, lists lines that are not objects, and holds an unterminated partial last line as pending", async () => {
    const file = path.join(tmp, 'odd_reward_profiling.jsonl');
    writeFileSync(
      file,
      [
        '{"_ng_task_index":3,"mean/reward":0.5,"std/reward":0.7071067811865476,"pass@1/accuracy":50.0,"pass@2/accuracy":100.0,"sample":{"task_id":"T-3"},"num_rollouts":2}',
        'not json',
        '',
        '[1,2]',
        '{"_ng_task_index":4,"mean/reward":null,"num_rollouts":0}',
        '{"_ng_task_index":5,"mean/rew',
      ].join('\n'),
    );
    const profile = (await readTaskProfile(file))!;
    expect(profile.rows.map((r) => [r.task_index, r.task, r.reward.mean, r.pass_at])).toEqual([
      [3, 'T-3', 0.5, [{ key: 'pass@1/accuracy', value: 50 }, { key: 'pass@2/accuracy', value: 100 }]],
      [4, null, null, []],
    ]);
    expect(profile.problems).toEqual([{ line: 2, message: 'not a JSON object' }, { line: 4, message: 'not a JSON object' }]);
    expect(await readTaskProfile(path.join(tmp, 'missing.jsonl'))).toBeNull();
  });
});
