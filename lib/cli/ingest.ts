// `callscope ingest PATH... --clickhouse URL`: keeps the runs under PATHs indexed in a ClickHouse database, without a
// dashboard: one process per node or per share, with any number of `serve --clickhouse URL --no-ingest` reading the
// same database. Resumable anywhere: the files' read offsets are in the database (lib/index/clickhouse/hydrate.ts).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError, type CliIO } from './io';
import { checkServePaths } from './serve-inputs';
import { reportProgress } from './serve';
import { startInstance } from '../server/instance';

const HELP = `usage: callscope ingest PATH... --clickhouse URL [--index-dir DIR] [--poll] [--once]

Ingests the runs found in PATHs (as \`serve\` finds them) into the ClickHouse index at URL:
http(s)://host:port/database (credentials from CALLSCOPE_CLICKHOUSE_USER and CALLSCOPE_CLICKHOUSE_PASSWORD)
or chdb:DIR (the embedded engine). Then follows the PATHs and writes what is appended, until stopped
(SIGINT, SIGTERM); --once stops after the first pass. The working copy of the ingest lives in --index-dir
(default .callscope/index); a new or outdated one is filled from the database first.
--poll follows every path by polling, as is done anyway for paths on network file systems.
`;

export async function runIngest(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      clickhouse: { type: 'string' },
      'index-dir': { type: 'string' },
      poll: { type: 'boolean' },
      once: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (!values.clickhouse) throw new UsageError('--clickhouse URL is required (ingest writes a ClickHouse index; `serve` keeps a SQLite one itself)');
  if (positionals.length === 0) throw new UsageError('no PATH to ingest');
  const { parseClickhouseUrl, describeTarget } = await import('../index/clickhouse/connection');
  const target = parseClickhouseUrl(values.clickhouse);
  const paths = await checkServePaths(positionals, (line) => io.stderr.write(`callscope: ${line}\n`));
  const indexDir = path.resolve(values['index-dir'] ?? path.join('.callscope', 'index'));
  io.stderr.write(`callscope: ingesting into ClickHouse at ${describeTarget(target)}\n`);
  const instance = await startInstance(paths, indexDir, { poll: values.poll ? 'always' : undefined, log: (line) => io.stderr.write(`${line}\n`) }, { clickhouse: values.clickhouse, ingestOnly: true });
  try {
    await reportProgress(instance, io);
    const failed = (await instance.index.listRuns()).filter((r) => r.progress.state === 'error');
    if (values.once) {
      // The runs' task groups for the dashboards' Tasks pages (a following ingest stores them once a run is quiet).
      const { ClickhouseIndex } = await import('../index/clickhouse/clickhouse-index');
      if (instance.index instanceof ClickhouseIndex) await instance.index.storeTaskGroups();
      return failed.length ? 1 : 0;
    }
    io.stderr.write('callscope: following the PATHs (Ctrl-C stops)\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    return 0;
  } finally {
    await instance.watcher?.close();
    await instance.index.close();
  }
}
