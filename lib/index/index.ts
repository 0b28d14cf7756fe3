// The index facade: one SQLite file under the index dir, the runs discovered from the served PATHs, ingest
// with visible progress, and change events. The API, the pages and `serve` talk to this and nothing below.
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { discoverRuns, type PathSpec, type RunSource } from './discovery';
import { Ingestor, type IngestStats } from './ingest';
import { listRollouts, runTotals, ROLLOUT_COLUMNS, type RolloutPage, type RolloutPageQuery, type RolloutRow, type RunTotals } from './queries';
import { migrate } from './schema';

export interface RunProgress {
  state: 'pending' | 'indexing' | 'ready' | 'error';
  files_read: number;
  bytes_read: number;
  lines_read: number;
  error: string | null;
}

export interface RunInfo {
  id: string;
  rollouts_file: string | null;
  failures_file: string | null;
  capture_dir: string | null;
  progress: RunProgress;
  totals: RunTotals;
}

export interface ChangeEvent {
  run: string;
  rollouts: string[];
}

export class CallscopeIndex extends EventEmitter {
  readonly db: Database.Database;
  private runs: (RunSource & { no: number })[] = [];
  private readonly progress = new Map<string, RunProgress>();
  private readonly ingestor: Ingestor;
  private ingesting: Promise<void> | null = null;
  private again = false;

  private constructor(
    readonly specs: PathSpec[],
    readonly indexFile: string,
  ) {
    super();
    this.db = new Database(indexFile);
    migrate(this.db);
    this.ingestor = new Ingestor(this.db);
  }

  static async open(specs: PathSpec[], indexDir: string): Promise<CallscopeIndex> {
    mkdirSync(indexDir, { recursive: true });
    const index = new CallscopeIndex(specs, path.join(indexDir, 'index.sqlite'));
    await index.discover();
    return index;
  }

  close(): void {
    this.db.close();
  }

  /** (Re)discovers runs under the PATHs and registers them. */
  async discover(): Promise<void> {
    const sources = await discoverRuns(this.specs);
    const upsert = this.db.prepare(
      `INSERT INTO runs (id, root, rollouts_file, failures_file, capture_dir) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET root = excluded.root, rollouts_file = excluded.rollouts_file, failures_file = excluded.failures_file,
       capture_dir = excluded.capture_dir`,
    );
    const noOf = this.db.prepare('SELECT no FROM runs WHERE id = ?');
    this.runs = sources.map((s) => {
      upsert.run(s.id, s.root, s.rolloutsFile, s.failuresFile, s.captureDir);
      const no = (noOf.get(s.id) as { no: number }).no;
      if (!this.progress.has(s.id)) this.progress.set(s.id, { state: 'pending', files_read: 0, bytes_read: 0, lines_read: 0, error: null });
      return { ...s, no };
    });
  }

  /** Ingests whatever changed; concurrent calls coalesce into one more pass. */
  refresh(): Promise<void> {
    if (this.ingesting) {
      this.again = true;
      return this.ingesting;
    }
    this.ingesting = (async () => {
      do {
        this.again = false;
        for (const run of this.runs) await this.ingestOne(run);
      } while (this.again);
    })().finally(() => {
      this.ingesting = null;
    });
    return this.ingesting;
  }

  private async ingestOne(run: RunSource & { no: number }): Promise<void> {
    const p = this.progress.get(run.id)!;
    if (p.state !== 'ready') p.state = 'indexing';
    const stats: IngestStats = { filesRead: 0, bytesRead: 0, linesRead: 0, rolloutsChanged: new Set() };
    try {
      await this.ingestor.ingestRun(run.no, run, stats);
      p.state = 'ready';
      p.error = null;
    } catch (err) {
      p.state = 'error';
      p.error = (err as Error).message;
    }
    p.files_read += stats.filesRead;
    p.bytes_read += stats.bytesRead;
    p.lines_read += stats.linesRead;
    if (stats.rolloutsChanged.size) {
      const keys = this.db.prepare(`SELECT key FROM rollouts WHERE pk IN (${[...stats.rolloutsChanged].join(',')})`).all() as { key: string }[];
      this.emit('change', { run: run.id, rollouts: keys.map((k) => k.key) } satisfies ChangeEvent);
    }
  }

  runSource(id: string): (RunSource & { no: number }) | undefined {
    return this.runs.find((r) => r.id === id);
  }

  listRuns(): RunInfo[] {
    return this.runs.map((r) => ({
      id: r.id,
      rollouts_file: r.rolloutsFile,
      failures_file: r.failuresFile,
      capture_dir: r.captureDir,
      progress: { ...this.progress.get(r.id)! },
      totals: runTotals(this.db, r.no),
    }));
  }

  listRollouts(runId: string, query: RolloutPageQuery): RolloutPage | null {
    const run = this.runSource(runId);
    return run ? listRollouts(this.db, run.no, query) : null;
  }

  rollout(runId: string, key: string): RolloutRow | null {
    const run = this.runSource(runId);
    if (!run) return null;
    return (this.db.prepare(`SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE run_no = ? AND key = ?`).get(run.no, key) as RolloutRow | undefined) ?? null;
  }
}
