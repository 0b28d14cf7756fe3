// I3 diagnosis: the IndexWatcher alone over the corpus: how long it takes to be ready, what it holds, and how
// long a new file and an append take to reach the index, beside a plain fs.watch of the same directory.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Json } from '../report';
import { round } from '../stats';
import { now, sleep, waitFor } from '../time';
import type { ChildParams } from './child';
import { captureDirsOf, LIVE_PREFIX, templateLines } from './corpus';

/** inotify watches held by this process (Linux), from /proc/self/fdinfo. */
function inotifyWatches(): number | null {
  try {
    let n = 0;
    for (const fd of readdirSync('/proc/self/fdinfo')) {
      try {
        n += (readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^inotify /gm) ?? []).length;
      } catch {
        // closed meanwhile
      }
    }
    return n;
  } catch {
    return null;
  }
}

/**
 * I3 diagnosis: the IndexWatcher alone over the corpus (its refreshPaths replaced by a recorder): time to
 * chokidar's ready, RSS and inotify watches it holds, and how long a new capture file and an append take to
 * reach refreshPaths; beside a plain fs.watch of the capture dir seeing the same two writes.
 */
export async function childWatcher(p: ChildParams) {
  const { IndexWatcher } = await import('../../../lib/index/sources/watcher');
  const { watch } = await import('node:fs');
  const dir = captureDirsOf(p.corpus!)[0];
  const { discoverRuns } = await import('../../../lib/index/sources/discovery');
  const { EventEmitter } = await import('node:events');
  const seen: { file: string; at: number }[] = [];
  const sources = await discoverRuns([{ path: p.corpus! }]);
  const fake = Object.assign(new EventEmitter(), {
    specs: [{ path: p.corpus! }],
    listRunSources: () => sources,
    refreshPaths: async (paths: Set<string>) => void paths.forEach((f) => seen.push({ file: f, at: now() })),
  });
  const rss0 = process.memoryUsage().rss;
  const t0 = now();
  const watcher = new IndexWatcher(fake as never);
  watcher.start();
  const inner = (watcher as unknown as { watcher: import('node:events').EventEmitter }).watcher;
  let errors = 0;
  inner.on('error', () => errors++);
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 300_000);
    inner.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  const readyMs = now() - t0;
  const afterReady = { rss: process.memoryUsage().rss, watches: inotifyWatches() };
  const raw: { name: string; at: number }[] = [];
  const plain = watch(dir, (_ev, name) => raw.push({ name: String(name), at: now() }));
  const file = path.join(dir, `${LIVE_PREFIX}probe.capture.jsonl`);
  const [tpl] = templateLines(p.corpus!, 1);
  const line = JSON.stringify({ ...tpl, model_call_id: 'probe' }) + '\n';
  const result: Record<string, Json> = {};
  try {
    const tCreate = now();
    writeFileSync(file, line);
    const created = await waitFor(() => seen.some((x) => x.file === file && x.at >= tCreate), 120_000);
    result.create_to_refresh_ms = created ? round(seen.find((x) => x.file === file && x.at >= tCreate)!.at - tCreate) : null;
    result.create_plain_fs_watch_ms = raw.find((x) => x.at >= tCreate) ? round(raw.find((x) => x.at >= tCreate)!.at - tCreate) : null;
    await sleep(500);
    const tAppend = now();
    writeFileSync(file, line, { flag: 'a' });
    const appended = await waitFor(() => seen.some((x) => x.file === file && x.at >= tAppend), 60_000);
    result.append_to_refresh_ms = appended ? round(seen.find((x) => x.file === file && x.at >= tAppend)!.at - tAppend) : null;
    result.append_plain_fs_watch_ms = raw.find((x) => x.at >= tAppend) ? round(raw.find((x) => x.at >= tAppend)!.at - tAppend) : null;
  } finally {
    plain.close();
    await watcher.close();
    rmSync(file, { force: true });
  }
  return {
    ready,
    ready_ms: round(readyMs),
    rss_before: rss0,
    rss_after_ready: afterReady.rss,
    inotify_watches: afterReady.watches,
    errors,
    timeouts_ms: { create: 120_000, append: 60_000 },
    ...result,
  };
}
