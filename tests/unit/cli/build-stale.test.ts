// `serve` rebuilds the dashboard when a source is newer than the build. A build is dated to when it started,
// so an edit made while `next build` ran still counts as newer.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIsStale, dateBuild } from '../../../lib/cli/serve';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function project(sourceSecondsAgo: number): void {
  root = mkdtempSync(path.join(os.tmpdir(), 'callscope-stale-'));
  mkdirSync(path.join(root, 'lib'), { recursive: true });
  mkdirSync(path.join(root, '.next'));
  const source = path.join(root, 'lib', 'a.ts');
  writeFileSync(source, 'export {};\n');
  const t = Date.now() / 1000 - sourceSecondsAgo;
  utimesSync(source, t, t);
  utimesSync(path.join(root, 'lib'), t, t);
  writeFileSync(path.join(root, '.next', 'BUILD_ID'), 'x'); // written "now", at the end of the build
}

describe('buildIsStale', () => {
  it('is stale without a build', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'callscope-stale-'));
    expect(await buildIsStale(root)).toBe(true);
  });

  it('is fresh when every source predates the build', async () => {
    project(60);
    await dateBuild(Date.now() - 30_000, root);
    expect(await buildIsStale(root)).toBe(false);
  });

  it('is stale when a source was edited while the build ran (after it started, before BUILD_ID was written)', async () => {
    project(10);
    expect(await buildIsStale(root)).toBe(false); // BUILD_ID's own mtime hides the edit
    await dateBuild(Date.now() - 30_000, root);
    expect(await buildIsStale(root)).toBe(true);
  });
});
