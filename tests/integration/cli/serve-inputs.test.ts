// `callscope serve` refuses, in one line and with exit 2, what it cannot serve, before it indexes or builds anything:
// a port in use, a file that is not JSONL, NeMo Gym's materialized inputs, a directory without runs (naming the files
// it skipped and why).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkServePaths } from '../../../lib/cli/serve-inputs';
import { discoverRunsReport } from '../../../lib/index/sources/discovery';
import { ROOT } from '../../support/server';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-serve-inputs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function serve(args: string[]) {
  const r = spawnSync(process.execPath, ['bin/callscope.js', 'serve', ...args, '--index-dir', path.join(tmp, 'idx')], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ROLLOUT = '{"responses_create_params":{"input":"hi"},"response":null,"reward":1.0,"_ng_task_index":0,"_ng_rollout_index":0}\n';

describe('serve refuses what it cannot serve', () => {
  it('a port already in use: one line naming the port and --port, exit 2, before indexing', async () => {
    const run = path.join(tmp, 'run');
    mkdirSync(run, { recursive: true });
    writeFileSync(path.join(run, 'rollouts.jsonl'), ROLLOUT);
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const r = serve([run, '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`callscope serve: port ${port} is already in use; stop what listens there or choose another with --port\n`);
      expect(r.stderr).not.toMatch(/indexing|at .*\.ts:\d+/);
    } finally {
      holder.close();
    }
  });

  it('a README, a text file and a binary file as PATH: not JSONL, exit 2', () => {
    const readme = path.join(tmp, 'README.md');
    writeFileSync(readme, '# results\n\nSee rollouts.jsonl.\n');
    const text = path.join(tmp, 'notes.txt');
    writeFileSync(text, 'reward 1.0\n[1, 2, 3]\n"a string"\n');
    const binary = path.join(tmp, 'blob.jsonl');
    writeFileSync(binary, Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)));
    for (const file of [readme, text, binary]) {
      const r = serve([file]);
      expect(r.code, file).toBe(2);
      expect(r.stderr).toBe(`callscope serve: ${file}: not a JSONL file of rollouts (no line of its first 4 MB is a JSON object)\n`);
    }
  });

  it("NeMo Gym's materialized inputs as PATH are refused as inputs, not rollouts", () => {
    const inputs = path.join(tmp, 'x_materialized_inputs.jsonl');
    writeFileSync(inputs, ROLLOUT);
    const r = serve([inputs]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("NeMo Gym's materialized inputs");
  });

  it('an empty directory, and one holding only files that are not runs: "no runs found under PATH", the skipped files named', () => {
    const empty = path.join(tmp, 'empty');
    mkdirSync(empty);
    const r = serve([empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`callscope serve: no runs found under ${empty} (no rollouts .jsonl file and no capture dir of .capture.jsonl files)\n`);

    const inputsOnly = path.join(tmp, 'inputs-only');
    mkdirSync(inputsOnly);
    writeFileSync(path.join(inputsOnly, 'eval_materialized_inputs.jsonl'), ROLLOUT);
    writeFileSync(path.join(inputsOnly, 'eval_failures.jsonl'), ROLLOUT);
    const s = serve([inputsOnly]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain(`callscope: skipped ${path.join(inputsOnly, 'eval_failures.jsonl')}: a failures file without its rollouts file eval.jsonl\n`);
    expect(s.stderr).toContain(`callscope: skipped ${path.join(inputsOnly, 'eval_materialized_inputs.jsonl')}: NeMo Gym's materialized inputs`);
    expect(s.stderr).toMatch(/callscope serve: no runs found under .*inputs-only \(2 files skipped, above\)\n$/);
  });

  it('discovery reports what it skipped beside the runs it found', async () => {
    const dir = path.join(tmp, 'results');
    mkdirSync(path.join(dir, 'model-calls'), { recursive: true });
    writeFileSync(path.join(dir, 'x_rollouts.jsonl'), ROLLOUT);
    writeFileSync(path.join(dir, 'x_materialized_inputs.jsonl'), ROLLOUT);
    writeFileSync(path.join(dir, 'model-calls', '0-0.capture.jsonl'), '');
    writeFileSync(path.join(dir, 'model-calls', '0-0.tokens.jsonl'), '');
    const { runs, skipped } = await discoverRunsReport([{ path: dir }]);
    expect(runs.map((r) => [path.basename(r.rolloutsFile!), r.captureDir && path.basename(r.captureDir)])).toEqual([['x_rollouts.jsonl', 'model-calls']]);
    expect(skipped.map((s) => path.relative(dir, s.path)).sort()).toEqual(['model-calls/0-0.tokens.jsonl', 'x_materialized_inputs.jsonl']);
  });

  it('a capture dir two rollouts files claim: serve says which run got it and that the other is served without it', async () => {
    const dir = path.join(tmp, 'shared');
    mkdirSync(path.join(dir, 'model-calls'), { recursive: true });
    writeFileSync(path.join(dir, 'x_rollouts.jsonl'), ROLLOUT);
    writeFileSync(path.join(dir, 'x_rollouts_resume.jsonl'), ROLLOUT.replace('"_ng_rollout_index":0', '"_ng_rollout_index":0,"_ng_attempt_index":1'));
    writeFileSync(path.join(dir, 'x_rollouts_reward_profiling.jsonl'), '{"_ng_task_index":0,"mean/reward":1.0,"num_rollouts":1}\n');
    writeFileSync(path.join(dir, 'model-calls', '0-0.capture.jsonl'), '');
    writeFileSync(path.join(dir, 'model-calls', '0-0-a1.capture.jsonl'), '');
    const lines: string[] = [];
    await checkServePaths([dir], (l) => lines.push(l));
    // Equal claims (1 of 1 each): the first by name gets the dir; the reward profile is x_rollouts' and not named.
    expect(lines).toEqual([
      `capture dir ${path.join(dir, 'model-calls')}: paired with ${path.join(dir, 'x_rollouts.jsonl')} (1 of 1 sampled rollout ids), not with ${path.join(dir, 'x_rollouts_resume.jsonl')} (1 of 1 sampled rollout ids); a capture dir belongs to one run, so x_rollouts_resume.jsonl is served without it`,
    ]);
  });
});

describe('serve --upstream', () => {
  it('takes a directory without runs: the new run its captured calls go to', () => {
    const fresh = path.join(tmp, 'new-run', 'captures');
    mkdirSync(fresh, { recursive: true });
    const holder = net.createServer();
    // The port check follows the PATH checks: hold the port so that serve stops right after them, before any build.
    return new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve)).then(() => {
      const port = (holder.address() as net.AddressInfo).port;
      const r = serve([fresh, '--upstream', 'http://127.0.0.1:9', '--port', String(port)]);
      holder.close();
      expect(r.stderr).not.toContain('no runs found');
      expect(r.stderr).toContain(`port ${port} is already in use`);
    });
  });
});
