// `npm run bench:index`: the index and API targets of docs/design targets.md (I1–I5, A1–A3), measured in one
// run over a corpus built by the `callscope demo` generator. Prints a table and writes reports/bench-index.json
// with the machine, Node version, commit, seed, arguments and every raw figure.
//
// Each measurement that needs a clean process runs in a child (this script with `--child ROLE`), so that the
// generator, the baseline and the ingest never share a heap, and the RSS of the process that answers queries
// over the 1M-call index is its own. Ratios (I1) are measured side by side: baseline, ingest, baseline again.
//
//   npm run bench:index                      # 100k rollouts / 1M calls (corpus reused from .callscope/bench-corpus)
//   npm run bench:index -- --quick           # 1k rollouts / 10k calls, under a minute once its corpus exists
//   flags: --rollouts N --calls M --corpus DIR --seed S --huge-mb MB --live-seconds S --live-rate R --reps N
//          --profile (CPU profile of the ingest child into .callscope/bench-prof) --keep (keep the index dirs)
//          --no-server (skip the parts measured through `callscope serve`)
//          --out FILE (the report, instead of reports/bench-index.json)
//          --only t2 (T2 alone: cold ingest of the corpus with a trajectory on every rollout against without)
//          --index DIR [--out FILE] (query figures and I4 only, over an index built before; see bench/index/query-only.ts)
//
// This file parses the arguments and runs the parts in order. Each part is a module of scripts/bench/index/ (i1,
// t2, query, huge, server, watcher, live; the children's roles in roles.ts, the table in table.ts); what every
// benchmark shares (percentiles, machine facts, report files, tables, children, `serve`) is in scripts/bench/.
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './bench/paths';
import { runBenchScript } from './bench/process';
import { writeReport } from './bench/report';
import { round } from './bench/stats';
import { fmtBytes, printTable } from './bench/table';
import { now } from './bench/time';
import { runChild } from './bench/index/child';
import { cleanLive, corpusStats, ensureCorpus } from './bench/index/corpus';
import { measureHuge } from './bench/index/huge';
import { measureI1 } from './bench/index/i1';
import { indexMachine } from './bench/index/machine';
import { queryOnly } from './bench/index/query-only';
import { ROLES } from './bench/index/roles';
import { serverCorpus, serverHuge } from './bench/index/server';
import { measureT2 } from './bench/index/t2';
import { tableRows } from './bench/index/table';

/** The parts `--only` and `--skip` name. */
const PARTS = ['i1', 'query', 'huge', 'server', 'watcher', 'live', 't2'];

/** The arguments with their defaults (`--quick` smaller ones), `--only` turned into the parts to skip. */
function parseArguments() {
  const { values } = parseArgs({
    options: {
      rollouts: { type: 'string' },
      calls: { type: 'string' },
      corpus: { type: 'string' },
      seed: { type: 'string', default: 'callscope' },
      quick: { type: 'boolean', default: false },
      'huge-mb': { type: 'string' },
      'live-seconds': { type: 'string' },
      'live-rate': { type: 'string', default: '1200' },
      reps: { type: 'string' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      'no-server': { type: 'boolean', default: false },
      index: { type: 'string' },
      out: { type: 'string' },
      skip: { type: 'string', default: '' },
      only: { type: 'string', default: '' },
      'query-only': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const quick = values.quick!;
  const args = {
    rollouts: Number(values.rollouts ?? (quick ? 1_000 : 100_000)),
    calls: Number(values.calls ?? (quick ? 10_000 : 1_000_000)),
    corpus: path.resolve(values.corpus ?? (quick ? '.callscope/bench-corpus-quick' : '.callscope/bench-corpus')),
    seed: values.seed!,
    quick,
    huge_mb: Number(values['huge-mb'] ?? (quick ? 32 : 256)),
    live_seconds: Number(values['live-seconds'] ?? (quick ? 4 : 15)),
    live_rate: Number(values['live-rate']),
    reps: Number(values.reps ?? (quick ? 10 : 30)),
    profile: values.profile!,
    keep: values.keep!,
    server: !values['no-server'],
    index: values.index ? path.resolve(values.index) : null,
    out: values.out ?? null,
    skip: new Set(values.skip!.split(',').filter(Boolean)),
  };
  const only = values.only!.split(',').filter(Boolean);
  for (const part of only) if (!PARTS.includes(part)) throw new Error(`--only ${part}: not one of ${PARTS.join(', ')}`);
  if (only.length) {
    args.skip = new Set(PARTS.filter((p) => !only.includes(p)));
    if (args.skip.has('server')) args.server = false;
  }
  return { args, queryOnly: values['query-only']! };
}

async function main(): Promise<void> {
  const { args, queryOnly: onlyQueries } = parseArguments();
  const quick = args.quick;
  if (onlyQueries) {
    if (!args.index) throw new Error('--query-only needs --index DIR');
    return queryOnly(args as typeof args & { index: string });
  }
  for (const part of args.skip) if (!PARTS.includes(part)) throw new Error(`--skip ${part}: not one of ${PARTS.join(', ')}`);
  for (const [k, v] of Object.entries(args)) if (typeof v === 'number' && !(v > 0)) throw new Error(`--${k.replace('_', '-')} must be a positive number`);
  const started = now();
  const report: Record<string, any> = { benchmark: 'index', started_at: new Date().toISOString(), machine: indexMachine(), seed: args.seed, args: { ...args, skip: [...args.skip] } };
  const work = path.join(path.dirname(args.corpus), `bench-work-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const step = (s: string) => process.stderr.write(`bench: ${s} (${((now() - started) / 1000).toFixed(0)} s)\n`);
  try {
    report.corpus = { dir: args.corpus, ...(await ensureCorpus(args.corpus, args)), ...corpusStats(args.corpus) };
    step(`corpus: ${fmtBytes(report.corpus.bytes)} in ${report.corpus.files} files${report.corpus.reused ? ' (reused)' : ''}`);

    // I1 (skipped with --index DIR: an index this script built before, reused) and I4's size on disk.
    const indexDir = args.index ?? path.join(work, 'index');
    if (!args.index && !args.skip.has('i1')) Object.assign(report, await measureI1({ corpus: args.corpus, corpusFiles: report.corpus.files, indexDir, work, profile: args.profile }, step));

    if (!args.skip.has('t2')) report.t2 = await measureT2(args.corpus, work, step);

    if (!args.skip.has('query')) {
      step('I2 warm restart, A1 pages, A2 compare, raw by id, RSS (query child)');
      report.query = await runChild('query', { corpus: args.corpus, indexDir, seed: args.seed, reps: args.reps, coldReps: quick ? 2 : 3 });
    }

    if (!args.skip.has('huge')) {
      step(`I5 huge line (${args.huge_mb} MiB)`);
      report.i5 = await measureHuge(args.corpus, work, args.huge_mb, args.seed);
    }

    if (args.server) {
      try {
        if (report.i5) {
          step('I5/A3 through `callscope serve` (raw and call routes)');
          report.i5.server = await serverHuge(report.i5.huge, path.join(work, 'huge-index-serve'), report.i5.inprocess.body.bytes);
        }
        step('I2/I3/I4 through `callscope serve` over the corpus');
        if (!args.skip.has('server')) report.server = await serverCorpus(args.corpus, indexDir, { rate: args.live_rate, seconds: args.live_seconds, seed: args.seed, reps: Math.min(args.reps, 20) });
      } catch (err) {
        report.server_error = String((err as Error).message ?? err).slice(0, 4000);
        process.stderr.write(`bench: the parts through \`callscope serve\` failed; continuing without them\n${report.server_error}\n`);
      }
    }
    if (!args.skip.has('watcher')) {
      step('I3 diagnosis: the IndexWatcher alone over the corpus');
      report.i3_watcher = await runChild('watcher', { corpus: args.corpus });
    }
    if (!args.skip.has('live')) {
      step('I3 in-process (CallscopeIndex + IndexWatcher, polling listRollouts)');
      report.i3_inprocess = await runChild('live', { corpus: args.corpus, indexDir, seed: args.seed, live: { rate: args.live_rate, seconds: args.live_seconds } });
    }
  } finally {
    cleanLive(args.corpus);
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
  report.machine.load_average_end = os.loadavg();
  report.duration_s = round((now() - started) / 1000, 1);

  const rows = tableRows(report);
  report.table = rows;
  const reportFile = path.resolve(ROOT, args.out ?? path.join('reports', 'bench-index.json'));
  writeReport(reportFile, report);
  printTable(rows);
  process.stdout.write(
    `\n${report.machine.cpu_model} x${report.machine.cpus}, ${fmtBytes(report.machine.total_memory_bytes)}, Node ${report.machine.node}, ${report.machine.commit.slice(0, 12)}, seed ${args.seed}; ` +
      `${report.corpus.calls} calls / ${report.corpus.rollouts} rollouts, ${fmtBytes(report.corpus.bytes)}; ${report.duration_s} s\nwrote ${path.relative(ROOT, reportFile)}\n`,
  );
}

runBenchScript(ROLES, main);
