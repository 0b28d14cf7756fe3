// Follows the served files while they grow, and feeds a debounced ingest of just the paths that changed.
//
// Capture dirs are watched as directories: one `fs.watch` (one inotify watch) per dir, whose events name
// the file that was created, appended to or removed. chokidar (the pinned watcher) watches only the roots,
// the rollouts files and new directories, and is told to ignore capture files and known capture dirs:
// given a capture dir of 100,000 files it would otherwise stat and watch every file (measured at 1M calls:
// 19.5 s to be ready, +394 MiB RSS, 100,004 inotify watches, 7 s before a new file reached the ingest),
// while the directory watch sees the same writes in a few ms. A new run (a path no run owns) triggers
// discovery, after which its capture dir gets its own watch before the pass that ingests it (chokidar keeps
// watching the files that dir held when it was discovered; later ones it ignores).
import chokidar, { type FSWatcher } from 'chokidar';
import { watch, type FSWatcher as DirWatcher } from 'node:fs';
import path from 'node:path';
import type { CallscopeIndex } from './index';
import { CAPTURE_SUFFIX, INCOMPLETE_SUFFIX } from '../capture/store';

const DEBOUNCE_MS = 50;

const isCaptureName = (name: string) => name.endsWith(CAPTURE_SUFFIX) || name.endsWith(INCOMPLETE_SUFFIX);

export class IndexWatcher {
  private watcher: FSWatcher | null = null;
  private readonly dirs = new Map<string, DirWatcher>();
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private closed = false;
  private isReady: Promise<void> = Promise.resolve();
  private readonly onRuns = () => this.watchCaptureDirs();

  constructor(private readonly index: CallscopeIndex) {}

  start(): void {
    this.watchCaptureDirs();
    this.index.on('runs', this.onRuns);
    const roots = this.index.specs.map((s) => path.resolve(s.path));
    this.watcher = chokidar.watch(roots, {
      ignoreInitial: true,
      followSymlinks: false,
      depth: 5,
      ignored: (file, stats) => {
        const base = path.basename(file);
        if (base === 'node_modules' || base === '.git' || base === '.callscope') return true;
        // A known capture dir is the directory watch's job and is not even listed. A capture file elsewhere
        // (a dir that holds no run yet) is what makes discovery find a new run.
        const resolved = path.resolve(file);
        if (this.dirs.has(resolved) || (isCaptureName(base) && this.dirs.has(path.dirname(resolved)))) return true;
        return stats?.isFile() === true && !base.endsWith('.jsonl');
      },
    });
    const onChange = (file: string) => this.add(path.resolve(file));
    this.watcher.on('add', onChange).on('change', onChange).on('unlink', onChange).on('addDir', onChange).on('unlinkDir', onChange);
    const watcher = this.watcher;
    this.isReady = new Promise((resolve) => watcher.once('ready', () => resolve()));
  }

  /** Resolves once chokidar has listed the roots: from then on a new run's first file is seen. */
  ready(): Promise<void> {
    return this.isReady;
  }

  /** One directory watch per capture dir the index knows; dirs that went away lose theirs. */
  private watchCaptureDirs(): void {
    if (this.closed) return;
    const wanted = new Set(this.index.listRunSources().map((r) => r.captureDir).filter((d): d is string => d !== null));
    for (const [dir, w] of this.dirs) {
      if (!wanted.has(dir)) {
        w.close();
        this.dirs.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.dirs.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: true }, (_event, name) => {
          // No name: the kernel could not say what changed (e.g. its queue overflowed); look at the whole dir.
          if (name === null) this.add(dir);
          else if (isCaptureName(String(name))) this.add(path.join(dir, String(name)));
        });
        w.on('error', () => {
          // The dir itself went away: rediscover.
          w.close();
          this.dirs.delete(dir);
          this.add(dir);
        });
        this.dirs.set(dir, w);
      } catch {
        this.add(dir);
      }
    }
  }

  private add(file: string): void {
    this.pending.add(file);
    if (!this.timer && !this.closed) this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
  }

  /**
   * One ingest at a time: changes that arrive while one runs are taken by the next round of the same drain.
   * Concurrent refreshPaths over the same growing file would each read the bytes past its stored offset.
   */
  private flush(): void {
    this.timer = null;
    if (!this.draining) this.draining = this.drain().finally(() => (this.draining = null));
  }

  private async drain(): Promise<void> {
    while (this.pending.size) {
      const paths = this.pending;
      this.pending = new Set();
      try {
        await this.index.refreshPaths(paths);
      } catch (err) {
        console.error(`callscope: ingest after a file change failed: ${(err as Error).message}`);
      }
    }
  }

  /** The number of directory watches held (one per capture dir). */
  get watchedDirs(): number {
    return this.dirs.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.index.off('runs', this.onRuns);
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
    await this.watcher?.close();
    await this.draining;
  }
}
