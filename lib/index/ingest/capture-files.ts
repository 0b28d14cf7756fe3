// The capture-file path of ingest: a pass over a run's capture dir (or the live path's named files in it), each
// file's read (capture-file.ts, in this thread or by the workers) applied to the index: its file row, its calls,
// its rollout's capture state and aggregates, the dir's incomplete markers, and the rows of files that went away.
//
// A cold pass takes the files in rollout order (calls append to the B-tree, pages stay full), many files to a
// transaction of about BATCH_MS, with the run's file rows and rollouts loaded once into maps; a file read from its
// start stores its rollout's aggregates with its calls (the rollout is then settled for the pass).
import { lstatSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { RolloutAggregator } from '../aggregates/rollouts';
import type { FoldCache } from '../aggregates/live';
import { rolloutOrderKey } from '../rollout-order';
import { NEW_FILE, readCallsBefore, readFileForIngest, type IngestRead, type FileState, type PackedCalls } from './capture-file';
import type { EncodedCalls } from '../clickhouse/call-columns';
import { DEFAULT_MIN_FILES, FILES_PER_JOB, OrderedJobs, type IngestOptions, type IngestPool } from './parallel';
import { BATCH_MS, changed, poolFor, touch, type Pass, type RolloutState } from './pass';
import { callMirror, type FileRow, type IngestRows } from './rows';
import { INCOMPLETE_SUFFIX, rolloutIdOfCaptureFile } from '../../capture/store';
import { isStoreRolloutId } from '../../capture/ids';

export class CaptureFiles {
  private readonly stmt;
  /** Live-path reads of named capture files so far (a full pass checks whether any came while it read). */
  private liveCaptureWrites = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly options: IngestOptions,
    private readonly rows: IngestRows,
    private readonly aggregator: RolloutAggregator,
    private readonly folds: FoldCache,
  ) {
    this.stmt = {
      filesOfRun: db.prepare("SELECT * FROM files WHERE run_no = ? AND kind = 'capture'"),
      filesOfRunPage: db.prepare("SELECT * FROM files WHERE run_no = ? AND kind = 'capture' AND id > ? ORDER BY id LIMIT ?"),
      insertReadFile: db.prepare(
        `INSERT INTO files (run_no, path, kind, rollout_id, dev, ino, size, mtime_ms, offset, next_line, next_call_index, unreadable, pending)
         VALUES (?, ?, 'capture', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      deleteFile: db.prepare('DELETE FROM files WHERE id = ?'),
      rolloutByKey: db.prepare('SELECT pk, capture_file, marker FROM rollouts WHERE run_no = ? AND key = ?'),
      rolloutsOfRunPage: db.prepare('SELECT key, pk, capture_file, marker FROM rollouts WHERE run_no = ? AND pk > ? ORDER BY pk LIMIT ?'),
      insertRollout: db.prepare("INSERT INTO rollouts (run_no, key, rollout_id, source, order_key) VALUES (?, ?, ?, 'capture', ?)"),
      // A capture file holds one rollout's calls: deleting by the primary key's prefix, not a scan of file_id.
      deleteCallsOfCaptureFile: db.prepare('DELETE FROM calls WHERE rollout_pk = ? AND file_id = ?'),
      setCaptureState: db.prepare('UPDATE rollouts SET capture_file = ?, unreadable = ?, marker = ? WHERE pk = ?'),
      setMarker: db.prepare('UPDATE rollouts SET marker = ? WHERE pk = ?'),
      markersOfRun: db.prepare('SELECT pk, key FROM rollouts WHERE run_no = ? AND marker = 1'),
    };
  }

  /** A change to a rollout that is not a pure append: its fold, and any append range noted, no longer hold. */
  private notAppend(pass: Pass, pk: number): void {
    pass.stats.appended?.delete(pk);
    this.folds.delete(pk);
  }

  /** A capture file's row, new to the index, with the state of its first read. */
  private insertReadFile(runNo: number, file: string, rolloutId: string, st: FileState): FileRow {
    const info = this.stmt.insertReadFile.run(runNo, file, rolloutId, st.dev, st.ino, st.size, st.mtime_ms, st.offset, st.next_line, st.next_call_index, st.unreadable, st.pending);
    return { id: Number(info.lastInsertRowid), run_no: runNo, path: file, kind: 'capture', rollout_id: rolloutId, ...st };
  }

  /** The rollout row for an id, created (as a capture-only rollout) when the rollouts file has not named it. */
  private rollout(pass: Pass, key: string): RolloutState {
    // Not in the pass's map: looked up too, since the live path may have created it while the pass awaited.
    let r = pass.rollouts?.get(key) ?? (this.stmt.rolloutByKey.get(pass.runNo, key) as RolloutState | undefined);
    if (r) pass.rollouts?.set(key, r);
    else {
      r = { pk: Number(this.stmt.insertRollout.run(pass.runNo, key, key, rolloutOrderKey(key)).lastInsertRowid), capture_file: null, marker: 0 };
      pass.rollouts?.set(key, r);
    }
    return r;
  }

  private setCaptureState(r: RolloutState, fileId: number | null, unreadable: number, marker: number): void {
    this.stmt.setCaptureState.run(fileId, unreadable, marker, r.pk);
    r.capture_file = fileId;
    r.marker = marker;
  }

  private setMarker(pass: Pass, r: RolloutState, marker: number): void {
    this.stmt.setMarker.run(marker, r.pk);
    r.marker = marker;
    touch(pass, r.pk);
  }

  async ingestCaptureDir(pass: Pass, dir: string): Promise<void> {
    const liveWrites = this.liveCaptureWrites; // before the file rows are loaded (the loading yields)
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const markers = new Set(names.filter((n) => n.endsWith(INCOMPLETE_SUFFIX)).map((n) => n.slice(0, -INCOMPLETE_SUFFIX.length)));
    // Loaded a page at a time with the event loop's turns between them: over 100k files this is a second or two
    // of work, and a warm start answers requests meanwhile.
    pass.rollouts = new Map();
    for await (const r of pages<RolloutState & { key: string }>(this.stmt.rolloutsOfRunPage, pass.runNo, 'pk')) pass.rollouts.set(r.key, r);
    const files = new Map<string, FileRow>();
    for await (const f of pages<FileRow>(this.stmt.filesOfRunPage, pass.runNo, 'id')) files.set(f.path, f);
    const captureIds = new Set<string>();
    const todo: { id: string; order: number; known: boolean }[] = [];
    // A file's path as stored is path.join(dir, name); for a normalized dir (as discovery gives) that is dir + sep +
    // name, without path.join's cost on each of 100k names.
    const prefix = dir + path.sep;
    const pathOf = path.join(dir, 'x') === prefix + 'x' ? (name: string) => prefix + name : (name: string) => path.join(dir, name);
    for (const name of names) {
      const id = rolloutIdOfCaptureFile(name);
      if (!id || !isStoreRolloutId(id)) continue;
      captureIds.add(id);
      todo.push({ id, order: pass.rollouts.get(id)?.pk ?? Number.MAX_SAFE_INTEGER, known: files.has(pathOf(name)) });
    }
    await yieldToLoop();
    todo.sort((a, b) => a.order - b.order);
    const fileOf = (id: string) => pathOf(id + '.capture.jsonl');
    // Files new to the index go to the workers when there are many; files already indexed (mostly unchanged:
    // a stat each) stay in this thread, first. New files get their file ids and rollout pks in the same order
    // either way, so the index is the same as a single-thread pass.
    const fresh = todo.filter((t) => !t.known);
    const pool = await poolFor(pass, this.options, fresh.length >= (this.options.minFiles ?? DEFAULT_MIN_FILES));
    const inThread = pool ? todo.filter((t) => t.known) : todo;
    for (let i = 0; i < inThread.length; ) {
      const deadline = performance.now() + BATCH_MS;
      this.db.transaction(() => {
        while (i < inThread.length && performance.now() < deadline) {
          const { id } = inThread[i++];
          const file = fileOf(id);
          this.ingestCaptureFile(pass, file, id, markers.has(id), files.get(file));
        }
      })();
      if (i < inThread.length) await yieldToLoop();
    }
    if (pool) await this.ingestCaptureFilesParallel(pass, pool, fresh.map((t) => t.id), fileOf, markers, files, liveWrites);
    this.db.transaction(() => {
      // Markers without a capture file, and markers that appeared or vanished.
      for (const id of markers) {
        if (captureIds.has(id) || !isStoreRolloutId(id)) continue;
        this.setMarker(pass, this.rollout(pass, id), 1);
      }
      for (const row of this.stmt.markersOfRun.all(pass.runNo) as { pk: number; key: string }[]) {
        if (!markers.has(row.key)) this.setMarker(pass, pass.rollouts!.get(row.key) ?? { ...row, capture_file: null, marker: 1 }, 0);
      }
      this.dropVanishedCaptureFiles(pass, dir, captureIds, [...files.values()]);
    })();
  }

  /** ingestCaptureFile for each id, files read by workers; results applied in order, as in-thread. */
  private async ingestCaptureFilesParallel(
    pass: Pass, pool: IngestPool, ids: string[], fileOf: (id: string) => string, markers: Set<string>, files: Map<string, FileRow>,
    liveWrites: number,
  ): Promise<void> {
    const batches: string[][] = [];
    for (let i = 0; i < ids.length; i += FILES_PER_JOB) batches.push(ids.slice(i, i + FILES_PER_JOB));
    // With a mirror that takes them (ClickHouse), the calls come encoded as it writes them, never as values.
    const encode = callMirror(this.db) !== undefined;
    const jobs = new OrderedJobs(pool, batches, (batch) => ({
      kind: 'capture',
      files: batch.map((id) => ({ file: fileOf(id), state: files.get(fileOf(id)) ?? NEW_FILE })),
      encode,
    }));
    for await (const group of jobs.groups(BATCH_MS)) {
      this.db.transaction(() => {
        for (const { job, result } of group) {
          let from = 0;
          job.forEach((id, k) => {
            const file = fileOf(id);
            const count = result?.kind === 'capture' ? result.counts[k] : 0;
            from += count;
            // Redone here when its worker failed, or when the live path stored the file since the job left (looked
            // up only once the live path has stored any capture file since the pass loaded `files`).
            const current = this.liveCaptureWrites === liveWrites ? files.get(file) : this.rows.fileByPath(file);
            if (result?.kind !== 'capture' || !sameState(current, files.get(file))) return this.ingestCaptureFile(pass, file, id, markers.has(id), current);
            const calls = result.encoded ?? result.calls;
            this.applyIngestRead(pass, file, id, markers.has(id), current, result.reads[k], calls ? { calls, from: from - count, count } : undefined);
          });
        }
      })();
    }
  }

  /** Ingests named capture files or markers of a dir (the live path: no directory listing). */
  ingestCaptureFiles(pass: Pass, dir: string, files: string[]): void {
    this.liveCaptureWrites++;
    const ids = new Set<string>();
    for (const file of files) {
      const name = path.basename(file);
      const id = name.endsWith(INCOMPLETE_SUFFIX) ? name.slice(0, -INCOMPLETE_SUFFIX.length) : rolloutIdOfCaptureFile(name);
      if (id && isStoreRolloutId(id)) ids.add(id);
    }
    const vanished = new Map<string, boolean>();
    this.db.transaction(() => {
      for (const id of ids) {
        const capture = path.join(dir, id + '.capture.jsonl');
        const marker = isPresent(path.join(dir, id + INCOMPLETE_SUFFIX));
        if (isPresent(capture)) this.ingestCaptureFile(pass, capture, id, marker, undefined);
        else vanished.set(id, marker);
      }
      if (!vanished.size) return;
      // One pass over the run's file rows for all the files that went away (an `rm` of many at once).
      const rows = this.stmt.filesOfRun.all(pass.runNo) as FileRow[];
      const present = new Set(rows.map((f) => f.rollout_id!).filter((other) => !vanished.has(other)));
      this.dropVanishedCaptureFiles(pass, dir, present, rows);
      for (const [id, marker] of vanished) this.setMarker(pass, this.rollout(pass, id), marker ? 1 : 0);
    })();
  }

  private dropVanishedCaptureFiles(pass: Pass, dir: string, present: Set<string>, rows: FileRow[]): void {
    for (const row of rows) {
      if (path.dirname(row.path) !== dir || (row.rollout_id && present.has(row.rollout_id))) continue;
      const r = this.rollout(pass, row.rollout_id!);
      touch(pass, r.pk);
      this.notAppend(pass, r.pk);
      this.dropCalls(r.pk, row.id);
      this.setCaptureState(r, null, 0, 0);
      this.stmt.deleteFile.run(row.id);
    }
  }

  /** Drops a rollout's calls from its capture file (read again from the start, or gone). */
  private dropCalls(pk: number, fileId: number): void {
    this.stmt.deleteCallsOfCaptureFile.run(pk, fileId);
    callMirror(this.db)?.dropped(pk);
  }

  /** Reads what is new in one capture file; runs inside the caller's transaction. */
  private ingestCaptureFile(pass: Pass, file: string, rolloutId: string, marker: boolean, known: FileRow | undefined): void {
    const row = known ?? this.rows.fileByPath(file);
    this.applyIngestRead(pass, file, rolloutId, marker, row, readFileForIngest(file, row ?? NEW_FILE));
  }

  /**
   * Stores what `readFileForIngest` found in a capture file (read here, or by an ingest worker: its calls packed, or
   * encoded for the mirror, which takes them).
   */
  private applyIngestRead(
    pass: Pass, file: string, rolloutId: string, marker: boolean, known: FileRow | undefined, read: IngestRead,
    worker?: { calls: PackedCalls | EncodedCalls; from: number; count: number },
  ): void {
    if (read.kind === 'absent') return;
    // Every caller has looked the file up: a file new to the index and read is stored with its state at once.
    const fresh = !known && read.kind === 'read';
    const row = known ?? (fresh ? this.insertReadFile(pass.runNo, file, rolloutId, read.state) : this.rows.fileRow(pass.runNo, file, 'capture', rolloutId));
    const r = this.rollout(pass, rolloutId);
    const markerFlag = marker ? 1 : 0;
    if (read.kind === 'unchanged') {
      if (r.marker !== markerFlag || r.capture_file !== row.id) {
        this.setCaptureState(r, row.id, row.unreadable, markerFlag);
        touch(pass, r.pk);
      }
      return;
    }
    if (read.kind === 'unopenable') return;
    if (read.reread) this.dropCalls(r.pk, row.id);
    // An append extends the calls in the working copy: all of them must be there (the mirror may hold them instead).
    else if (!read.fromStart) callMirror(this.db)?.localize(r.pk);
    if (read.fromStart) this.notAppend(pass, r.pk);
    const appendedFrom = read.fromStart ? 0 : row.next_call_index;
    const stats = pass.stats;
    stats.filesRead++;
    stats.bytesRead += read.bytes;
    stats.linesRead += read.lines;
    if (!worker) this.rows.insertCalls(r.pk, row.id, read.calls);
    else if (!('columns' in worker.calls)) this.rows.insertPackedCalls(r.pk, row.id, worker.calls, worker.from, worker.count);
    else if (worker.count > 0 && !(read.fromStart && callMirror(this.db)?.take(r.pk, row.id, worker.calls, worker.from, worker.count))) {
      // Not taken (only the whole of a rollout's calls is): read here as rows (what this read read, and any before it).
      this.rows.insertCalls(r.pk, row.id, readCallsBefore(file, read.state.offset) ?? []);
    }
    const st = read.state;
    if (!fresh) this.rows.updateFile(row.id, st);
    Object.assign(row, st);
    changed(pass.stats, r.pk);
    if (read.totals) {
      // The capture state goes with the aggregates, in one statement (a capture file is read: the run has a capture dir).
      this.aggregator.storeCaptured(r.pk, read.totals, { capture_file: row.id, unreadable: st.unreadable, marker: markerFlag });
      r.capture_file = row.id;
      r.marker = markerFlag;
      pass.settled.add(r.pk);
    } else {
      this.setCaptureState(r, row.id, st.unreadable, markerFlag);
      pass.settled.delete(r.pk);
      const appended = pass.stats.appended;
      if (appended) {
        const prev = appended.get(r.pk);
        appended.set(r.pk, { from: prev ? Math.min(prev.from, appendedFrom) : appendedFrom, to: st.next_call_index });
      }
    }
  }
}

function sameState(a: FileState | undefined, b: FileState | undefined): boolean {
  if (!a || !b) return a === b;
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtime_ms === b.mtime_ms && a.offset === b.offset &&
    a.next_line === b.next_line && a.next_call_index === b.next_call_index && a.unreadable === b.unreadable && a.pending === b.pending;
}

function isPresent(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** The rows of a run a page at a time (by `key`, ascending), with a turn of the event loop between pages. */
async function* pages<T>(stmt: Database.Statement, runNo: number, key: string, size = 20_000): AsyncGenerator<T> {
  let after = -Infinity;
  for (;;) {
    const rows = stmt.all(runNo, after, size) as T[];
    yield* rows;
    if (rows.length < size) return;
    after = (rows[rows.length - 1] as Record<string, number>)[key];
    await yieldToLoop();
  }
}
