// The first pass over a run the working copy holds nothing of, written to ClickHouse straight from the scan. The
// workers read the run's rollouts files and capture files as any large pass does (parallel.ts), ColdRows makes the rows
// SQLite's ingest would make (cold-rows.ts), and the rows go to the database in writes of about FLUSH_CALLS calls while
// the scan goes on: none of them becomes a row of the working copy, its triggers or its read-back (the bulk of a cold
// ingest's cost with SQLite in the way: README, "Where the ingest's time goes"). The working copy is filled from the
// database before its next pass over any run (sync.ts beforePass: the same fill as a restarted ingest's, hydrate.ts).
//
// A run it cannot take as SQLite would, or too large to hold (notCold's conditions, ColdPassRefused while the rollouts
// files are read), is left to the ordinary pass, before anything is written; so is one whose write the database
// refuses (sync.ts).
import { closeSync, lstatSync, openSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type Database from 'better-sqlite3';
import { INCOMPLETE_SUFFIX, rolloutIdOfCaptureFile } from '../../capture/store';
import { isStoreRolloutId } from '../../capture/ids';
import { NEW_FILE } from '../ingest/capture-file';
import { runJob, type JobResult } from '../ingest/job';
import { DEFAULT_MIN_FILES, DEFAULT_SLICE_BYTES, FILES_PER_JOB, OrderedJobs, type IngestOptions } from '../ingest/parallel';
import { BATCH_MS, changed, poolFor, type Pass } from '../ingest/pass';
import { readAt } from '../ingest/rollouts-files';
import type { RunSource } from '../sources/discovery';
import type { EncodedCalls } from './call-columns';
import { ColdPassRefused, ColdRows } from './cold-rows';

/** Calls read before a write (as clickhouse-index.ts writes a long pass's changes once as many wait). */
export const COLD_WRITE_CALLS = 250_000;
/** Writes whose inserts may run at once behind the scan. */
const WRITES_IN_FLIGHT = 2;
/**
 * The share of the heap's limit the rollouts' rows may take before the capture files are read: a run's rollouts are
 * held until their capture files come (some 2.6 KB each: 260 MB for bench:clickhouse's 100k), and a run too large to
 * hold is left to the ordinary pass, before anything is written.
 */
const HEAP_SHARE = 0.4;

/** A write of a cold pass: rollout rows that are final, file rows, and the calls of those rollouts as the workers encoded them. */
export interface ColdBatch {
  rollouts: unknown[][];
  files: unknown[][];
  pieces: { pk: number; fileId: number; key: string; calls: EncodedCalls; from: number; count: number }[];
}

type Row = unknown[];

/**
 * Why a pass over a run is not a cold pass (null: it is one). The run has a capture dir and the working copy nothing of
 * it; enough capture files for the workers; rollouts files that end with their newline (a last line without one is
 * stored provisionally: rollouts-files.ts readRolloutsTail).
 */
function notCold(db: Database.Database, runNo: number, run: RunSource, options: IngestOptions, names: string[]): string | null {
  if (!run.captureDir) return 'no capture dir';
  if (db.prepare('SELECT EXISTS (SELECT 1 FROM files WHERE run_no = ?)').pluck().get(runNo) === 1) return 'the working copy holds the run';
  if (names.length < (options.minFiles ?? DEFAULT_MIN_FILES)) return 'few capture files';
  for (const file of [run.rolloutsFile, run.failuresFile]) {
    if (!file) continue;
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (st && !st.isFile()) return `${file}: not a file`;
    if (st && st.size > 0 && lastByte(file, st.size) !== 0x0a) return `${file}: its last line has no newline`;
  }
  return null;
}

function lastByte(file: string, size: number): number | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    return readAt(fd, 1, size - 1)?.[0] ?? null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs a cold pass over `run` if it is one: true when it was (everything written by `write`, in order, the rollouts
 * files' rows last), false when the ordinary pass should run instead (nothing written).
 */
export async function coldPass(
  db: Database.Database, pass: Pass, run: RunSource, options: IngestOptions, write: (batch: ColdBatch, rows: ColdRows) => Promise<{ done: Promise<void> }>,
): Promise<boolean> {
  const dir = run.captureDir;
  const names = dir ? readdirSync(dir) : [];
  if (notCold(db, pass.runNo, run, options, names) !== null) return false;
  const pool = await poolFor(pass, options, true);
  if (!pool) return false;
  const rows = new ColdRows(db, pass.runNo);
  const stats = pass.stats;
  const heapLimit = getHeapStatistics().heap_size_limit;

  // The rollouts files first, as ingest reads them: a refused line leaves the run to the ordinary pass.
  const lineFiles: { row: Row; st: Stats; offset: number; nextLine: number }[] = [];
  try {
    for (const [file, kind] of [[run.rolloutsFile, 'rollouts'], [run.failuresFile, 'failures']] as const) {
      const st = file ? lstatSync(file, { throwIfNoEntry: false }) : undefined;
      if (!file || !st) continue;
      const row = rows.file(file, kind, null);
      stats.filesRead++;
      let offset = 0;
      let nextLine = 1;
      const starts: number[] = [];
      for (let at = 0; at < st.size; at += options.sliceBytes ?? DEFAULT_SLICE_BYTES) starts.push(at);
      const slice = (from: number) => ({ kind: 'rollouts' as const, file, from, to: Math.min(st.size, from + (options.sliceBytes ?? DEFAULT_SLICE_BYTES)), size: st.size, atLineStart: from === 0, countCalls: true });
      for await (const group of new OrderedJobs(pool, starts, slice).groups(BATCH_MS)) {
        for (const { job, result } of group) {
          const read = result?.kind === 'rollouts' ? result.slice : (runJob(slice(job), false) as Extract<JobResult, { kind: 'rollouts' }>).slice;
          for (const l of read.lines) l.lineNo += nextLine;
          stats.bytesRead += read.bytes;
          stats.linesRead += read.count;
          rows.lines(row, kind, read.lines);
          nextLine += read.count;
          if (read.end >= 0) offset = read.end;
        }
        if (process.memoryUsage().heapUsed > HEAP_SHARE * heapLimit) throw new ColdPassRefused(`${file}: more rollouts than the heap holds`);
      }
      lineFiles.push({ row, st, offset, nextLine });
    }
  } catch (err) {
    if (err instanceof ColdPassRefused) return false;
    throw err;
  }
  for (const f of lineFiles) rows.rolloutsFileRead(f.row, f.st, f.offset, f.nextLine);
  for (const r of rows.rolloutRows) changed(stats, rows.pkOf(r));

  // Then the capture dir, its files in rollout order (capture-files.ts ingestCaptureDir), each rollout written once final.
  const markers = new Set(names.filter((n) => n.endsWith(INCOMPLETE_SUFFIX)).map((n) => n.slice(0, -INCOMPLETE_SUFFIX.length)));
  const ids = names.map((n) => rolloutIdOfCaptureFile(n)).filter((id): id is string => id !== null && isStoreRolloutId(id));
  const order = (id: string) => {
    const r = rows.rollout(id);
    return r ? rows.pkOf(r) : Number.MAX_SAFE_INTEGER;
  };
  ids.sort((a, b) => order(a) - order(b));
  const fileOf = (id: string) => path.join(dir!, id + '.capture.jsonl');
  let batch: ColdBatch & { calls: number } = { rollouts: [], files: [], pieces: [], calls: 0 };
  // Writes whose inserts run while the scan goes on: at most WRITES_IN_FLIGHT, each holding its encoded blocks.
  const inFlight: Promise<void>[] = [];
  const flush = async () => {
    const b = batch;
    batch = { rollouts: [], files: [], pieces: [], calls: 0 };
    if (!b.rollouts.length && !b.files.length && !b.pieces.length) return;
    const { done } = await write(b, rows);
    rows.release(b.rollouts, b.files);
    done.catch(() => undefined); // heard below
    inFlight.push(done);
    if (inFlight.length > WRITES_IN_FLIGHT) await inFlight.shift();
  };
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += FILES_PER_JOB) batches.push(ids.slice(i, i + FILES_PER_JOB));
  const message = (batch: string[]) => ({ kind: 'capture' as const, files: batch.map((id) => ({ file: fileOf(id), state: NEW_FILE })), encode: true });
  for await (const group of new OrderedJobs(pool, batches, message).groups(BATCH_MS)) {
    for (const { job, result: fromWorker } of group) {
      // A job whose worker failed is run here.
      const result = (fromWorker?.kind === 'capture' ? fromWorker : runJob(message(job), true)) as Extract<JobResult, { kind: 'capture' }>;
      let from = 0;
      for (let k = 0; k < job.length; k++) {
        const id = job[k];
        const count = result.counts[k];
        const read = result.reads[k];
        const ids = rows.captureFile(fileOf(id), id, read, markers.has(id));
        if (ids) {
          if (read.kind === 'read') {
            stats.filesRead++;
            stats.bytesRead += read.bytes;
            stats.linesRead += read.lines;
            changed(stats, ids.pk);
          }
          batch.files.push(ids.file);
          if (count > 0) batch.pieces.push({ pk: ids.pk, fileId: ids.fileId, key: id, calls: result.encoded!, from, count });
          batch.calls += count;
          if (!rows.isPending(ids.row)) batch.rollouts.push(ids.row);
        }
        from += count;
      }
    }
    if (batch.calls >= COLD_WRITE_CALLS) await flush();
  }
  const captured = new Set(ids);
  const markerOnly = [...markers].filter((id) => !captured.has(id) && isStoreRolloutId(id));
  rows.markers(markerOnly);
  for (const id of markerOnly) changed(stats, rows.pkOf(rows.rollout(id)!));
  rows.finish();
  await flush();
  // The rest: rollouts without a capture file, or whose file could not be opened, and markers without one.
  for (const r of rows.rolloutRows) batch.rollouts.push(r);
  await flush();
  await Promise.all(inFlight);
  // The rollouts files' read offsets last: an offset in the database says that the rows read up to it are there.
  await (await write({ rollouts: [], files: lineFiles.map((f) => f.row), pieces: [] }, rows)).done;
  return true;
}
