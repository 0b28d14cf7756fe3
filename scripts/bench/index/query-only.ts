// `--query-only --index DIR`: the query figures (I2 warm, A1, A2, raw, RSS) and I4 over an index built before (e.g.
// kept with `--keep`), without ingesting, writing into the corpus, or the serve/I3/I5 parts. Its stored compare
// figures are dropped first, so the first compare is the one after a change.
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../paths';
import { writeReport } from '../report';
import { round } from '../stats';
import { fmtBytes } from '../table';
import { now } from '../time';
import { runChild } from './child';
import { dbObjects, fileSize } from './i1';
import { indexMachine } from './machine';

export async function queryOnly(args: { index: string; corpus: string; seed: string; reps: number; quick: boolean; out: string | null }): Promise<void> {
  const started = now();
  const report: Record<string, any> = { benchmark: 'index (query only, --index)', started_at: new Date().toISOString(), machine: indexMachine(), seed: args.seed, args };
  const Database = (await import('better-sqlite3')).default;
  const file = path.join(args.index, 'index.sqlite');
  {
    const db = new Database(file);
    const { migrate } = await import('../../../lib/index/schema');
    migrate(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const objects = dbObjects(db);
    const calls = (db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n;
    db.close();
    const bytes = fileSize(file) + fileSize(file + '-wal');
    report.i4_disk = { bytes, per_call: round(bytes / calls, 1), calls, sqlite: fileSize(file), wal: fileSize(file + '-wal'), objects };
  }
  process.stderr.write('bench: I2 warm restart, A1 pages, A2 compare, raw by id, RSS (query child)\n');
  report.query = await runChild('query', { corpus: args.corpus, indexDir: args.index, seed: args.seed, reps: args.reps, coldReps: args.quick ? 2 : 3 });
  report.machine.load_average_end = os.loadavg();
  report.duration_s = round((now() - started) / 1000, 1);
  const q = report.query;
  const lines = [
    `I4 ${report.i4_disk.per_call} B/call (${fmtBytes(report.i4_disk.bytes)})`,
    `A2 compare ms p50/p95: first after open ${q.a2.cold_ms.join(', ')}; after a one-rollout change ${q.a2.after_change.p50}/${q.a2.after_change.p95}; warm ${q.a2.warm.p50}/${q.a2.warm.p95}`,
    ...Object.entries(q.a1 as Record<string, any>).map(
      ([name, c]) =>
        `A1 ${name}${c.indexed ? '' : ' (not indexed)'}: depth 0 p50/p95 ${c.depth0.p50}/${c.depth0.p95} ms; half way ${c.deep ? `${c.deep.p50}/${c.deep.p95} ms` : 'n/a'} (total ${c.total})`,
    ),
  ];
  report.table = lines;
  const reportFile = path.resolve(ROOT, args.out ?? path.join('reports', 'bench-index-query.json'));
  writeReport(reportFile, report);
  process.stdout.write(
    lines.join('\n') +
      `\n${report.machine.cpu_model} x${report.machine.cpus}, Node ${report.machine.node}, ${report.machine.commit.slice(0, 12)}; load ${report.machine.load_average_end.map((x: number) => x.toFixed(1)).join(' ')}; ${report.duration_s} s\nwrote ${path.relative(ROOT, reportFile)}\n`,
  );
}
