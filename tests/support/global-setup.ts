// Builds the dashboard once before any test file starts a server, so that parallel test files never race
// two `next build` runs in the same .next directory.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildIsStale, dateBuild, PROJECT_ROOT } from '../../lib/cli/serve';

/** True when this run includes end-to-end tests: no file filter given, or a filter naming e2e. */
function runsEndToEnd(): boolean {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-') && a !== 'run' && !a.includes('='));
  return filters.length === 0 || filters.some((f) => f.includes('e2e'));
}

export default async function setup(): Promise<void> {
  if (!runsEndToEnd() || !(await buildIsStale())) return;
  const nextBin = createRequire(path.join(PROJECT_ROOT, 'package.json')).resolve('next/dist/bin/next');
  const started = Date.now();
  const r = spawnSync(process.execPath, [nextBin, 'build'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`next build failed with exit code ${r.status}`);
  await dateBuild(started);
}
