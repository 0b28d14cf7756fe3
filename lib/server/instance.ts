// One index and one watcher per process, kept on globalThis so that `serve` (which starts them and prints
// progress) and the bundled route handlers share them, and dev reloads do not start a second pair.
import path from 'node:path';
import { parsePathSpec } from '../index/sources/discovery';
import { CallscopeIndex } from '../index/callscope-index';
import { IndexWatcher, type WatcherOptions } from '../index/sources/watcher';
import type { IndexReader } from '../index/reader';

export interface Instance {
  index: IndexReader;
  watcher: IndexWatcher;
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

/** `watch.poll` defaults to CALLSCOPE_POLL (else polling network mounts only); the polling line goes to stderr. */
export async function startInstance(paths: string[], indexDir: string, watch: WatcherOptions = {}): Promise<Instance> {
  const index = await CallscopeIndex.open(paths.map(parsePathSpec), indexDir);
  const watcher = new IndexWatcher(index, { log: (line) => process.stderr.write(`${line}\n`), ...watch });
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
    holder[KEY] = startInstance(configuredPaths(), indexDir);
  }
  return holder[KEY]!;
}

export function setInstance(instance: Promise<Instance>): void {
  (globalThis as Holder)[KEY] = instance;
}
