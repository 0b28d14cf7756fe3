// One ingest pass over a run, as its two paths share it (capture-files.ts, rollouts-files.ts; ingest.ts runs
// them): what it changed, the rollouts whose aggregates it has already written, and its worker pool.
import { IngestPool, workerCount, type IngestOptions } from './parallel';

export interface IngestStats {
  filesRead: number;
  bytesRead: number;
  linesRead: number;
  rolloutsChanged: Set<number>;
  /** Called before the first change is noted, inside the transaction that writes it. */
  onFirstChange?: () => void;
  /** Rollouts whose capture file was only appended to: the call indexes read, [from, to). */
  appended?: Map<number, { from: number; to: number }>;
}

/** Work per write transaction before the event loop gets a turn (queries and the live path interleave). */
export const BATCH_MS = 100;

export interface RolloutState {
  pk: number;
  capture_file: number | null;
  marker: number;
}

/** One pass over a run: maps loaded once, and the rollouts whose aggregates are already up to date. */
export interface Pass {
  runNo: number;
  hasCaptureDir: boolean;
  stats: IngestStats;
  rollouts: Map<string, RolloutState> | null;
  settled: Set<number>;
  /** Ingest workers, started by the first part of the pass that is large enough (parallel.ts). */
  pool?: Promise<IngestPool | null>;
}

/** Notes a rollout the pass changed. */
export function changed(stats: IngestStats, pk: number): void {
  if (stats.rolloutsChanged.size === 0) stats.onFirstChange?.();
  stats.rolloutsChanged.add(pk);
}

/** Marks a rollout changed in this pass; its aggregates are recomputed at the end unless settled again. */
export function touch(pass: Pass, pk: number): void {
  changed(pass.stats, pk);
  pass.settled.delete(pk);
}

/** The pass's worker pool when a part of it is `large` enough (started once per pass). */
export async function poolFor(pass: Pass, options: IngestOptions, large: boolean): Promise<IngestPool | null> {
  if (!large) return null;
  const awaitWorkers = options.awaitWorkers === true;
  pass.pool ??= IngestPool.start(workerCount(options)).then(async (pool) => {
    if (pool && awaitWorkers) await pool.ready();
    return pool;
  });
  return pass.pool;
}
