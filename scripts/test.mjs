#!/usr/bin/env node
// `npm test`: every test (unit, property, integration, end-to-end) in one vitest run, then the summary
// line CI reads: "N passed, N failed[, N skipped]". The exit code is vitest's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, '.ci', 'out');
mkdirSync(outDir, { recursive: true });
const resultFile = path.join(outDir, 'vitest.json');
writeFileSync(resultFile, '');

const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile=${resultFile}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);

let summary = '0 passed, 1 failed';
try {
  const r = JSON.parse(readFileSync(resultFile, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A file that failed without a failed test (it did not load, or a beforeAll/afterAll hook threw, which leaves its
  // tests skipped) counts as one failure.
  const brokenFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
  const failed = r.numFailedTests + brokenFiles;
  summary = `${r.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
} catch {
  // vitest did not write its report: count the run as one failure.
}
writeFileSync(path.join(outDir, 'summary.txt'), summary + '\n');
console.log(summary);
process.exit(run.status ?? 1);
