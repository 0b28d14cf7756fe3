// Follows the served files while they grow, and feeds a debounced ingest of just the paths that changed.
//
// Capture dirs are watched as directories: one `fs.watch` (one inotify watch) per dir, whose events name
// the file that was created, appended to or removed. chokidar (the pinned watcher) watches only the roots,
// the rollouts files and new directories, and is told to ignore capture files and known capture dirs:
// given a capture dir of 100,000 files it would otherwise stat and watch every file (measured at 1M calls:
// slow to be ready, hundreds of MiB more memory, an inotify watch per file, seconds before a new file reached
// the ingest), while the directory watch sees the same writes at once. A new run (a path no run owns) triggers
// discovery, after which its capture dir gets its own watch before the pass that ingests it (chokidar keeps
// watching the files that dir held when it was discovered; later ones it ignores).
//
// inotify sees only the writes of this machine's kernel, none made by other nodes on a network or cluster
// mount. Each root, capture dir and rollouts file on such a mount (watch-mount.ts), or every one under
// `--poll`, is polled instead (poll.ts) and its changes go into the same ingest; local paths keep inotify.
import chokidar, { type FSWatcher } from 'chokidar';
import { watch, type FSWatcher as DirWatcher } from 'node:fs';
import path from 'node:path';
import type { CallscopeIndex } from '../callscope-index';
import { MIN_GAP_MS, GAP_FACTOR, Poller, type PollKind } from './poll';
import { pollModeFromEnv, pollReason, type PollMode } from './watch-mount';
import { CAPTURE_SUFFIX, INCOMPLETE_SUFFIX } from '../../capture/store';

const DEBOUNCE_MS = 50;
const SKIPPED_NAMES = new Set(['node_modules', '.git', '.callscope']);

const isCaptureName = (name: string) => name.endsWith(CAPTURE_SUFFIX) || name.endsWith(INCOMPLETE_SUFFIX);

export interface WatcherOptions {
  /** `always`: poll every path (`--poll`); `never`: inotify only; `auto` (default: CALLSCOPE_POLL, else auto): poll network mounts. */
  poll?: PollMode;
  /** Where the one line saying what is polled and why goes. */
  log?: (line: string) => void;
  /** How a path's mount is told (statfsSync; tests stand in a network mount). */
  statfs?: (p: string) => { type: number };
}

export class IndexWatcher {
  private watcher: FSWatcher | null = null;
  private readonly dirs = new Map<string, DirWatcher>();
  private readonly poller: Poller;
  private readonly polledDirs = new Set<string>();
  private readonly polledFiles = new Set<string>();
  private readonly polledRoots: string[] = [];
  private readonly reasons = new Map<string, string | null>();
  /** Polled since the last line said so: [path, reason, kind]. */
  private unannounced: Polled[] = [];
  private readonly mode: PollMode;
  private readonly log: (line: string) => void;
  private readonly statfs: ((p: string) => { type: number }) | undefined;
  private starting = false;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private closed = false;
  private isReady: Promise<void> = Promise.resolve();
  private readonly onRuns = () => this.watchCaptureDirs();

  constructor(
    private readonly index: CallscopeIndex,
    options: WatcherOptions = {},
  ) {
    this.mode = options.poll ?? pollModeFromEnv();
    this.log = options.log ?? (() => {});
    this.statfs = options.statfs;
    this.poller = new Poller({
      onChange: (file) => this.add(file),
      isCaptureName,
      skipDir: (dir) => SKIPPED_NAMES.has(path.basename(dir)) || this.isCaptureDir(dir),
    });
  }

  start(): void {
    this.starting = true;
    const local: string[] = [];
    for (const root of this.index.specs.map((s) => path.resolve(s.path))) {
      if (this.pollIfNeeded(root, 'tree')) this.polledRoots.push(root);
      else local.push(root);
    }
    this.watchCaptureDirs();
    this.index.on('runs', this.onRuns);
    this.announce();
    this.starting = false;
    this.poller.start();
    if (!local.length) {
      this.isReady = this.poller.firstRound();
      return;
    }
    this.watcher = chokidar.watch(local, {
      ignoreInitial: true,
      followSymlinks: false,
      depth: 5,
      ignored: (file, stats) => {
        const base = path.basename(file);
        if (SKIPPED_NAMES.has(base)) return true;
        // A known capture dir is the directory watch's job and is not even listed. A capture file elsewhere
        // (a dir that holds no run yet) is what makes discovery find a new run.
        const resolved = path.resolve(file);
        if (this.isCaptureDir(resolved) || (isCaptureName(base) && this.isCaptureDir(path.dirname(resolved)))) return true;
        return stats?.isFile() === true && !base.endsWith('.jsonl');
      },
    });
    const onChange = (file: string) => this.add(path.resolve(file));
    this.watcher.on('add', onChange).on('change', onChange).on('unlink', onChange).on('addDir', onChange).on('unlinkDir', onChange);
    const watcher = this.watcher;
    this.isReady = Promise.all([new Promise<void>((resolve) => watcher.once('ready', () => resolve())), this.poller.firstRound()]).then(() => undefined);
  }

  /** Resolves once chokidar has listed the roots and the first poll round is done: from then on a new run's first file is seen. */
  ready(): Promise<void> {
    return this.isReady;
  }

  /**
   * Resolves once the first poll round has recorded what the polled paths held (at once when none is
   * polled): an ingest started after it misses no write to them.
   */
  baselined(): Promise<void> {
    return this.poller.size ? this.poller.firstRound() : Promise.resolve();
  }

  private isCaptureDir(dir: string): boolean {
    return this.dirs.has(dir) || this.polledDirs.has(dir);
  }

  /** Polls `p` when its mount needs it (asked once per path); true when it does. */
  private pollIfNeeded(p: string, kind: PollKind): boolean {
    if (!this.reasons.has(p)) this.reasons.set(p, pollReason(p, this.mode, this.statfs));
    const reason = this.reasons.get(p);
    if (!reason) return false;
    this.poller.add(p, kind, this.starting);
    this.unannounced.push([p, reason, kind]);
    return true;
  }

  /** One line for what started being polled; later only for paths found on a network mount. */
  private announce(): void {
    if (this.unannounced.length && (this.starting || this.mode !== 'always')) this.log(describePolling(this.unannounced, this.mode === 'always'));
    this.unannounced = [];
  }

  /** One directory watch (or poll) per capture dir the index knows; dirs that went away lose theirs. */
  private watchCaptureDirs(): void {
    if (this.closed) return;
    const sources = this.index.listRunSources();
    const wanted = new Set(sources.map((r) => r.captureDir).filter((d): d is string => d !== null));
    for (const [dir, w] of this.dirs) {
      if (!wanted.has(dir)) {
        w.close();
        this.dirs.delete(dir);
      }
    }
    for (const dir of this.polledDirs) {
      if (!wanted.has(dir)) {
        this.poller.remove(dir, 'dir');
        this.polledDirs.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (this.isCaptureDir(dir)) continue;
      if (this.pollIfNeeded(dir, 'dir')) {
        this.polledDirs.add(dir);
        continue;
      }
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
    this.pollRolloutsFiles(sources.flatMap((r) => [r.rolloutsFile, r.failuresFile]).filter((f): f is string => f !== null));
    if (!this.starting) this.announce();
  }

  /** Rollouts files on a polled mount that no polled root walks (a network mount under a local root). */
  private pollRolloutsFiles(files: string[]): void {
    const wanted = new Set(files.filter((f) => !this.polledRoots.some((root) => f === root || f.startsWith(root + path.sep))));
    for (const f of this.polledFiles) {
      if (!wanted.has(f)) {
        this.poller.remove(f, 'file');
        this.polledFiles.delete(f);
      }
    }
    for (const f of wanted) {
      if (!this.polledFiles.has(f) && this.pollIfNeeded(f, 'file')) this.polledFiles.add(f);
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

  /** The number of capture dirs followed (one directory watch, or one poll target, each). */
  get watchedDirs(): number {
    return this.dirs.size + this.polledDirs.size;
  }

  /** The number of paths polled (roots, capture dirs, rollouts files). */
  get polledPaths(): number {
    return this.poller.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.index.off('runs', this.onRuns);
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
    await Promise.all([this.watcher?.close(), this.poller.close()]);
    await this.draining;
  }
}

type Polled = [path: string, reason: string, kind: PollKind];

const KIND_NAMES: Record<PollKind, [string, string]> = { tree: ['root', 'roots'], dir: ['capture dir', 'capture dirs'], file: ['rollouts file', 'rollouts files'] };

/** The one line that says what is polled and why. */
export function describePolling(polled: Polled[], forced: boolean): string {
  const rate = `pausing at least ${MIN_GAP_MS / 1000} s and ${GAP_FACTOR}x the last round's time between rounds`;
  if (forced) {
    const counts = (['tree', 'dir', 'file'] as const)
      .map((kind) => [kind, polled.filter((p) => p[2] === kind).length] as const)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${KIND_NAMES[kind][n === 1 ? 0 : 1]}`);
    return `callscope: following ${counts.join(', ')} by polling (--poll), ${rate}`;
  }
  const shown = polled.slice(0, 3).map(([p, why]) => `${p} (${why})`).join(', ');
  const more = polled.length > 3 ? ` and ${polled.length - 3} more` : '';
  return `callscope: polling ${shown}${more}: a network file system, where inotify sees no writes made by other machines; ${rate}`;
}
