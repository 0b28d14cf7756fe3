// The first pass over a run the working copy holds nothing of, written to ClickHouse straight from the scan. The
// workers read the run's rollouts files and capture files as any large pass does (parallel.ts), ColdRows makes the rows
// SQLite's ingest would make (cold-rows.ts), and the rows go to the database in writes of about COLD_WRITE_CALLS calls while
// the scan goes on: none of them becomes a row of the working copy, its triggers or its read-back (the bulk of a cold
// ingest's cost with SQLite in the way: README, "Where the ingest's time goes"). The working copy is filled from the
// database before its next pass over any run (sync.ts beforePass: the same fill as a restarted ingest's, hydrate.ts).
//
// A run it cannot take as SQLite would (notCold's conditions) is left to the ordinary pass before anything is written.
// One with a line whose key is taken twice over (ColdPassRefused), or whose write the database refuses (sync.ts), is
// left to it when that happens: the ordinary pass then writes again, newer, whatever rows the cold pass had written.
import { closeSync, lstatSync, openSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { INCOMPLETE_SUFFIX, rolloutIdOfCaptureFile } from '../../capture/store';
import { isStoreRolloutId } from '../../capture/ids';
import { NEW_FILE } from '../ingest/capture-file';
import { runJob, type JobResult, type WorkerJob } from '../ingest/job';
import { DEFAULT_MIN_FILES, DEFAULT_SLICE_BYTES, OrderedJobs, type IngestOptions } from '../ingest/parallel';
import { changed, poolFor, type Pass } from '../ingest/pass';
import { readAt } from '../ingest/rollouts-files';
import type { RunSource } from '../sources/discovery';
import type { EncodedCalls } from './call-columns';
import { ColdPassRefused, ColdRows } from './cold-rows';

/** Calls read before a write (as clickhouse-index.ts writes a long pass's changes once as many wait). */
export const COLD_WRITE_CALLS = 250_000;
/** Writes whose inserts may run at once behind the scan. */
const WRITES_IN_FLIGHT = 2;
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
 * Slices of the rollouts files read ahead of the rows they make (their rollouts wait for their capture files meanwhile:
 * some 8k of bench:clickhouse's), and jobs in flight per worker. A deep queue keeps the worker busy while this thread
 * writes: in paired runs of the 1M-call corpus, 32 and 32 were faster than 8 and 8 (3 pairs of 4) and as fast as 64
 * and 64 (one-off probes, not committed).
 */
const SLICES_AHEAD = 32;
const JOBS_PER_WORKER = 32;
/**
 * Capture files per job: three times an ordinary pass's (parallel.ts FILES_PER_JOB), the addon reading them
 * (native-read.ts) at some 3 ms a job. Paired runs as above: 96 faster than 32 in 4 pairs of 4.
 */
const FILES_PER_JOB = 96;
/** Rollout rows (without calls) that make a write by themselves: a run whose rollouts mostly have no capture file. */
const COLD_WRITE_ROLLOUTS = 50_000;

type ColdJob = { kind: 'slice'; lines: LineFile; from: number } | { kind: 'capture'; ids: string[] };

interface LineFile {
  file: string;
  kind: 'rollouts' | 'failures';
  st: Stats;
  row: Row;
  offset: number;
  nextLine: number;
}

/**
 * Runs a cold pass over `run` if it is one: true when it was (everything written by `write`, in order, the rollouts
 * files' rows last), false when the ordinary pass should run instead (which writes every row again, newer).
 *
 * The rollouts files and the capture files are read in one stream: each slice of a rollouts file, then the capture
 * files of the rollouts its lines name, in line order, a few slices behind. That is the order SQLite's ingest gives
 * ids in (every line first, then the capture files by rollout), so the ids are the same; and each rollout is written
 * as soon as its capture file is read, so the pass holds some thousand rollouts at a time, not the run's.
 */
export async function coldPass(
  db: Database.Database, pass: Pass, run: RunSource, options: IngestOptions, write: (batch: ColdBatch, rows: ColdRows) => Promise<{ done: Promise<void> }>,
): Promise<boolean> {
  // What the pass counted is undone when the ordinary pass is to run instead: it counts the same files again.
  const stats = pass.stats;
  const counted = { filesRead: stats.filesRead, bytesRead: stats.bytesRead, linesRead: stats.linesRead };
  const noted: number[] = [];
  const undo = () => {
    Object.assign(stats, counted);
    for (const pk of noted) stats.rolloutsChanged.delete(pk);
  };
  try {
    const done = await streamRun(db, pass, run, options, write, (pk) => {
      if (!stats.rolloutsChanged.has(pk)) noted.push(pk);
      changed(stats, pk);
    });
    if (!done) undo();
    return done;
  } catch (err) {
    undo();
    throw err;
  }
}

/** coldPass's stream, noting each rollout it changes with `note`; false before anything is written if not a cold pass. */
async function streamRun(
  db: Database.Database, pass: Pass, run: RunSource, options: IngestOptions, write: (batch: ColdBatch, rows: ColdRows) => Promise<{ done: Promise<void> }>,
  note: (pk: number) => void,
): Promise<boolean> {
  const dir = run.captureDir;
  const names = dir ? readdirSync(dir) : [];
  if (notCold(db, pass.runNo, run, options, names) !== null) return false;
  const pool = await poolFor(pass, options, true);
  if (!pool) return false;
  const rows = new ColdRows(db, pass.runNo);
  const stats = pass.stats;
  const sliceBytes = options.sliceBytes ?? DEFAULT_SLICE_BYTES;
  const markers = new Set(names.filter((n) => n.endsWith(INCOMPLETE_SUFFIX)).map((n) => n.slice(0, -INCOMPLETE_SUFFIX.length)));
  // The capture files, by rollout id, in the capture dir's order (that of the ones no line names).
  const captured = new Set(names.map((n) => rolloutIdOfCaptureFile(n)).filter((id): id is string => id !== null && isStoreRolloutId(id)));
  const fileOf = (id: string) => path.join(dir!, id + '.capture.jsonl');

  // The rollouts files' rows first, as ingest inserts them (before any capture file's), and their slices.
  const lineFiles: LineFile[] = [];
  const slices: ColdJob[] = [];
  for (const [file, kind] of [[run.rolloutsFile, 'rollouts'], [run.failuresFile, 'failures']] as const) {
    const st = file ? lstatSync(file, { throwIfNoEntry: false }) : undefined;
    if (!file || !st) continue;
    const lines: LineFile = { file, kind, st, row: rows.file(file, kind, null), offset: 0, nextLine: 1 };
    stats.filesRead++;
    lineFiles.push(lines);
    for (let from = 0; from < st.size; from += sliceBytes) slices.push({ kind: 'slice', lines, from });
  }
  const message = (job: ColdJob): WorkerJob =>
    job.kind === 'slice'
      ? { kind: 'rollouts', file: job.lines.file, from: job.from, to: Math.min(job.lines.st.size, job.from + sliceBytes), size: job.lines.st.size, atLineStart: job.from === 0, countCalls: true }
      : { kind: 'capture', files: job.ids.map((id) => ({ file: fileOf(id), state: NEW_FILE })), encode: true };

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

  // Capture files wait here until a job's worth has come (their rollouts' rows are made), in line order. A capture
  // file is a line's once a line took its id (ColdRows.taken): a key is never taken twice.
  const waiting: string[] = [];
  const jobs = new OrderedJobs<ColdJob>(pool, slices.slice(0, SLICES_AHEAD), message, JOBS_PER_WORKER);
  let nextSlice = Math.min(SLICES_AHEAD, slices.length);
  let slicesRead = 0;
  const captureJobs = (final: boolean) => {
    while (waiting.length >= FILES_PER_JOB || (final && waiting.length)) jobs.add({ kind: 'capture', ids: waiting.splice(0, FILES_PER_JOB) });
  };
  // After the last slice: the capture files no line names, as ingest reads them (after every named one, in dir order).
  const afterLines = () => {
    for (const id of captured) if (!rows.taken(id)) waiting.push(id);
    captureJobs(true);
  };
  if (!slices.length) afterLines();
  try {
    while (!jobs.done) {
      const { job, result } = await jobs.take();
      if (job.kind === 'slice') {
        // A job whose worker failed is run here.
        const read = result?.kind === 'rollouts' ? result.slice : (runJob(message(job), false) as Extract<JobResult, { kind: 'rollouts' }>).slice;
        const lf = job.lines;
        for (const l of read.lines) l.lineNo += lf.nextLine;
        stats.bytesRead += read.bytes;
        stats.linesRead += read.count;
        lf.nextLine += read.count;
        if (read.end >= 0) lf.offset = read.end;
        for (const row of rows.lines(lf.row, lf.kind, read.lines)) {
          note(rows.pkOf(row));
          const key = row[rows.keyAt] as string;
          if (captured.has(key)) waiting.push(key);
          else {
            rows.settle(row, markers.has(key));
            batch.rollouts.push(row);
          }
        }
        captureJobs(false);
        if (nextSlice < slices.length) jobs.add(slices[nextSlice++]);
        if (++slicesRead === slices.length) afterLines();
      } else {
        const capture = (result?.kind === 'capture' ? result : runJob(message(job), true)) as Extract<JobResult, { kind: 'capture' }>;
        let from = 0;
        for (let k = 0; k < job.ids.length; k++) {
          const id = job.ids[k];
          const count = capture.counts[k];
          const read = capture.reads[k];
          const ids = rows.captureFile(fileOf(id), id, read, markers.has(id));
          if (ids) {
            if (read.kind === 'read') {
              stats.filesRead++;
              stats.bytesRead += read.bytes;
              stats.linesRead += read.lines;
              note(ids.pk);
            }
            batch.files.push(ids.file);
            if (count > 0) batch.pieces.push({ pk: ids.pk, fileId: ids.fileId, key: id, calls: capture.encoded!, from, count });
            batch.calls += count;
            if (!rows.isPending(ids.row)) batch.rollouts.push(ids.row);
          }
          from += count;
        }
      }
      if (batch.calls >= COLD_WRITE_CALLS || batch.rollouts.length >= COLD_WRITE_ROLLOUTS) await flush();
    }
  } catch (err) {
    if (!(err instanceof ColdPassRefused)) throw err;
    // Rows already written stay until the ordinary pass writes them again, newer; its writes come after these.
    await Promise.allSettled(inFlight);
    return false;
  }
  // Markers with neither a capture file nor a line: their rollouts last, as ingest makes them.
  const markerOnly = [...markers].filter((id) => !captured.has(id) && isStoreRolloutId(id) && !rows.taken(id));
  rows.markers(markerOnly);
  for (const id of markerOnly) note(rows.pkOf(rows.rollout(id)!));
  rows.finish();
  await flush();
  // The rest: rollouts whose capture file could not be read (gone, or unopenable), and the markers'.
  for (const r of rows.rolloutRows) batch.rollouts.push(r);
  await flush();
  await Promise.all(inFlight);
  // The rollouts files' read offsets last: an offset in the database says that the rows read up to it are there.
  for (const lf of lineFiles) rows.rolloutsFileRead(lf.row, lf.st, lf.offset, lf.nextLine);
  await (await write({ rollouts: [], files: lineFiles.map((f) => f.row), pieces: [] }, rows)).done;
  return true;
}
