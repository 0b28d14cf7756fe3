// `npm run test:soak [-- --factor N --seed S]`: the reliability targets of targets.md (R1–R9) at N times the counts
// CI runs (default 10). The same test files run, with CALLSCOPE_SOAK=N scaling their random cases, rounds and sizes
// (tests/support/reliability.ts) and CALLSCOPE_SEED fixing fast-check's seed; each test reports its figure once its
// assertions passed. Prints a table and writes reports/reliability.json with the machine, commit, factor, seed, each
// test file's outcome and every figure. A target passes when all of its files passed and it reported a figure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, machine } from './bench/machine';
import { ROOT } from './bench/paths';
import { writeReport } from './bench/report';
import { markdownRows } from './bench/table';

const { values: opts } = parseArgs({
  options: {
    factor: { type: 'string', default: '10' },
    seed: { type: 'string', default: String(Date.now() % 2_147_483_647) },
    out: { type: 'string', default: path.join(ROOT, 'reports', 'reliability.json') },
  },
});

const PROXY = 'tests/integration/proxy/reliability.test.ts';
const ROUTING = 'tests/integration/proxy/routing.test.ts';
const SERVE = 'tests/e2e/serve.test.ts';
const TARGETS: { id: string; must: string; files: string[] }[] = [
  { id: 'R1', must: 'byte transparency across dialects, JSON and SSE, random chunking and delays, invalid UTF-8, 0-byte and 20 MB bodies', files: [PROXY] },
  { id: 'R2', must: '1,000 concurrent streaming calls: every call captured once, in its rollout file, no interleaved lines', files: [PROXY] },
  { id: 'R3', must: 'capture failure never fails or alters the call; affected rollouts get their .capture.incomplete marker', files: [PROXY] },
  { id: 'R4', must: 'kill -9 of writers during concurrent appends: no acknowledged line lost, at most one torn tail, which readers skip', files: [PROXY] },
  { id: 'R5', must: 'reader/index against random appends, partial lines, truncation, deletion, re-creation: converges to the files', files: ['tests/unit/index/ingest/convergence.test.ts'] },
  { id: 'R6', must: 'malformed lines: no crash, no hang, no prototype pollution; damaged lines counted as the spec says', files: ['tests/integration/index/r6-malformed.test.ts'] },
  { id: 'R7', must: 'path traversal through every id-taking route: no escape, always 4xx; through the proxy prefix: never captured', files: [SERVE, ROUTING, 'tests/unit/index/sources/discovery.test.ts', 'tests/unit/index/callscope-index.test.ts'] },
  { id: 'R8', must: 'XSS corpus inside payloads, rendered in Chromium in every view: no script runs, no outbound request', files: ['tests/e2e/browser/xss.test.ts'] },
  { id: 'R9', must: 'loopback by default; no public bind without a token; foreign Host refused; no request header in a capture file', files: [SERVE, ROUTING] },
];

interface Figure {
  id: string;
  text: string;
  counts: Record<string, number>;
}

function main(): void {
  const factor = Number(opts.factor);
  if (!Number.isFinite(factor) || factor < 1) throw new Error(`--factor ${opts.factor}: a number >= 1`);
  const seed = Number(opts.seed);
  const started = new Date();
  const t0 = performance.now();
  const info = machine({ loadDigits: 2 });
  const work = path.join(ROOT, '.ci', 'soak');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const figuresFile = path.join(work, 'figures.jsonl');
  const resultsFile = path.join(work, 'vitest.json');
  writeFileSync(figuresFile, '');
  const files = [...new Set(TARGETS.flatMap((t) => t.files))];
  console.log(`test:soak: ${files.length} files at ${factor}× the CI counts, fast-check seed ${seed}`);
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile=${resultsFile}`, '--testTimeout', String(30_000 * factor), ...files],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, CALLSCOPE_SOAK: String(factor), CALLSCOPE_SEED: String(seed), CALLSCOPE_RELIABILITY_OUT: figuresFile } },
  );

  let results: { testResults?: { name: string; status: string; assertionResults?: { status: string }[] }[] } = {};
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  } catch {
    // vitest wrote no report: every file counts as failed below
  }
  const fileOutcome = (f: string) => {
    const r = results.testResults?.find((x) => path.relative(ROOT, x.name) === f);
    const count = (s: string) => r?.assertionResults?.filter((a) => a.status === s).length ?? 0;
    return { file: f, status: r ? r.status : 'not run', passed: count('passed'), failed: count('failed'), skipped: count('skipped') + count('pending') + count('todo') };
  };
  const outcomes = files.map(fileOutcome);
  const figures: Figure[] = readFileSync(figuresFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Figure);

  const targets = TARGETS.map((t) => {
    const mine = figures.filter((f) => f.id === t.id);
    const counts: Record<string, number> = {};
    for (const f of mine) for (const [k, v] of Object.entries(f.counts)) counts[k] = (counts[k] ?? 0) + v;
    const filesPassed = t.files.every((f) => outcomes.find((o) => o.file === f)?.status === 'passed');
    // A figure reported once per round (R2) is listed once, with how many times.
    const texts = new Map<string, number>();
    for (const f of mine) texts.set(f.text, (texts.get(f.text) ?? 0) + 1);
    const figuresText = [...texts].map(([text, n]) => (n > 1 ? `${n} × (${text})` : text));
    return { id: t.id, must_hold: t.must, files: t.files, figures: figuresText, counts, result: filesPassed && mine.length > 0 ? 'pass' : 'FAIL' };
  });
  const report = {
    benchmark: 'test:soak',
    command: `npm run test:soak -- --factor ${factor} --seed ${seed}`,
    started_at: started.toISOString(),
    machine: { ...info, load_average_end: loadAverage(2) },
    factor,
    seed,
    vitest_exit: run.status,
    files: outcomes,
    targets,
    duration_s: Math.round((performance.now() - t0) / 100) / 10,
  };
  writeReport(opts.out!, report);

  const lines = ['', ...markdownRows(targets.map((t) => ({ id: t.id, figure: t.figures.join('; ') || '(no figure reported)', result: t.result })))];
  lines.push('', `${info.cpus} × ${info.cpu_model}, Node ${process.version}, ${(info.commit ?? '?').slice(0, 12)}; factor ${factor}, seed ${seed}; ${report.duration_s} s`);
  lines.push(`wrote ${path.relative(ROOT, opts.out!)}`);
  console.log(lines.join('\n'));
  process.exit(targets.every((t) => t.result === 'pass') && run.status === 0 ? 0 : 1);
}

main();
