// `callscope serve` (what `npm start` runs) against the production build: the runs page lists every demo
// run with the call counts the format library computes from the same files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRuns } from '../../lib/rollouts/overview';
import { ROOT, startServe, type Served } from '../support/server';

let demo: string;
let served: Served;

beforeAll(async () => {
  demo = mkdtempSync(path.join(os.tmpdir(), 'callscope-e2e-'));
  const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', path.join(demo, 'runs')], { cwd: ROOT, encoding: 'utf8' });
  expect(gen.status, gen.stderr).toBe(0);
  served = await startServe([path.join(demo, 'runs')]);
});

afterAll(async () => {
  await served?.stop();
  await fsp.rm(demo, { recursive: true, force: true });
});

describe('callscope serve', () => {
  it('binds to loopback', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('lists every demo run with its rollouts and call counts', async () => {
    const res = await fetch(served.url + '/');
    expect(res.status).toBe(200);
    const html = await res.text();
    const runs = await listRuns([path.join(demo, 'runs')]);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const run of runs) {
      const calls = run.rollouts.reduce((s, r) => s + r.numCalls, 0);
      expect(html).toContain(`aria-label="run ${run.id}"`);
      expect(html).toMatch(new RegExp(`${run.id}<!-- --> <span class="muted">· <!-- -->${run.rollouts.length}<!-- --> rollouts · <!-- -->${calls.toLocaleString('en-US')}<!-- --> calls`));
    }
  });

  it('renders payload-free pages: no capture payload text reaches the runs page', async () => {
    const html = await (await fetch(served.url + '/')).text();
    expect(html).not.toContain('"messages":');
  });
});

describe('callscope serve refuses unsafe binds', () => {
  it('a non-loopback host without --token exits 2 before building or binding', () => {
    const r = spawnSync(process.execPath, ['bin/callscope.js', 'serve', '--host', '0.0.0.0', '--port', '0'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('callscope serve: --host 0.0.0.0 is not a loopback address; refusing to serve it without --token\n');
  });

  it('a missing PATH is a one-line error', () => {
    const r = spawnSync(process.execPath, ['bin/callscope.js', 'serve', '/no/such/dir', '--port', '0'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('callscope serve: /no/such/dir: no such file or directory\n');
  });
});
