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
import { closeSync, fstatSync, lstatSync, openSync, promises as fsp, readSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { parseRolloutLine } from '../../rollouts/rollout-line';
import { readRolloutsSlice, storedRolloutLine, type StoredRolloutLine } from './rollouts-file';
import { RolloutAggregator } from '../aggregates/rollouts';
import { storedCallId } from '../call-id';
import { rolloutOrderKey } from '../rollout-order';
import { CALL_WIDTH, NEW_FILE, readFileForIngest, resumeFrom, unpackCall, type IngestRead, type FileState, type PackedCalls } from './capture-file';
import { FoldCache, RolloutFold } from '../aggregates/live';
import { DEFAULT_MIN_BYTES, DEFAULT_MIN_FILES, DEFAULT_SLICE_BYTES, FILES_PER_JOB, IngestPool, OrderedJobs, workerCount, type IngestOptions } from './parallel';
import { readLinesSync } from './line-reader';
import type { RunSource } from '../sources/discovery';
import { INCOMPLETE_SUFFIX, rolloutIdOfCaptureFile } from '../../capture/store';
import { isStoreRolloutId } from '../../capture/ids';
import { stripAscii } from '../../capture/bytes';
import { rolloutSource } from '../../capture/vocabulary';
import type { ToolCallRow, TrajectorySummary } from '../../rollouts/trajectory-summary';

export interface FileRow extends FileState {
  id: number;
  run_no: number;
  path: string;
  kind: string;
  rollout_id: string | null;
}

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
const BATCH_MS = 100;
/** Bytes of a rollouts file read per transaction. */
const ROLLOUTS_SLICE_BYTES = 16 << 20;
/** The longest unterminated last line of a rollouts file that is parsed (readRolloutsTail). */
const TAIL_BYTES = 64 << 20;

interface RolloutState {
  pk: number;
  capture_file: number | null;
  marker: number;
}

/** One pass over a run: maps loaded once, and the rollouts whose aggregates are already up to date. */
interface Pass {
  runNo: number;
  hasCaptureDir: boolean;
  stats: IngestStats;
  rollouts: Map<string, RolloutState> | null;
  settled: Set<number>;
  /** Ingest workers, started by the first part of the pass that is large enough (parallel.ts). */
  pool?: Promise<IngestPool | null>;
}

export class Ingestor {
  private readonly stmt;
  private readonly aggregator: RolloutAggregator;
  private readonly folds = new FoldCache();
  private readonly callRow: unknown[] = new Array(CALL_WIDTH);
  /** Live-path reads of named capture files so far (a full pass checks whether any came while it read). */
  private liveCaptureWrites = 0;
  /** Rollouts files being read, and those another pass asked for meanwhile (ingestRolloutsFile). */
  private readonly rolloutsReading = new Set<string>();
  private readonly rolloutsAgain = new Set<string>();

  constructor(
    private readonly db: Database.Database,
    private readonly options: IngestOptions = {},
  ) {
    this.aggregator = new RolloutAggregator(db);
    this.stmt = {
      fileByPath: db.prepare('SELECT * FROM files WHERE path = ?'),
      filesOfRun: db.prepare("SELECT * FROM files WHERE run_no = ? AND kind = 'capture'"),
      filesOfRunPage: db.prepare("SELECT * FROM files WHERE run_no = ? AND kind = 'capture' AND id > ? ORDER BY id LIMIT ?"),
      insertFile: db.prepare('INSERT INTO files (run_no, path, kind, rollout_id, dev, ino, size, mtime_ms) VALUES (?, ?, ?, ?, 0, 0, 0, 0)'),
      insertReadFile: db.prepare(
        `INSERT INTO files (run_no, path, kind, rollout_id, dev, ino, size, mtime_ms, offset, next_line, next_call_index, unreadable, pending)
         VALUES (?, ?, 'capture', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      updateFile: db.prepare(
        'UPDATE files SET dev = ?, ino = ?, size = ?, mtime_ms = ?, offset = ?, next_line = ?, next_call_index = ?, unreadable = ?, pending = ? WHERE id = ?',
      ),
      resetFile: db.prepare('UPDATE files SET offset = 0, next_line = 1, next_call_index = 0, unreadable = 0, pending = 0 WHERE id = ?'),
      deleteFile: db.prepare('DELETE FROM files WHERE id = ?'),
      rolloutByKey: db.prepare('SELECT pk, capture_file, marker FROM rollouts WHERE run_no = ? AND key = ?'),
      rolloutsOfRunPage: db.prepare('SELECT key, pk, capture_file, marker FROM rollouts WHERE run_no = ? AND pk > ? ORDER BY pk LIMIT ?'),
      insertRollout: db.prepare("INSERT INTO rollouts (run_no, key, rollout_id, source, order_key) VALUES (?, ?, ?, 'capture', ?)"),
      deleteCallsOfFile: db.prepare('DELETE FROM calls WHERE file_id = ?'),
      // A capture file holds one rollout's calls: deleting by the primary key's prefix, not a scan of file_id.
      deleteCallsOfCaptureFile: db.prepare('DELETE FROM calls WHERE rollout_pk = ? AND file_id = ?'),
      deleteCallsOfRollout: db.prepare('DELETE FROM calls WHERE rollout_pk = ?'),
      insertCall: db.prepare(`INSERT OR REPLACE INTO calls (rollout_pk, call_index, model_call_id, file_id, line_offset, line_length,
        req_off, req_len, resp_off, resp_len, model_server, model, dialect, status_code, response_status, finish_reason, error_category,
        started_at, completed_at, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, cache_creation_tokens, cache_hit,
        latency_ms, ttft_ms, tool_calls) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
      setCaptureState: db.prepare('UPDATE rollouts SET capture_file = ?, unreadable = ?, marker = ? WHERE pk = ?'),
      setMarker: db.prepare('UPDATE rollouts SET marker = ? WHERE pk = ?'),
      markersOfRun: db.prepare('SELECT pk, key FROM rollouts WHERE run_no = ? AND marker = 1'),
      rolloutsOfLineFile: db.prepare('SELECT pk FROM rollouts WHERE line_file = ?'),
      deleteLineRollouts: db.prepare('DELETE FROM rollouts WHERE line_file = ? AND capture_file IS NULL'),
      unlinkLineFile: db.prepare(`UPDATE rollouts SET line_file = NULL, line_no = NULL, line_problem = NULL, ${NO_TRAJECTORY} WHERE line_file = ?`),
      deleteToolCallsOfFile: db.prepare('DELETE FROM tool_calls WHERE file_id = ?'),
      deleteToolCallsOfRollout: db.prepare('DELETE FROM tool_calls WHERE rollout_pk = ?'),
      insertToolCall: db.prepare(`INSERT INTO tool_calls (rollout_pk, seq, file_id, invocation_id, tool_call_id, tool_name, status, started_at,
        duration_ms, timing_source, sandbox_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      upsertLine: db.prepare(`UPDATE rollouts SET rollout_id = ?, line_file = ?, line_no = ?, line_offset = ?, line_length = ?, reward = ?,
        task_index = ?, rollout_index = ?, attempt = ?, failure_class = ?, agent = ?, task = ?, search = ?, attached_calls = ?,
        attached_tokens_total = ?, attached_gaps = ?, usage_in = ?, usage_out = ?, usage_reasoning = ?, usage_cached = ?, usage_total = ?,
        line_problem = ?, source = ?, prompt = ?, expected = ?, extracted = ?, outcome = ?, ${TRAJECTORY_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE pk = ?`),
      insertLine: db.prepare(`INSERT INTO rollouts (run_no, key, rollout_id, line_file, line_no, line_offset, line_length, reward, task_index,
        rollout_index, attempt, failure_class, agent, task, search, attached_calls, attached_tokens_total, attached_gaps, usage_in, usage_out,
        usage_reasoning, usage_cached, usage_total, line_problem, source, prompt, expected, extracted, outcome, ${TRAJECTORY_COLUMNS.join(', ')}, order_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${TRAJECTORY_COLUMNS.map(() => '?').join(', ')}, ?)
        ON CONFLICT (run_no, key) DO NOTHING`),
      lineRolloutByKey: db.prepare('SELECT pk, line_file FROM rollouts WHERE run_no = ? AND key = ?'),
      tailOfFile: db.prepare('SELECT tail_pk FROM files WHERE id = ?'),
      setTail: db.prepare('UPDATE files SET tail_pk = ? WHERE id = ?'),
      captureFileOf: db.prepare('SELECT capture_file FROM rollouts WHERE pk = ?'),
      deleteRollout: db.prepare('DELETE FROM rollouts WHERE pk = ?'),
      unlinkRolloutLine: db.prepare(`UPDATE rollouts SET line_file = NULL, line_no = NULL, ${NO_TRAJECTORY} WHERE pk = ?`),
    };
  }

  /** Ingests every file of a run that changed since the last ingest (`only`: just these paths, the live path). */
  async ingestRun(runNo: number, run: RunSource, stats: IngestStats, only?: Set<string>): Promise<void> {
    // The live path writes a batch of changed files in one transaction: one WAL commit instead of several per
    // file. Other work on this connection while it awaits (a concurrent full pass's transactions become
    // savepoints; reads see the batch) is committed with it.
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
      for (const [file, kind] of [
        [run.rolloutsFile, 'rollouts'],
        [run.failuresFile, 'failures'],
      ] as const) {
        if (file && (!only || only.has(file))) await this.ingestRolloutsFile(pass, file, kind);
      }
      if (run.captureDir) {
        const changed = only ? [...only].filter((p) => path.dirname(p) === run.captureDir) : null;
        if (changed) this.ingestCaptureFiles(pass, run.captureDir, changed);
        else await this.ingestCaptureDir(pass, run.captureDir);
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

  /** A change to a rollout that is not a pure append: its fold, and any append range noted, no longer hold. */
  private notAppend(pass: Pass, pk: number): void {
    pass.stats.appended?.delete(pk);
    this.folds.delete(pk);
  }

  /** Marks a rollout changed in this pass; its aggregates are recomputed at the end unless settled again. */
  private touch(pass: Pass, pk: number): void {
    changed(pass.stats, pk);
    pass.settled.delete(pk);
  }

  private fileRow(runNo: number, file: string, kind: string, rolloutId: string | null): FileRow {
    let row = this.stmt.fileByPath.get(file) as FileRow | undefined;
    if (!row) {
      const id = Number(this.stmt.insertFile.run(runNo, file, kind, rolloutId).lastInsertRowid);
      row = { id, run_no: runNo, path: file, kind, rollout_id: rolloutId, dev: 0, ino: 0, size: 0, mtime_ms: 0, offset: 0, next_line: 1, next_call_index: 0, unreadable: 0, pending: 0 };
    }
    return row;
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
    this.touch(pass, r.pk);
  }

  private async ingestCaptureDir(pass: Pass, dir: string): Promise<void> {
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
    const pool = await this.poolFor(pass, fresh.length >= (this.options.minFiles ?? DEFAULT_MIN_FILES));
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

  /** The pass's worker pool when a part of it is `large` enough (started once per pass). */
  private async poolFor(pass: Pass, large: boolean): Promise<IngestPool | null> {
    if (!large) return null;
    const awaitWorkers = this.options.awaitWorkers === true;
    pass.pool ??= IngestPool.start(workerCount(this.options)).then(async (pool) => {
      if (pool && awaitWorkers) await pool.ready();
      return pool;
    });
    return pass.pool;
  }

  /** ingestCaptureFile for each id, files read by workers; results applied in order, as in-thread. */
  private async ingestCaptureFilesParallel(
    pass: Pass, pool: IngestPool, ids: string[], fileOf: (id: string) => string, markers: Set<string>, files: Map<string, FileRow>,
    liveWrites: number,
  ): Promise<void> {
    const batches: string[][] = [];
    for (let i = 0; i < ids.length; i += FILES_PER_JOB) batches.push(ids.slice(i, i + FILES_PER_JOB));
    const jobs = new OrderedJobs(pool, batches, (batch) => ({
      kind: 'capture',
      files: batch.map((id) => ({ file: fileOf(id), state: files.get(fileOf(id)) ?? NEW_FILE })),
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
            const current = this.liveCaptureWrites === liveWrites ? files.get(file) : (this.stmt.fileByPath.get(file) as FileRow | undefined);
            if (result?.kind !== 'capture' || !sameState(current, files.get(file))) return this.ingestCaptureFile(pass, file, id, markers.has(id), current);
            this.applyIngestRead(pass, file, id, markers.has(id), current, result.reads[k], result.calls ? { packed: result.calls, from: from - count, count } : undefined);
          });
        }
      })();
    }
  }

  /** Ingests named capture files or markers of a dir (the live path: no directory listing). */
  private ingestCaptureFiles(pass: Pass, dir: string, files: string[]): void {
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
      this.touch(pass, r.pk);
      this.notAppend(pass, r.pk);
      this.stmt.deleteCallsOfCaptureFile.run(r.pk, row.id);
      this.setCaptureState(r, null, 0, 0);
      this.stmt.deleteFile.run(row.id);
    }
  }

  /** Reads what is new in one capture file; runs inside the caller's transaction. */
  private ingestCaptureFile(pass: Pass, file: string, rolloutId: string, marker: boolean, known: FileRow | undefined): void {
    const row = known ?? (this.stmt.fileByPath.get(file) as FileRow | undefined);
    this.applyIngestRead(pass, file, rolloutId, marker, row, readFileForIngest(file, row ?? NEW_FILE));
  }

  /** Stores what `readFileForIngest` found in a capture file (read here, or by an ingest worker: `packed` calls). */
  private applyIngestRead(
    pass: Pass, file: string, rolloutId: string, marker: boolean, known: FileRow | undefined, read: IngestRead,
    packed?: { packed: PackedCalls; from: number; count: number },
  ): void {
    if (read.kind === 'absent') return;
    // Every caller has looked the file up: a file new to the index and read is stored with its state at once.
    const fresh = !known && read.kind === 'read';
    const row = known ?? (fresh ? this.insertReadFile(pass.runNo, file, rolloutId, read.state) : this.fileRow(pass.runNo, file, 'capture', rolloutId));
    const r = this.rollout(pass, rolloutId);
    const markerFlag = marker ? 1 : 0;
    if (read.kind === 'unchanged') {
      if (r.marker !== markerFlag || r.capture_file !== row.id) {
        this.setCaptureState(r, row.id, row.unreadable, markerFlag);
        this.touch(pass, r.pk);
      }
      return;
    }
    if (read.kind === 'unopenable') return;
    if (read.reread) this.stmt.deleteCallsOfCaptureFile.run(r.pk, row.id);
    if (read.fromStart) this.notAppend(pass, r.pk);
    const appendedFrom = read.fromStart ? 0 : row.next_call_index;
    const stats = pass.stats;
    stats.filesRead++;
    stats.bytesRead += read.bytes;
    stats.linesRead += read.lines;
    if (packed) this.insertPackedCalls(r.pk, row.id, packed.packed, packed.from, packed.count);
    else this.insertCalls(r.pk, row.id, read.calls);
    const st = read.state;
    if (!fresh) this.stmt.updateFile.run(st.dev, st.ino, st.size, st.mtime_ms, st.offset, st.next_line, st.next_call_index, st.unreadable, st.pending, row.id);
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

  /**
   * A rollouts file is read by one pass at a time: its offset is stored when the read ends, so a second reader
   * meanwhile (the live path while a full pass reads it) would read the same lines again and store each twice.
   * That reader leaves it to the one reading, which reads again from where it stopped until nothing is new.
   */
  private async ingestRolloutsFile(pass: Pass, file: string, kind: 'rollouts' | 'failures'): Promise<void> {
    if (this.rolloutsReading.has(file)) {
      this.rolloutsAgain.add(file);
      return;
    }
    this.rolloutsReading.add(file);
    try {
      do {
        this.rolloutsAgain.delete(file);
        await this.readRolloutsFile(pass, file, kind);
      } while (this.rolloutsAgain.has(file));
    } finally {
      this.rolloutsReading.delete(file);
      this.rolloutsAgain.delete(file);
    }
  }

  private async readRolloutsFile(pass: Pass, file: string, kind: 'rollouts' | 'failures'): Promise<void> {
    const st = await fsp.lstat(file).catch(() => null);
    if (!st || !st.isFile()) return;
    const row = this.fileRow(pass.runNo, file, kind, null);
    const mode = resumeFrom(row, st);
    if (mode === 'unchanged') return;
    if (mode === 'reread') {
      const pks = this.stmt.rolloutsOfLineFile.all(row.id) as { pk: number }[];
      this.db.transaction(() => {
        for (const p of pks) this.touch(pass, p.pk);
        this.stmt.deleteCallsOfFile.run(row.id);
        this.stmt.deleteToolCallsOfFile.run(row.id);
        this.stmt.deleteLineRollouts.run(row.id);
        this.stmt.unlinkLineFile.run(row.id);
        this.stmt.resetFile.run(row.id);
      })();
      Object.assign(row, { offset: 0, next_line: 1, pending: 0 });
    }
    this.dropProvisionalTail(pass, row.id);
    pass.stats.filesRead++;
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return;
    }
    let offset = row.offset;
    let nextLine = row.next_line;
    try {
      const size = fstatSync(fd).size;
      const stats = pass.stats;
      const pool = await this.poolFor(pass, size - offset >= (this.options.minBytes ?? DEFAULT_MIN_BYTES));
      if (pool) ({ offset, nextLine } = await this.ingestRolloutsParallel(pass, pool, { file, kind, id: row.id, offset, nextLine, size }));
      let slice = ROLLOUTS_SLICE_BYTES;
      while (offset < size && !pool) {
        const lines: StoredRolloutLine[] = [];
        const read = readLinesSync(fd, offset, Math.min(size, offset + slice), nextLine, (bytes, lineOffset, lineNo) => {
          stats.bytesRead += bytes.length + 1;
          stats.linesRead++;
          const parsed = parseRolloutLine(bytes, lineNo, lineOffset, pass.hasCaptureDir);
          if (parsed) lines.push(storedRolloutLine(parsed, pass.hasCaptureDir));
        });
        if (read.offset === offset) {
          if (offset + slice >= size) break; // only an unterminated last line is left
          slice *= 2; // a line longer than the slice
          continue;
        }
        slice = ROLLOUTS_SLICE_BYTES;
        this.db.transaction(() => this.storeRolloutLines(pass, row.id, kind, lines))();
        offset = read.offset;
        nextLine = read.nextLine;
        if (offset < size) await yieldToLoop();
      }
      if (offset < size) this.readRolloutsTail(pass, fd, { id: row.id, kind, offset, nextLine, size });
    } finally {
      closeSync(fd);
    }
    this.stmt.updateFile.run(st.dev, st.ino, st.size, st.mtimeMs, offset, nextLine, 0, 0, Math.max(0, st.size - offset), row.id);
  }

  /**
   * The last line of a rollouts file when it lacks its newline. NeMo Gym's readers (Python) read such a line, and a
   * finished file may end without one (the shipped example files do), so a last line that is a whole JSON object is
   * stored, provisionally: the file's offset stays before it, and the next read of the file first drops it
   * (dropProvisionalTail) and then reads it again with whatever was appended. A line still being written is not an
   * object yet and waits, as before. Only a tail of at most TAIL_BYTES ending in `}` is parsed.
   */
  private readRolloutsTail(pass: Pass, fd: number, f: { id: number; kind: 'rollouts' | 'failures'; offset: number; nextLine: number; size: number }): void {
    const length = f.size - f.offset;
    if (length > TAIL_BYTES) return;
    // Its end first: a line still being written (a live file) is not read whole on every change.
    const end = readAt(fd, Math.min(length, 64), f.size - Math.min(length, 64));
    const stripped = end && stripAscii(end);
    if (!stripped || stripped.length === 0 || stripped[stripped.length - 1] !== 0x7d) return;
    const bytes = readAt(fd, length, f.offset);
    if (!bytes) return;
    const parsed = parseRolloutLine(bytes, f.nextLine, f.offset, pass.hasCaptureDir);
    if (!parsed || parsed.problem !== null) return;
    const pk = this.db.transaction(() => this.storeRolloutLines(pass, f.id, f.kind, [storedRolloutLine(parsed, pass.hasCaptureDir)]))();
    this.stmt.setTail.run(pk, f.id);
  }

  /** Drops the provisional last line stored by readRolloutsTail, if any: the read that follows stores it again. */
  private dropProvisionalTail(pass: Pass, fileId: number): void {
    const tail = (this.stmt.tailOfFile.get(fileId) as { tail_pk: number | null } | undefined)?.tail_pk;
    if (tail === null || tail === undefined) return;
    this.db.transaction(() => {
      const r = this.stmt.captureFileOf.get(tail) as { capture_file: number | null } | undefined;
      this.stmt.deleteToolCallsOfRollout.run(tail);
      if (r && r.capture_file === null) {
        this.stmt.deleteCallsOfRollout.run(tail);
        this.stmt.deleteRollout.run(tail);
      } else if (r) this.stmt.unlinkRolloutLine.run(tail);
      this.stmt.setTail.run(null, fileId);
      this.touch(pass, tail);
    })();
  }

  /** The rest of a rollouts file, its slices parsed by workers and stored in file order; where it stopped. */
  private async ingestRolloutsParallel(
    pass: Pass, pool: IngestPool, f: { file: string; kind: 'rollouts' | 'failures'; id: number; offset: number; nextLine: number; size: number },
  ): Promise<{ offset: number; nextLine: number }> {
    const sliceBytes = this.options.sliceBytes ?? DEFAULT_SLICE_BYTES;
    const starts: number[] = [];
    for (let at = f.offset; at < f.size; at += sliceBytes) starts.push(at);
    const countCalls = pass.hasCaptureDir;
    const slice = (from: number) => ({ file: f.file, from, to: Math.min(f.size, from + sliceBytes), size: f.size, atLineStart: from === f.offset, countCalls });
    const jobs = new OrderedJobs(pool, starts, (from) => ({ kind: 'rollouts', ...slice(from) }));
    let { offset, nextLine } = f;
    for await (const group of jobs.groups(BATCH_MS)) {
      this.db.transaction(() => {
        for (const { job, result } of group) {
          const s = slice(job);
          // A slice whose worker failed is read here.
          const read = result?.kind === 'rollouts' ? result.slice : readRolloutsSlice(s.file, s.from, s.to, s.size, s.atLineStart, s.countCalls);
          for (const l of read.lines) l.lineNo += nextLine;
          pass.stats.bytesRead += read.bytes;
          pass.stats.linesRead += read.count;
          this.storeRolloutLines(pass, f.id, f.kind, read.lines);
          nextLine += read.count;
          if (read.end >= 0) offset = read.end;
        }
      })();
    }
    return { offset, nextLine };
  }

  /** Inserts calls given as flat `insertCall` parameters (capture-file.ts), with their rollout and file. */
  private insertCalls(pk: number, fileId: number, calls: unknown[]): void {
    const values = this.callRow;
    for (let i = 0; i < calls.length; i += CALL_WIDTH) {
      for (let j = 0; j < CALL_WIDTH; j++) values[j] = calls[i + j];
      values[0] = pk;
      values[3] = fileId;
      this.insertCallRow(values);
    }
  }

  /**
   * One call row, its 29 values as arguments: binding an array reads its elements one by one (measurably slower),
   * and a spread call copies them into a new arguments array first (garbage on every call).
   */
  private insertCallRow(v: unknown[]): void {
    this.stmt.insertCall.run(
      v[0], v[1], storedCallId(v[2]), v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20],
      v[21], v[22], v[23], v[24], v[25], v[26], v[27], v[28],
    );
  }

  private insertPackedCalls(pk: number, fileId: number, calls: PackedCalls, from: number, count: number): void {
    const values = this.callRow;
    for (let c = from; c < from + count; c++) {
      unpackCall(calls, c, values);
      values[0] = pk;
      values[3] = fileId;
      this.insertCallRow(values);
    }
  }

  private insertToolCalls(pk: number, fileId: number, tools: readonly ToolCallRow[]): void {
    for (let i = 0; i < tools.length; i++) {
      const t = tools[i];
      this.stmt.insertToolCall.run(pk, i, fileId, t.invocation_id, t.tool_call_id, t.tool_name, t.status, t.started_at, t.duration_ms, t.timing_source, t.sandbox_id);
    }
  }

  /** Stores the lines; returns the rollout pk of the last one (0 for none). */
  private storeRolloutLines(pass: Pass, fileId: number, kind: string, lines: StoredRolloutLine[]): number {
    const { runNo, hasCaptureDir } = pass;
    let last = 0;
    for (const l of lines) {
      let key = l.rolloutId ?? `${kind === 'failures' ? 'failure-' : ''}line-${l.lineNo}`;
      const u = l.usage;
      const values = [
        l.rolloutId, fileId, l.lineNo, l.offset, l.length, l.reward, l.taskIndex, l.rolloutIndex, l.attempt,
        l.failureClass ?? (kind === 'failures' ? 'failed' : null), l.agent, l.task, l.search ?? `line ${l.lineNo}`,
        l.attachment?.calls ?? null, l.attachment?.tokensTotal ?? null, l.attachment ? l.attachment.gaps : null,
        u?.tokens_in ?? null, u?.tokens_out ?? null, u?.tokens_reasoning ?? null, u?.cached_tokens ?? null, u?.tokens_total ?? null,
        l.problem, rolloutSource(hasCaptureDir && l.rolloutId !== null, !!l.attachment), l.prompt, l.expected, l.extracted, l.outcome,
        ...trajectoryValues(l.trajectory),
      ];
      // A rollout new to the index is inserted with its line's columns at once (a cold pass: one statement a line,
      // no lookup first); a key already there (a capture-only rollout, a line read again) is looked up and updated.
      const inserted = this.stmt.insertLine.run(runNo, key, ...values, rolloutOrderKey(key));
      let pk = Number(inserted.lastInsertRowid);
      if (inserted.changes === 0) {
        let existing = this.stmt.lineRolloutByKey.get(runNo, key) as { pk: number; line_file: number | null } | undefined;
        if (existing && existing.line_file !== null && existing.line_file !== undefined) {
          key = `${key}~${kind === 'failures' ? 'f' : 'l'}${l.lineNo}`; // the same id on two lines: keep both
          existing = this.stmt.lineRolloutByKey.get(runNo, key) as typeof existing;
        }
        pk = existing ? existing.pk : Number(this.stmt.insertLine.run(runNo, key, ...values, rolloutOrderKey(key)).lastInsertRowid);
        if (existing) this.stmt.upsertLine.run(...values, pk);
        this.stmt.deleteToolCallsOfRollout.run(pk);
      }
      if (l.trajectory) this.insertToolCalls(pk, fileId, l.trajectory.tools);
      if (!hasCaptureDir && l.attachment) {
        this.stmt.deleteCallsOfRollout.run(pk);
        this.insertCalls(pk, fileId, l.attachment.callValues);
      }
      this.touch(pass, pk);
      last = pk;
    }
    return last;
  }
}

// The rollout columns of a line's trajectory summary, in the order trajectoryValues gives them.
const TRAJECTORY_COLUMNS = [
  'trajectory_source', 'invocations', 'subagent_depth', 'turns', 'tool_calls', 'tool_failed', 'tool_time', 'tool_time_max', 'tool_unmeasured',
  'compactions', 'sandboxes', 'trajectory_gaps', 'tool_names', 'tool_statuses',
] as const;
const NO_TRAJECTORY = TRAJECTORY_COLUMNS.map((c) => `${c} = NULL`).join(', ');

const tags = (values: (string | null)[]): string | null => {
  const set = [...new Set(values.filter((v): v is string => v !== null))];
  return set.length ? `|${set.join('|')}|` : null;
};

function trajectoryValues(t: TrajectorySummary | null): unknown[] {
  if (!t) return TRAJECTORY_COLUMNS.map(() => null);
  return [
    t.source, t.invocations, t.subagent_depth, t.turns, t.tool_calls, t.tool_failed, t.tool_time, t.tool_time_max, t.tool_unmeasured,
    t.compactions, t.sandboxes, t.gaps.length ? JSON.stringify(t.gaps) : null, tags(t.tools.map((x) => x.tool_name)), tags(t.tools.map((x) => x.status)),
  ];
}

/** Notes a rollout the pass changed. */
function changed(stats: IngestStats, pk: number): void {
  if (stats.rolloutsChanged.size === 0) stats.onFirstChange?.();
  stats.rolloutsChanged.add(pk);
}

/** `length` bytes of `fd` at `position`; null when the file ends before. */
function readAt(fd: number, length: number, position: number): Buffer | null {
  const bytes = Buffer.allocUnsafe(length);
  for (let got = 0; got < length; ) {
    const n = readSync(fd, bytes, got, length - got, position + got);
    if (n === 0) return null;
    got += n;
  }
  return bytes;
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
