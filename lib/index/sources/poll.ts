// Follows served paths by polling, for the mounts whose writes inotify does not see (watch-mount.ts). A round
// lists each polled capture dir and stats its capture files, stats each polled rollouts file, and walks each
// polled root the way chokidar watches it (directories and `.jsonl` files, five levels deep, known capture
// dirs left to their own target): a path whose size, mtime or inode differs from the last round's, or that
// came or went, is reported, and goes into the same debounced ingest as inotify's events. So new files and
// new runs are found as the inotify path finds them.
//
// A target added with `baseline` only records what it holds on its first look (the index has read those
// files); one added later (a capture dir discovered while serving) reports everything it holds, since the
// ingest of its new run may have read the files before this first look.
//
// Rounds are bounded: the pause after a round is at least MIN_GAP_MS and at least GAP_FACTOR times the
// round's own duration, so that polling takes at most 1/(1 + GAP_FACTOR) of the time, and the stats of a
// round run a few at a time. Over 100,000 local files a round that lists the dir and stats every file took
// seconds, so a new call would have waited several times that; a capture dir's round does less. It lists the
// dir only when the dir's own mtime or inode changed (a file came or went), or every RELIST_ROUNDS rounds
// (for a coarse mtime), and stats the files that changed in the last HOT_MS (the rollouts in progress) plus
// COLD_STATS of the others in turn: a file quiet for that long is still seen to change within
// files / COLD_STATS rounds.
import { lstat, promises as fsp, type Stats } from 'node:fs';
import path from 'node:path';

export const MIN_GAP_MS = 1000;
export const GAP_FACTOR = 4;
export const HOT_MS = 10 * 60_000;
export const COLD_STATS = 5000;
const RELIST_ROUNDS = 10;
const TREE_DEPTH = 5;
const STAT_CONCURRENCY = 16;

/** The pause before the next round, given how long the last one took. */
export function pollGapMs(roundMs: number, minGapMs = MIN_GAP_MS, factor = GAP_FACTOR): number {
  return Math.max(minGapMs, Math.ceil(factor * roundMs));
}

export type PollKind = 'dir' | 'tree' | 'file';

interface Target {
  kind: PollKind;
  path: string;
  /** Signature by name (dir) or by path (tree, file) at the last look; null before the first. */
  seen: Map<string, string> | null;
  /** Reported on the first look (a target added after the start). */
  reportFirst: boolean;
  present: boolean;
  /** A capture dir's files that changed lately (name -> when), its names as last listed, where the sweep of the others is. */
  hot: Map<string, number>;
  order: string[];
  cursor: number;
  /** The dir's own signature when it was last listed, and the rounds since. */
  dirSig: string | null;
  sinceListing: number;
}

export interface PollerOptions {
  onChange: (file: string) => void;
  /** The names a capture dir's round stats. */
  isCaptureName: (name: string) => boolean;
  /** Directories a tree walk neither lists nor enters (known capture dirs, node_modules...). */
  skipDir: (dir: string) => boolean;
  minGapMs?: number;
  factor?: number;
  coldStats?: number;
  /** The clock rounds are timed with (ms; a test's own, so that no assertion depends on the machine's speed). */
  now?: () => number;
}

const signature = (st: Stats) => `${st.size}:${st.mtimeMs}:${st.ino}`;

async function lstatAll(files: string[]): Promise<(Stats | null)[]> {
  const out: (Stats | null)[] = new Array(files.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      // The callback form: less CPU than fs.promises over many files.
      out[i] = await new Promise<Stats | null>((resolve) => lstat(files[i], (err, st) => resolve(err ? null : st)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, files.length) }, worker));
  return out;
}

export class Poller {
  private readonly targets = new Map<string, Target>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private rounds = 0;
  private firstDone!: () => void;
  private readonly first = new Promise<void>((resolve) => (this.firstDone = resolve));
  /** How long the last round took and the pause after it (ms). */
  lastRoundMs = 0;
  gapMs: number;

  constructor(private readonly options: PollerOptions) {
    this.gapMs = options.minGapMs ?? MIN_GAP_MS;
  }

  /** One target per kind and path: a served capture dir is walked as a root and listed as a capture dir. */
  add(p: string, kind: PollKind, baseline: boolean): void {
    const key = `${kind}:${p}`;
    if (!this.targets.has(key)) this.targets.set(key, { kind, path: p, seen: null, reportFirst: !baseline, present: true, hot: new Map(), order: [], cursor: 0, dirSig: null, sinceListing: 0 });
  }

  remove(p: string, kind: PollKind): void {
    this.targets.delete(`${kind}:${p}`);
  }

  has(p: string, kind: PollKind): boolean {
    return this.targets.has(`${kind}:${p}`);
  }

  get size(): number {
    return this.targets.size;
  }

  /** The number of rounds done. */
  get roundsDone(): number {
    return this.rounds;
  }

  start(): void {
    if (!this.closed && !this.timer && !this.running) this.timer = setTimeout(() => this.round(), 0);
  }

  /** Resolves once the first round has looked at every target added before it. */
  firstRound(): Promise<void> {
    return this.first;
  }

  private round(): void {
    this.timer = null;
    this.running = (async () => {
      const now = this.options.now ?? (() => performance.now());
      const started = now();
      for (const t of [...this.targets.values()]) {
        if (this.closed) break;
        if (!this.has(t.path, t.kind)) continue;
        try {
          await this.look(t);
        } catch (err) {
          console.error(`callscope: polling ${t.path} failed: ${(err as Error).message}`);
        }
      }
      this.lastRoundMs = now() - started;
      this.gapMs = pollGapMs(this.lastRoundMs, this.options.minGapMs, this.options.factor);
      this.rounds++;
      this.firstDone();
    })().finally(() => {
      this.running = null;
      if (!this.closed) this.timer = setTimeout(() => this.round(), this.gapMs);
    });
  }

  /** Absent (the dir went away): rediscover once; whatever comes back is new. */
  private gone(t: Target): void {
    if (t.present && t.seen !== null) this.options.onChange(t.path);
    t.present = false;
    t.seen = new Map();
    t.hot.clear();
    t.order = [];
    t.dirSig = null;
  }

  private cameBack(t: Target): void {
    if (!t.present) this.options.onChange(t.path);
    t.present = true;
  }

  private async look(t: Target): Promise<void> {
    if (t.kind === 'dir') return this.lookDir(t);
    const now = t.kind === 'tree' ? await this.walk(t.path) : await this.statFile(t.path);
    if (!this.has(t.path, t.kind)) return; // removed meanwhile
    const report = (p: string) => this.options.onChange(p);
    if (now === null) return this.gone(t);
    this.cameBack(t);
    const before = t.seen;
    t.seen = now;
    if (before === null && !t.reportFirst) return;
    for (const [key, sig] of now) if (before?.get(key) !== sig) report(key);
    if (!before) return;
    for (const key of before.keys()) {
      if (!now.has(key) && !(t.kind === 'tree' && this.hidden(key, t.path))) report(key);
    }
  }

  /** A capture dir: `seen` (name -> signature) is kept up to date in place; changes are reported as found. */
  private async lookDir(t: Target): Promise<void> {
    const dirSt = await fsp.lstat(t.path).catch(() => null);
    if (!this.has(t.path, 'dir')) return;
    if (!dirSt?.isDirectory()) return this.gone(t);
    this.cameBack(t);
    const report = (name: string) => this.options.onChange(path.join(t.path, name));
    const first = t.seen === null;
    const seen = (t.seen ??= new Map());
    const fresh: string[] = [];
    const dirSig = signature(dirSt);
    if (first || dirSig !== t.dirSig || ++t.sinceListing >= RELIST_ROUNDS) {
      const names = await fsp.readdir(t.path).catch(() => null);
      if (names === null) return this.gone(t);
      t.dirSig = dirSig;
      t.sinceListing = 0;
      t.order = names.filter(this.options.isCaptureName);
      const listed = new Set(t.order);
      for (const n of seen.keys()) {
        if (listed.has(n)) continue;
        seen.delete(n);
        t.hot.delete(n);
        report(n);
      }
      for (const n of t.order) if (!seen.has(n)) fresh.push(n);
    }
    const now = Date.now();
    for (const [n, at] of t.hot) if (now - at > HOT_MS || !seen.has(n)) t.hot.delete(n);
    const wanted = [...fresh, ...t.hot.keys()];
    if (!first && t.order.length) {
      const isFresh = new Set(fresh);
      const cold = this.options.coldStats ?? COLD_STATS;
      let taken = 0;
      for (let i = 0; i < t.order.length && taken < cold; i++) {
        const n = t.order[(t.cursor + i) % t.order.length];
        if (!t.hot.has(n) && !isFresh.has(n) && seen.has(n)) {
          wanted.push(n);
          taken++;
        }
        if (taken === cold) t.cursor = (t.cursor + i + 1) % t.order.length;
      }
    }
    const stats = await lstatAll(wanted.map((n) => path.join(t.path, n)));
    if (!this.has(t.path, 'dir')) return;
    const quiet = first && !t.reportFirst;
    wanted.forEach((n, i) => {
      const st = stats[i];
      const before = seen.get(n);
      if (!st) {
        // gone between the listing and the stat: the next listing reports it
        return;
      }
      const sig = signature(st);
      if (before === sig) return;
      seen.set(n, sig);
      if (quiet) return;
      t.hot.set(n, now);
      report(n);
    });
  }

  private async statFile(file: string): Promise<Map<string, string>> {
    const st = await fsp.lstat(file).catch(() => null);
    return new Map(st ? [[file, signature(st)]] : []);
  }

  /** Directories (by presence) and `.jsonl` files (by signature) under a root, as chokidar would list them. */
  private async walk(root: string): Promise<Map<string, string> | null> {
    const st = await fsp.lstat(root).catch(() => null);
    if (!st) return null;
    const out = new Map<string, string>();
    if (!st.isDirectory()) {
      out.set(root, signature(st));
      return out;
    }
    if (this.options.skipDir(root)) return out;
    const files: string[] = [];
    const visit = async (dir: string, depth: number) => {
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (this.closed) return;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (this.options.skipDir(p)) continue;
          out.set(p, 'dir');
          if (depth < TREE_DEPTH) await visit(p, depth + 1);
        } else if (e.isFile() && e.name.endsWith('.jsonl')) {
          files.push(p);
        }
      }
    };
    await visit(root, 0);
    const stats = await lstatAll(files);
    files.forEach((f, i) => {
      const st = stats[i];
      if (st) out.set(f, signature(st));
    });
    return out;
  }

  /** A path the walk no longer lists because it lies in a dir it now skips (a capture dir discovered since). */
  private hidden(p: string, root: string): boolean {
    for (let d = p; d.startsWith(root); d = path.dirname(d)) {
      if (this.options.skipDir(d)) return true;
      if (d === root || path.dirname(d) === d) break;
    }
    return false;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.firstDone();
  }
}
