// The demo data (`callscope demo`) in a scratch directory of its own, written once per test file and removed
// after it: `fx.tmp` is the scratch directory, `fx.demo` the demo root inside it (set from beforeAll on).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

export function useDemo(prefix: string): { tmp: string; demo: string } {
  const fx = { tmp: '', demo: '' };
  beforeAll(() => {
    fx.tmp = mkdtempSync(path.join(os.tmpdir(), prefix));
    fx.demo = path.join(fx.tmp, 'demo');
    const r = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', fx.demo], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(fx.tmp, { recursive: true, force: true }));
  return fx;
}
