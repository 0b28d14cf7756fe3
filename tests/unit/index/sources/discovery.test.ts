import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverRuns, discoverRunsReport, isRolloutsFileName, parsePathSpec, slugify } from '../../../../lib/index/sources/discovery';
import { line, makeExchange } from '../../../support/exchange';
import { reportFigure } from '../../../support/reliability';
import { writeGymEvalRun } from '../../../support/results-dir';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-disc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(dir: string, ids: string[], captureName = 'captures') {
  mkdirSync(path.join(dir, captureName), { recursive: true });
  writeFileSync(path.join(dir, 'rollouts.jsonl'), ids.map((id) => JSON.stringify({ _ng_task_index: Number(id.split('-')[0]), _ng_rollout_index: Number(id.split('-')[1]) })).join('\n') + '\n');
  for (const id of ids) writeFileSync(path.join(dir, captureName, `${id}.capture.jsonl`), line(makeExchange()));
}

describe('run discovery', () => {
  it('pairs rollouts files with the capture dir holding their ids, finds failures siblings and capture-only dirs', async () => {
    const root = path.join(tmp, 'results');
    run(path.join(root, 'step-100'), ['0-0', '1-0']);
    writeFileSync(path.join(root, 'step-100', 'rollouts_failures.jsonl'), '');
    run(path.join(root, 'step 200!'), ['5-0']);
    mkdirSync(path.join(root, 'loose', 'caps'), { recursive: true });
    writeFileSync(path.join(root, 'loose', 'caps', 'x.capture.incomplete'), '');
    const runs = await discoverRuns([{ path: root }]);
    const got = runs.map((r) => [r.id, r.captureDir && path.relative(root, r.captureDir), r.failuresFile !== null]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    expect(got).toEqual([
      ['loose-caps', 'loose/caps', false],
      ['step-100', 'step-100/captures', true],
      ['step-200', 'step 200!/captures', false],
    ]);
  });

  it('ids are URL-safe slugs, stable for the same layout under another mount point', async () => {
    const a = path.join(tmp, 'mountA', 'exp');
    const b = path.join(tmp, 'mountB', 'elsewhere', 'exp');
    run(path.join(a, 'run1'), ['0-0']);
    run(path.join(b, 'run1'), ['0-0']);
    const [ra] = await discoverRuns([{ path: a }]);
    const [rb] = await discoverRuns([{ path: b }]);
    expect(ra.id).toBe('run1');
    expect(rb.id).toBe(ra.id);
    expect(slugify('a b/c:d')).toBe('a-b-c-d');
  });

  it('ROLLOUTS.jsonl=CAPTURE_DIR pairs explicitly', async () => {
    const dir = path.join(tmp, 'explicit');
    run(dir, ['0-0'], 'somewhere');
    const spec = parsePathSpec(`${path.join(dir, 'rollouts.jsonl')}=${path.join(dir, 'somewhere')}`);
    const [r] = await discoverRuns([spec]);
    expect(r.captureDir).toBe(path.join(dir, 'somewhere'));
  });

  it('does not follow symlinks out of a root', async () => {
    const outside = path.join(tmp, 'canary');
    run(outside, ['9-9']);
    const root = path.join(tmp, 'linked');
    mkdirSync(root, { recursive: true });
    symlinkSync(outside, path.join(root, 'escape'));
    symlinkSync(path.join(outside, 'rollouts.jsonl'), path.join(root, 'linked.jsonl'));
    expect(await discoverRuns([{ path: root }])).toEqual([]);
    reportFigure('R7', 'symlinks from a served root to a canary run (a dir and a rollouts file): not followed, no run found', { probes: 2, escapes: 0 });
  });
});

describe('a results dir as gym eval run and gym eval profile leave it', () => {
  const fixture = (name: string) => path.join(import.meta.dirname, '../../../fixtures/nemo-gym', name);

  it('one run: the rollouts file with its failures, materialized inputs, reward profile and capture dir; nothing else listed as a run', async () => {
    const results = path.join(tmp, 'gym-one', 'results');
    const x = writeGymEvalRun(results, 'x_rollouts', fixture('string_match.jsonl'), { captureDir: 'model-calls', profile: true, failures: true });
    expect(readdirSync(results).sort()).toEqual([
      'model-calls', 'x_rollouts.jsonl', 'x_rollouts_agent_metrics.json', 'x_rollouts_aggregate_metrics.json', 'x_rollouts_failures.jsonl', 'x_rollouts_materialized_inputs.jsonl', 'x_rollouts_reward_profiling.jsonl',
    ]);
    expect(isRolloutsFileName('x_rollouts_reward_profiling.jsonl')).toBe(false);
    expect(isRolloutsFileName('x_rollouts_aggregate_metrics.json')).toBe(false);
    const { runs, skipped, notes } = await discoverRunsReport([{ path: results }]);
    expect(runs).toEqual([
      {
        id: 'x_rollouts',
        root: results,
        rolloutsFile: x.rollouts,
        failuresFile: path.join(results, 'x_rollouts_failures.jsonl'),
        rewardProfileFile: path.join(results, 'x_rollouts_reward_profiling.jsonl'),
        inputsFile: path.join(results, 'x_rollouts_materialized_inputs.jsonl'),
        aggregateMetricsFile: path.join(results, 'x_rollouts_aggregate_metrics.json'),
        captureDir: path.join(results, 'model-calls'),
        captureDirNote: null,
      },
    ]);
    expect(skipped).toEqual([{ path: path.join(results, 'x_rollouts_materialized_inputs.jsonl'), reason: expect.stringMatching(/materialized inputs/) }]);
    expect(notes).toEqual([]);
    // Given as a file, the run finds the same siblings.
    const [file] = await discoverRuns([{ path: x.rollouts }]);
    expect(file.rewardProfileFile).toBe(path.join(results, 'x_rollouts_reward_profiling.jsonl'));
    expect(file.inputsFile).toBe(path.join(results, 'x_rollouts_materialized_inputs.jsonl'));
  });

  it('a reward profile without its rollouts file is skipped, saying what it is', async () => {
    const results = path.join(tmp, 'gym-orphan', 'results');
    writeGymEvalRun(results, 'x_rollouts', fixture('string_match.jsonl'), { profile: true });
    rmSync(path.join(results, 'x_rollouts.jsonl'));
    writeGymEvalRun(results, 'y_rollouts', fixture('hermes_agent_math.jsonl'));
    const { runs, skipped } = await discoverRunsReport([{ path: results }]);
    expect(runs.map((r) => r.id)).toEqual(['y_rollouts']);
    expect(skipped.find((s) => s.path.endsWith('x_rollouts_reward_profiling.jsonl'))?.reason).toMatch(/^NeMo Gym's reward profile \(gym eval profile's per-task figures\), not rollouts; its rollouts file x_rollouts\.jsonl is not here$/);
  });

  it('two rollouts files whose ids share one capture dir: the one with more of its ids there gets it, and both runs and the report say so', async () => {
    const results = path.join(tmp, 'gym-shared', 'results');
    const x = writeGymEvalRun(results, 'x_rollouts', fixture('string_match.jsonl'), { captureDir: 'model-calls' });
    // A retry beside it (attempt 1: ids `0-0-a1`, ...) captured into the same dir, one of its capture files gone.
    const retry = writeGymEvalRun(results, 'x_rollouts_retry', fixture('string_match.jsonl'), {
      captureDir: 'model-calls',
      edit: (r) => ({ ...r, _ng_attempt_index: 1 }),
    });
    // An unrelated file beside them whose ids are not in the dir: not a claimant.
    writeGymEvalRun(results, 'y_rollouts', fixture('tau2.jsonl'));
    rmSync(path.join(results, 'model-calls', `${retry.ids[0]}.capture.jsonl`));
    const { runs, notes } = await discoverRunsReport([{ path: results }]);
    const byId = Object.fromEntries(runs.map((r) => [r.id, r]));
    expect(Object.keys(byId).sort()).toEqual(['x_rollouts', 'x_rollouts_retry', 'y_rollouts']);
    expect(byId.x_rollouts.captureDir).toBe(path.join(results, 'model-calls'));
    expect(byId.x_rollouts_retry.captureDir).toBeNull();
    expect(byId.y_rollouts.captureDir).toBeNull();
    expect(byId.y_rollouts.captureDirNote).toBeNull();
    expect(byId.x_rollouts_retry.captureDirNote).toBe(
      `The capture dir model-calls beside this file holds 4 of 5 sampled rollout ids of this run, but it is paired with run x_rollouts (x_rollouts.jsonl, 5 of 5 sampled rollout ids): a capture dir belongs to one run, so this run's calls come from its lines' own ng_model_call_capture attachments, or are unknown. To read them from the dir, serve x_rollouts_retry.jsonl=model-calls alone.`,
    );
    expect(byId.x_rollouts.captureDirNote).toBe(
      'The capture dir model-calls is paired with this run (5 of 5 sampled rollout ids); it also holds rollout ids of run x_rollouts_retry (x_rollouts_retry.jsonl), whose calls are not read from it since a capture dir belongs to one run.',
    );
    expect(notes).toEqual([
      `capture dir ${path.join(results, 'model-calls')}: paired with ${x.rollouts} (5 of 5 sampled rollout ids), not with ${retry.rollouts} (4 of 5 sampled rollout ids); a capture dir belongs to one run, so x_rollouts_retry.jsonl is served without it`,
    ]);
    // No capture-only run of the shared dir either.
    expect(runs.filter((r) => r.rolloutsFile === null)).toEqual([]);
  });

  it('a file that loses its best dir to another takes the next dir beside it that holds its ids, and says where the rest are', async () => {
    const results = path.join(tmp, 'gym-next', 'results');
    const a = writeGymEvalRun(results, 'a_rollouts', fixture('string_match.jsonl'), { captureDir: 'caps-1' });
    const b = writeGymEvalRun(results, 'b_rollouts', fixture('string_match.jsonl'), { captureDir: 'caps-1', edit: (r) => ({ ...r, _ng_attempt_index: 1 }) });
    // Two of b's five ids in caps-2 instead: caps-1 holds 3 of b's, and goes to a (5 of 5).
    mkdirSync(path.join(results, 'caps-2'));
    for (const id of b.ids.slice(0, 2)) {
      rmSync(path.join(results, 'caps-1', `${id}.capture.jsonl`));
      writeFileSync(path.join(results, 'caps-2', `${id}.capture.jsonl`), line(makeExchange()));
    }
    const { runs, notes } = await discoverRunsReport([{ path: results }]);
    expect(runs.map((r) => [path.basename(r.rolloutsFile ?? '-'), r.captureDir && path.basename(r.captureDir), r.captureDirNote])).toEqual([
      [path.basename(a.rollouts), 'caps-1', expect.stringMatching(/^The capture dir caps-1 is paired with this run \(5 of 5 sampled rollout ids\); it also holds rollout ids of run b_rollouts/)],
      [
        path.basename(b.rollouts),
        'caps-2',
        'The capture dir caps-1 beside this file holds 3 of 5 sampled rollout ids of this run, but it is paired with run a_rollouts (a_rollouts.jsonl, 5 of 5 sampled rollout ids): a capture dir belongs to one run, so the calls of those rollouts are not read from it.',
      ],
    ]);
    expect(notes).toEqual([
      `capture dir ${path.join(results, 'caps-1')}: paired with ${a.rollouts} (5 of 5 sampled rollout ids), not with ${b.rollouts} (3 of 5 sampled rollout ids); a capture dir belongs to one run, so b_rollouts.jsonl is served without it (with ${path.join(results, 'caps-2')})`,
    ]);
  });
});
