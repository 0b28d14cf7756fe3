// One index and one watcher per process, kept on globalThis so that `serve` (which starts them and prints
// progress) and the bundled route handlers share them, and dev reloads do not start a second pair.
import path from 'node:path';
import { parsePathSpec } from '../index/sources/discovery';
import { CallscopeIndex } from '../index/callscope-index';
import { IndexWatcher, type WatcherOptions } from '../index/sources/watcher';
import type { IndexReader } from '../index/reader';

export interface Instance {
  index: IndexReader;
  /** Follows the PATHs (null for a ClickHouse reader that does not ingest: the database is followed instead). */
  watcher: IndexWatcher | null;
  /** Resolves when the first full ingest is done (pages answer before that, with progress). */
  ready: Promise<void>;
}

const KEY = Symbol.for('callscope.instance');
type Holder = { [KEY]?: Promise<Instance> };

export function configuredPaths(): string[] {
  try {
    const v = JSON.parse(process.env.CALLSCOPE_PATHS ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export interface InstanceOptions {
  /** `--clickhouse URL`: the index in ClickHouse instead of SQLite. */
  clickhouse?: string;
  /** With `clickhouse`: answer from the database without ingesting the PATHs (another process ingests them). */
  noIngest?: boolean;
  /** With `clickhouse`: only ingest (`callscope ingest`), answering no pages. */
  ingestOnly?: boolean;
}

/** `watch.poll` defaults to CALLSCOPE_POLL (else polling network mounts only); the polling line goes to stderr. */
export async function startInstance(paths: string[], indexDir: string, watch: WatcherOptions = {}, options: InstanceOptions = {}): Promise<Instance> {
  const specs = paths.map(parsePathSpec);
  let index: IndexReader & { refresh(): Promise<void> };
  let local: CallscopeIndex | null;
  if (options.clickhouse) {
    const { ClickhouseIndex } = await import('../index/clickhouse/clickhouse-index');
    const { parseClickhouseUrl } = await import('../index/clickhouse/connection');
    const ch = await ClickhouseIndex.open(parseClickhouseUrl(options.clickhouse), specs, indexDir, { ingest: !options.noIngest, ingestOnly: options.ingestOnly });
    index = ch;
    local = ch.local;
  } else {
    local = await CallscopeIndex.open(specs, indexDir);
    index = local;
  }
  if (!local) return { index, watcher: null, ready: Promise.resolve() };
  const watcher = new IndexWatcher(local, { log: (line) => process.stderr.write(`${line}\n`), ...watch });
  watcher.start();
  // A polled path's first round records what it holds; the first ingest starts after it, so that a write
  // between the ingest's read and that round is not taken as already read (inotify's watch is set at once).
  const ready = watcher.baselined().then(() => index.refresh());
  return { index, watcher, ready };
}

export function getInstance(): Promise<Instance> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const indexDir = process.env.CALLSCOPE_INDEX_DIR ?? path.join(process.cwd(), '.callscope', 'index');
    holder[KEY] = startInstance(configuredPaths(), indexDir, {}, { clickhouse: process.env.CALLSCOPE_CLICKHOUSE || undefined, noIngest: process.env.CALLSCOPE_NO_INGEST === '1' });
  }
  return holder[KEY]!;
}

export function setInstance(instance: Promise<Instance>): void {
  (globalThis as Holder)[KEY] = instance;
}
