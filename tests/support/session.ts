// One end-to-end test file's world: data written into a temporary dir, `callscope serve` over it with its own index,
// Debian's Chromium and one tracked page on the served origin; closed and removed together.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, type TrackedPage } from './browser';
import { ROOT, startServe, type Served } from './server';

export interface Session {
  dir: string;
  served: Served;
  browser: Browser;
  t: TrackedPage;
}

/** `prepare(dir)` writes the data and returns serve's PATHs; the index goes to `dir/idx`. */
export async function openSession(name: string, prepare: (dir: string) => string[]): Promise<Session> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `callscope-${name}-`));
  const paths = prepare(dir);
  const [served, browser] = await Promise.all([startServe([...paths, '--index-dir', path.join(dir, 'idx')]), launchBrowser()]);
  return { dir, served, browser, t: await openPage(browser, served.url) };
}

export async function closeSession(s: Session | undefined): Promise<void> {
  if (!s) return;
  await s.t.close();
  await s.browser.close();
  await s.served.stop();
  await fsp.rm(s.dir, { recursive: true, force: true });
}

/** `callscope demo` into `dir/runs`; returns that path. */
export function demoRuns(dir: string): string {
  const out = path.join(dir, 'runs');
  const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', out], { cwd: ROOT, encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`callscope demo failed: ${gen.stderr}`);
  return out;
}
