// Follows the served files while they grow: a chokidar watcher over every run's capture dir and rollouts
// files feeds a debounced ingest of just the paths that changed; anything else under the roots (a new run)
// triggers discovery. The index then publishes its change events.
import chokidar, { type FSWatcher } from 'chokidar';
import path from 'node:path';
import type { CallscopeIndex } from './index';

const DEBOUNCE_MS = 75;

function relevant(file: string): boolean {
  const name = path.basename(file);
  return name.endsWith('.jsonl') || name.endsWith('.capture.incomplete');
}

export class IndexWatcher {
  private watcher: FSWatcher | null = null;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;

  constructor(private readonly index: CallscopeIndex) {}

  start(): void {
    const roots = this.index.specs.map((s) => path.resolve(s.path));
    this.watcher = chokidar.watch(roots, {
      ignoreInitial: true,
      followSymlinks: false,
      depth: 5,
      ignored: (file, stats) => {
        const base = path.basename(file);
        if (base === 'node_modules' || base === '.git' || base === '.callscope') return true;
        return stats?.isFile() === true && !relevant(file);
      },
    });
    const onChange = (file: string) => {
      this.pending.add(path.resolve(file));
      if (!this.timer) this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
    };
    this.watcher.on('add', onChange).on('change', onChange).on('unlink', onChange).on('addDir', onChange).on('unlinkDir', onChange);
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

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.watcher?.close();
    await this.draining;
  }
}
