// `npm run bench:clickhouse`: target C1 of docs/design targets.md, the index in ClickHouse (the embedded chdb engine
// here). Prints a table and writes reports/bench-clickhouse.json with the machine, the commit, the arguments and
// every raw figure. Three children, one after the other (chdb binds one data directory per process):
//   1. generated: a metadata set of 100M calls / 10M rollouts (100 runs of 100k rollouts, each rollout 10 calls, as a
//      team's many collection jobs would be) written into the index's tables by
//      INSERT … SELECT (scripts/bench/clickhouse/generate.ts), its bytes per call, and the reader's queries over it;
//   2. corpus-clickhouse: the 1M-call corpus of bench:index (`callscope demo`) ingested from its files into a fresh
//      database by one worker (`serve --clickhouse`'s and `ingest`'s path), then the same queries;
//   3. corpus-sqlite: the same corpus into the SQLite index, then the same queries: the two side by side;
//   The corpus is ingested --ingests times into each backend (3; 1 with --quick), alternately, the queries measured
//   after the first of each: the C1 ingest row gives the medians, as the machine's speed moves from one to the next.
//   4. budget-scan, budget-direct: the same corpus by two routes that are not the ingest, the least a cold ingest could
//      cost (scripts/bench/clickhouse/budget.ts): the worker pool's scan alone, and that scan writing its rows to chdb
//      with no SQLite working copy.
//
//   npm run bench:clickhouse                   # 100M calls generated; the 1M-call corpus (reused from .callscope/bench-corpus)
//   npm run bench:clickhouse -- --quick        # 2M calls generated (2 runs), a 10k-call corpus
//   flags: --runs N --rollouts-per-run N --calls-per-rollout N --corpus DIR --reps N --ingests N --skip generated,corpus,budget --keep --out FILE
//          --retable FILE (a report's table made again from its figures)
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from './bench/machine';
import { ROOT } from './bench/paths';
import { runBenchScript, runRole } from './bench/process';
import { writeReport } from './bench/report';
import { median, round } from './bench/stats';
import { fmtBytes, printTable, verdict, type TargetRow } from './bench/table';
import { now } from './bench/time';
import { ensureCorpus } from './bench/index/corpus';
import { readAllFiles } from './bench/files';
import { ROLES } from './bench/clickhouse/roles';

const ENTRY = path.join(ROOT, 'scripts', 'bench-clickhouse.ts');

function parseArguments() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      'rollouts-per-run': { type: 'string' },
      'calls-per-rollout': { type: 'string', default: '10' },
      corpus: { type: 'string' },
      reps: { type: 'string' },
      ingests: { type: 'string' },
      skip: { type: 'string', default: '' },
      keep: { type: 'boolean', default: false },
      out: { type: 'string' },
      retable: { type: 'string' },
    },
    strict: true,
  });
  const quick = values.quick!;
  const args = {
    quick,
    runs: Number(values.runs ?? (quick ? 2 : 100)),
    rolloutsPerRun: Number(values['rollouts-per-run'] ?? 100_000),
    callsPerRollout: Number(values['calls-per-rollout']),
    corpus: path.resolve(values.corpus ?? (quick ? '.callscope/bench-corpus-quick' : '.callscope/bench-corpus')),
    corpusSize: quick ? { rollouts: 1_000, calls: 10_000 } : { rollouts: 100_000, calls: 1_000_000 },
    reps: Number(values.reps ?? (quick ? 10 : 20)),
    ingests: Number(values.ingests ?? (quick ? 1 : 3)),
    skip: new Set(values.skip!.split(',').filter(Boolean)),
    keep: values.keep!,
    out: values.out ?? null,
    /** A report written before: its table made again from its figures (after a change to the table's wording). */
    retable: values.retable ?? null,
  };
  for (const s of args.skip) if (!['generated', 'corpus', 'budget'].includes(s)) throw new Error(`--skip ${s}: not one of generated, corpus, budget`);
  if (args.runs < 2) throw new Error('--runs must be at least 2 (compare takes two)');
  if (!Number.isInteger(args.ingests) || args.ingests < 1) throw new Error('--ingests must be a whole number of at least 1');
  return args;
}

const ms = (x: number) => `${round(x, 1)} ms`;

/** The sample at the median rate (nearest-rank: one of the samples, its other figures with it). */
const atMedian = <T extends { calls_per_s: number }>(xs: T[]): T => xs.find((x) => x.calls_per_s === median(xs.map((y) => y.calls_per_s)))!;

/**
 * The first Tasks page of some runs, as the median of one request per run (reports before that measured one run:
 * `task_page_cold_run`, `task_page_stored_run`).
 */
function firstPages(q: Record<string, any>, kind: 'cold' | 'stored'): string {
  const all: number[] | undefined = q[`task_page_${kind}_all_ms`];
  const runs: string[] = q[`task_page_${kind}_runs`] ?? [q[`task_page_${kind}_run`]];
  if (!all || all.length < 2) return `${ms(q[`task_page_${kind}_ms`])} (run ${runs.join(', ')})`;
  return `median of ${all.length} runs ${ms(q[`task_page_${kind}_ms`])} (${all.map((x, k) => `${runs[k]} ${ms(x)}`).join(', ')})`;
}

/** How fast the corpus files were read just before each ingest (from memory or from the disk). */
function readBefore(r: Record<string, any>): string {
  const reads = r.corpus?.read_before as { mb_per_s: number }[] | undefined;
  if (!reads?.length) return '';
  return `; the files read just before each ingest at ${reads.slice(-2).map((x) => `${x.mb_per_s} MB/s`).join(' and ')}`;
}

function tableRows(r: Record<string, any>): TargetRow[] {
  const rows: TargetRow[] = [];
  const g = r.generated;
  if (g) {
    const q = g.queries;
    const deepest = Math.max(...Object.values(q.list as Record<string, { ms: { p95: number } }>).map((x) => x.ms.p95));
    const size = `${(g.calls / 1e6).toFixed(0)}M calls / ${(g.rollouts / 1e6).toFixed(0)}M rollouts`;
    rows.push({ id: 'C1 list', target: 'list page p95 <= 200 ms at any depth', result: verdict(deepest <= 200), figure: `worst p95 ${ms(deepest)} over ${Object.keys(q.list).length} pages (first/middle/last of 5 orders, 3 filters), all ${ms(q.list_all.p95)} p95; ${size}` });
    rows.push({ id: 'C1 compare', target: 'compare of two runs <= 1 s', result: verdict(q.compare_first_ms <= 1000), figure: `first ${ms(q.compare_first_ms)}${q.compare_first_pending.some(Boolean) ? ' (task parts pending)' : ''}, warm p50 ${ms(q.compare_warm.p50)}; runs of ${(g.set.rolloutsPerRun / 1e6).toFixed(1)}M rollouts` });
    rows.push({
      id: 'C1 tasks',
      target: 'task page <= 500 ms',
      result: verdict(q.task_page_first_built_ms <= 500 && q.task_page_warm.p95 <= 500 && q.task_detail.p95 <= 500),
      figure: `first page once the run's groups are built ${ms(q.task_page_first_built_ms)} (${q.tasks_in_run} tasks; built in the background after start: ${round(g.prebuild_ms / 1000, 1)} s for 6 runs), other pages p95 ${ms(q.task_page_warm.p95)}, task detail p95 ${ms(q.task_detail.p95)}`,
    });
    // Runs none of the 6 kept ones (a user opening an older run): one whose groups the ingest stored in the database, as
    // `callscope ingest` does after its pass, and one whose groups nobody built, so that its first Tasks page builds them.
    if (q.task_page_stored_ms !== undefined && q.task_page_stored_ms !== null) {
      rows.push({
        id: 'C1 tasks cold',
        target: 'task page <= 500 ms, a run this process never read',
        result: verdict(q.task_page_stored_ms <= 500),
        figure: `first page ${firstPages(q, 'stored')}: its groups as the ingest stored them (${g.groups_stored_s} s to store ${g.set.runs - (q.task_page_cold_runs?.length ?? 1)} runs' groups)`,
      });
    }
    rows.push({
      id: 'C1 tasks unbuilt',
      target: 'task page <= 500 ms, a run nobody built',
      result: verdict(q.task_page_cold_ms <= 500),
      figure: `first page ${firstPages(q, 'cold')}: its groups built by that request`,
    });
    rows.push({ id: 'C1 rollout', target: 'rollout detail <= 100 ms', result: verdict(q.rollout_detail.p95 <= 100), figure: `p95 ${ms(q.rollout_detail.p95)}, p50 ${ms(q.rollout_detail.p50)} (row, attempts, ${g.set.callsPerRollout} calls, best of task)` });
    rows.push({ id: 'C1 disk', target: '<= 60 B/call on disk', result: verdict(g.disk.per_call <= 60), figure: `${g.disk.per_call} B/call (${fmtBytes(g.disk.bytes)} for ${g.calls} calls, every table; data dir ${g.disk.data_dir_per_call} B/call)` });
  }
  const c = r.corpus_clickhouse;
  const s = r.corpus_sqlite;
  const busy = (x: { ingest_s: number; ingest_cpu?: { process_s: number; threads: Record<string, number> } }) =>
    x.ingest_cpu ? ` (CPU ${x.ingest_cpu.process_s} s, the main thread ${x.ingest_cpu.threads.main ?? '?'} s)` : '';
  if (c) {
    // The medians of every ingest of each backend (reports before --ingests have the first only).
    type Ingest = { ingest_s: number; calls_per_s: number; ingest_cpu?: { process_s: number; threads: Record<string, number> } };
    const all = (backend: string, first: Ingest): Ingest[] => r.ingests?.[backend] ?? [first];
    const list = (xs: Ingest[]) => xs.map((x) => Math.round(x.calls_per_s)).join(', ');
    const ch = all('clickhouse', c);
    const sq = s ? all('sqlite', s) : [];
    const m = atMedian(ch);
    const of = (xs: Ingest[]) => (xs.length > 1 ? `median of ${xs.length} (${list(xs)}) ` : '');
    const ratios = sq.length === ch.length && ch.length > 1 ? `; ClickHouse / SQLite per pair ${ch.map((x, k) => round(x.calls_per_s / sq[k].calls_per_s, 2)).join(', ')}` : '';
    rows.push({
      id: 'C1 ingest',
      target: '>= 100k calls/s per worker',
      result: verdict(m.calls_per_s >= 100_000),
      figure: `${of(ch)}${Math.round(m.calls_per_s)} calls/s (${c.calls} calls from files in ${m.ingest_s} s${busy(m)}, one worker scanning)${sq.length ? `; the SQLite index alone ${of(sq)}${Math.round(atMedian(sq).calls_per_s)} calls/s${busy(atMedian(sq))}` : ''}${ratios}${readBefore(r)}`,
    });
  }
  const b = r.budget;
  if (b?.scan?.length && b?.direct?.length) {
    type Route = { s: number; calls_per_s: number; cpu: { process_s: number } };
    const route = (xs: Route[]) => {
      const m = atMedian(xs);
      return `${xs.length > 1 ? `median of ${xs.length} (${xs.map((x) => Math.round(x.calls_per_s)).join(', ')}) ` : ''}${Math.round(m.calls_per_s)} calls/s (${m.s} s, ${m.cpu.process_s} s of CPU)`;
    };
    rows.push({
      id: 'C1 ingest budget',
      target: 'the least a cold ingest could cost here',
      result: 'info',
      figure: `the worker pool's scan alone (no index) ${route(b.scan)}; that scan writing its rollouts, files and calls to chdb with no SQLite working copy (an upper bound of that route: not all of ingest's rows) ${route(b.direct)}`,
    });
  }
  if (c && s) {
    const pair = (name: string, f: (q: any) => number) => `${name} ${ms(f(s.queries))} / ${ms(f(c.queries))}`;
    rows.push({
      id: 'C1 side',
      target: `side by side with SQLite (${c.calls >= 1e6 ? `${round(c.calls / 1e6, 1)}M` : `${round(c.calls / 1e3, 1)}k`} calls)`,
      result: 'info',
      figure: [pair('list p95', (q) => q.list_all.p95), pair('compare first', (q) => q.compare_first_ms), pair('task page after ingest', (q) => q.task_page_cold_ms), pair('rollout p95', (q) => q.rollout_detail.p95), `disk ${s.disk.per_call} / ${c.disk.per_call} B/call`].join('; ') + ' (SQLite / ClickHouse)',
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const args = parseArguments();
  if (args.retable) {
    const report = JSON.parse(readFileSync(args.retable, 'utf8'));
    report.table = tableRows(report);
    writeReport(args.retable, report);
    return printTable(report.table);
  }
  const started = now();
  const report: Record<string, any> = { benchmark: 'clickhouse', started_at: new Date().toISOString(), machine: machine({ dirtyPaths: ['lib', 'scripts'] }), args: { ...args, skip: [...args.skip] } };
  const work = path.join(ROOT, '.callscope', `bench-clickhouse-${process.pid}`);
  const step = (s: string) => process.stderr.write(`bench: ${s} (${((now() - started) / 1000).toFixed(0)} s)\n`);
  if (!args.skip.has('generated')) {
    step(`generated set: ${args.runs} runs x ${args.rolloutsPerRun} rollouts x ${args.callsPerRollout} calls into chdb`);
    report.generated = await runRole(ENTRY, 'generated', {
      dir: path.join(work, 'generated'), set: { runs: args.runs, rolloutsPerRun: args.rolloutsPerRun, callsPerRollout: args.callsPerRollout, k: 8, seed: 20261203 }, reps: args.reps, keep: args.keep,
    });
  }
  if (!args.skip.has('corpus') || !args.skip.has('budget')) {
    report.corpus = { dir: args.corpus, ...(await ensureCorpus(args.corpus, { ...args.corpusSize, seed: 'callscope' })) };
    // Read once more before the first ingest (the first read may come from the disk), and once before each other.
    report.corpus.read_before = [readAllFiles(args.corpus)];
  }
  if (!args.skip.has('corpus')) {
    report.corpus.read_before.push(readAllFiles(args.corpus));
    // Every ingest of each backend, in order: the first with the queries after it (corpus_clickhouse, corpus_sqlite).
    report.ingests = { clickhouse: [], sqlite: [] };
    for (let k = 0; k < args.ingests; k++) {
      const queries = k === 0;
      for (const backend of ['clickhouse', 'sqlite'] as const) {
        if (k > 0 || backend === 'sqlite') report.corpus.read_before.push(readAllFiles(args.corpus));
        step(`corpus into ${backend === 'clickhouse' ? 'ClickHouse (chdb), one worker' : 'SQLite'}${queries ? ', then the queries' : ''} (${k + 1} of ${args.ingests})`);
        const result = await runRole<Record<string, any>>(ENTRY, `corpus-${backend}`, { dir: path.join(work, `corpus-${backend}`), corpus: args.corpus, reps: args.reps, keep: args.keep, queries });
        if (queries) report[`corpus_${backend}`] = result;
        report.ingests[backend].push({ ingest_s: result.ingest_s, calls_per_s: result.calls_per_s, ingest_cpu: result.ingest_cpu });
      }
    }
  }
  if (!args.skip.has('budget')) {
    report.budget = { scan: [], direct: [] };
    for (let k = 0; k < args.ingests; k++) {
      for (const role of ['scan', 'direct'] as const) {
        report.corpus.read_before.push(readAllFiles(args.corpus));
        step(`corpus by the ${role} route (not the ingest: the least it could cost) (${k + 1} of ${args.ingests})`);
        report.budget[role].push(await runRole(ENTRY, `budget-${role}`, { dir: path.join(work, `budget-${role}`), corpus: args.corpus, reps: args.reps, keep: args.keep }));
      }
    }
  }
  report.machine.load_average_end = os.loadavg();
  report.duration_s = round((now() - started) / 1000, 1);
  report.table = tableRows(report);
  const file = path.resolve(ROOT, args.out ?? path.join('reports', 'bench-clickhouse.json'));
  writeReport(file, report);
  printTable(report.table);
  process.stdout.write(`\n${report.machine.cpu_model} x${report.machine.cpus}, Node ${report.machine.node}, ${String(report.machine.commit).slice(0, 12)}; ${report.duration_s} s\nwrote ${path.relative(ROOT, file)}\n`);
}

runBenchScript(ROLES, main);
