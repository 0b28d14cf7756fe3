#!/usr/bin/env node
// `npm test`: every test (unit, property, integration, end-to-end) in one vitest run, then the end-to-end suites
// that read the index (the API's and the browser's pages: CLICKHOUSE_SUITES) again with the index in ClickHouse (CALLSCOPE_TEST_BACKEND=clickhouse:
// every `serve` they start runs on the embedded chdb engine), then the summary line CI reads: "N passed, N
// failed[, N skipped]" over both runs. With test files named, or CALLSCOPE_TEST_CLICKHOUSE=0, only the first run.
// The exit code is non-zero when either run failed.
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
const args = process.argv.slice(2);

/** One vitest run; its counts from the JSON report (a run that wrote none counts as one failure). */
function runVitest(extra, file, env = process.env) {
  writeFileSync(file, '');
  const run = spawnSync(process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile=${file}`, ...extra], { cwd: root, stdio: 'inherit', env });
  try {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // A file that failed without a failed test (it did not load, or a beforeAll/afterAll hook threw, which leaves its
    // tests skipped) counts as one failure.
    const brokenFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
    return { status: run.status ?? 1, passed: r.numPassedTests, failed: r.numFailedTests + brokenFiles, skipped };
  } catch {
    return { status: run.status ?? 1, passed: 0, failed: 1, skipped: 0 };
  }
}

// The API's suites and the browser's pages over the index. Left to the first run: what no index answers (the CSP and
// XSS checks of the rendering, the tabs' shared event stream, `serve`'s start-up and upstream, the results-dir walk).
const CLICKHOUSE_SUITES = [
  'tests/e2e/api-schemas.test.ts', 'tests/e2e/diff-api.test.ts', 'tests/e2e/browser/pages.test.ts', 'tests/e2e/browser/runs-page.test.ts', 'tests/e2e/browser/tasks.test.ts',
  'tests/e2e/browser/trajectory.test.ts', 'tests/e2e/browser/diff.test.ts', 'tests/e2e/browser/live.test.ts', 'tests/e2e/browser/navigation.test.ts',
  'tests/e2e/browser/uncaptured-runs.test.ts', 'tests/e2e/browser/damaged-lines.test.ts', 'tests/e2e/browser/gap-panel.test.ts',
];

const runs = [runVitest(args, resultFile)];
if (args.length === 0 && process.env.CALLSCOPE_TEST_CLICKHOUSE !== '0') {
  console.log('== the end-to-end suites again, with the index in ClickHouse (chdb)');
  runs.push(runVitest(CLICKHOUSE_SUITES, path.join(outDir, 'vitest-clickhouse.json'), { ...process.env, CALLSCOPE_TEST_BACKEND: 'clickhouse' }));
}
const total = runs.reduce((t, r) => ({ passed: t.passed + r.passed, failed: t.failed + r.failed, skipped: t.skipped + r.skipped }), { passed: 0, failed: 0, skipped: 0 });
const summary = `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`;
writeFileSync(path.join(outDir, 'summary.txt'), summary + '\n');
console.log(summary);
process.exit(runs.every((r) => r.status === 0) ? 0 : 1);
