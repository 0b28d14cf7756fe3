// Incremental ingest. Capture files are append-only, so each is read from the offset where the last ingest
// stopped; a file whose identity changed (replaced) or that shrank (truncated) is read again from the start.
// An unterminated last line is pending: it is neither consumed nor counted until its newline arrives.
//
// Cold ingest is bounded by per-file and per-row overhead more than by parsing, so: files are read
// synchronously into one reused buffer, many files share one transaction (about BATCH_MS of work, then the
// event loop gets a turn), statements are prepared once, a run's files and rollouts are looked up in maps
// loaded once per pass, capture files are taken in rollout order (calls append to the B-tree, pages stay
// full), and a rollout's aggregates are computed from the calls just parsed, in the same transaction.
//
// The live path (the watcher naming changed files) ingests each named file and writes the whole batch in one
// transaction; a rollout whose capture file was only appended to folds the new calls into a cached
// aggregate (live-aggregate.ts), so an append costs what it adds, not a re-read of the rollout's calls.
//
// This module runs a pass over a run: its rollouts files (rollouts-files.ts), then its capture dir
// (capture-files.ts), then the aggregates of the rollouts the pass changed and did not settle.
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { RolloutAggregator } from '../aggregates/rollouts';
import { FoldCache, RolloutFold } from '../aggregates/live';
import type { IngestOptions } from './parallel';
import { BATCH_MS, type IngestStats, type Pass } from './pass';
import { callMirror, IngestRows } from './rows';
import { CaptureFiles } from './capture-files';
import { RolloutsFiles } from './rollouts-files';
import type { RunSource } from '../sources/discovery';

export type { IngestStats } from './pass';
export type { FileRow } from './rows';

export class Ingestor {
  private readonly aggregator: RolloutAggregator;
  private readonly folds = new FoldCache();
  private readonly captureFiles: CaptureFiles;
  private readonly rolloutsFiles: RolloutsFiles;

  constructor(
    private readonly db: Database.Database,
    private readonly options: IngestOptions = {},
  ) {
    this.aggregator = new RolloutAggregator(db);
    const rows = new IngestRows(db);
    this.captureFiles = new CaptureFiles(db, options, rows, this.aggregator, this.folds);
    this.rolloutsFiles = new RolloutsFiles(db, options, rows);
  }

  /** Ingests every file of a run that changed since the last ingest (`only`: just these paths, the live path). */
  async ingestRun(runNo: number, run: RunSource, stats: IngestStats, only?: Set<string>): Promise<void> {
    // The live path writes a batch of changed files in one transaction: one WAL commit instead of several per
    // file. Other work on this connection while it awaits (a concurrent full pass's transactions become
    // savepoints; reads see the batch) is committed with it.
    // A working copy another writer keeps (the ClickHouse mirror) is made whole first.
    await callMirror(this.db)?.beforePass?.(this.db.inTransaction);
    if (!only || this.db.inTransaction) return this.ingestRunFiles(runNo, run, stats, only);
    this.db.exec('BEGIN');
    try {
      await this.ingestRunFiles(runNo, run, stats, only);
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.folds.clear();
      throw err;
    }
  }

  private async ingestRunFiles(runNo: number, run: RunSource, stats: IngestStats, only?: Set<string>): Promise<void> {
    const pass: Pass = { runNo, hasCaptureDir: run.captureDir !== null, stats, rollouts: null, settled: new Set() };
    if (only) stats.appended ??= new Map();
    try {
      // A run's first pass may be written straight to where the mirror writes (ClickHouse: clickhouse/cold-pass.ts).
      if (!only && (await callMirror(this.db)?.coldPass?.(pass, run, this.options))) return;
      for (const [file, kind] of [
        [run.rolloutsFile, 'rollouts'],
        [run.failuresFile, 'failures'],
      ] as const) {
        if (file && (!only || only.has(file))) await this.rolloutsFiles.ingestRolloutsFile(pass, file, kind);
      }
      if (run.captureDir) {
        const changed = only ? [...only].filter((p) => path.dirname(p) === run.captureDir) : null;
        if (changed) this.captureFiles.ingestCaptureFiles(pass, run.captureDir, changed);
        else await this.captureFiles.ingestCaptureDir(pass, run.captureDir);
      }
      for (const pk of pass.settled) this.folds.delete(pk);
      const pending = [...stats.rolloutsChanged].filter((pk) => !pass.settled.has(pk));
      for (let i = 0; i < pending.length; ) {
        const deadline = performance.now() + BATCH_MS;
        this.db.transaction(() => {
          while (i < pending.length && performance.now() < deadline) {
            const pk = pending[i++];
            this.updateAggregates(pk, pass.hasCaptureDir, stats.appended?.get(pk));
          }
        })();
        if (i < pending.length) await yieldToLoop();
      }
    } catch (err) {
      this.folds.clear();
      throw err;
    } finally {
      if (pass.pool) void pass.pool.then((pool) => pool?.close());
    }
  }

  /**
   * A rollout whose capture file was only appended to folds the new calls into its cached fold; any other
   * change recomputes from all of the rollout's calls (and forgets the fold).
   */
  private updateAggregates(pk: number, hasCaptureDir: boolean, appended: { from: number; to: number } | undefined): void {
    if (!appended) {
      this.folds.delete(pk);
      this.aggregator.recompute(pk, hasCaptureDir);
      return;
    }
    let fold = this.folds.get(pk);
    if (!fold || fold.upTo !== appended.from) {
      fold = new RolloutFold();
      fold.addFromDb(this.db, pk, 0, appended.to);
    } else {
      fold.addFromDb(this.db, pk, appended.from, appended.to);
    }
    fold.write(this.db, pk, hasCaptureDir);
    this.folds.set(pk, fold);
  }
}
