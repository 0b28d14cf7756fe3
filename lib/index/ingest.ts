// Incremental ingest. Capture files are append-only, so each is read from the offset where the last ingest
// stopped; a file whose identity changed (replaced) or that shrank (truncated) is read again from the start.
// An unterminated last line is pending: it is neither consumed nor counted until its newline arrives.
import { lstatSync, promises as fsp, type Stats } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { readRolloutLine, type RolloutLine } from './rollout-line';
import { scanExchangeLine } from './scan';
import { recomputeRollout } from './aggregate';
import { FoldCache, RolloutFold } from './live-aggregate';
import type { RunSource } from './discovery';
import { INCOMPLETE_SUFFIX, readLines, rolloutIdOfCaptureFile } from '../capture/store';
import { isStoreRolloutId } from '../capture/ids';

export interface FileRow {
  id: number;
  run_no: number;
  path: string;
  kind: string;
  rollout_id: string | null;
  dev: number;
  ino: number;
  size: number;
  mtime_ms: number;
  offset: number;
  next_line: number;
  next_call_index: number;
  unreadable: number;
  pending: number;
}

export interface IngestStats {
  filesRead: number;
  bytesRead: number;
  linesRead: number;
  rolloutsChanged: Set<number>;
  /** Rollouts whose capture file was only appended to: the call indexes read, [from, to). */
  appended?: Map<number, { from: number; to: number }>;
}

const BATCH_LINES = 2000;
const LIVE_FILES_AT_ONCE = 8;

export class Ingestor {
  private readonly stmt;
  private readonly folds = new FoldCache();

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      fileByPath: db.prepare('SELECT * FROM files WHERE path = ?'),
      insertFile: db.prepare('INSERT INTO files (run_no, path, kind, rollout_id, dev, ino, size, mtime_ms) VALUES (?, ?, ?, ?, 0, 0, 0, 0)'),
      updateFile: db.prepare(
        'UPDATE files SET dev = ?, ino = ?, size = ?, mtime_ms = ?, offset = ?, next_line = ?, next_call_index = ?, unreadable = ?, pending = ? WHERE id = ?',
      ),
      resetFile: db.prepare('UPDATE files SET offset = 0, next_line = 1, next_call_index = 0, unreadable = 0, pending = 0 WHERE id = ?'),
      rolloutByKey: db.prepare('SELECT pk FROM rollouts WHERE run_no = ? AND key = ?'),
      insertRollout: db.prepare("INSERT INTO rollouts (run_no, key, rollout_id, source) VALUES (?, ?, ?, 'capture')"),
      // A capture file's calls are its rollout's: scoped by rollout_pk they are a range of the primary key,
      // where `file_id = ?` alone scans every call (25 s for 50 deleted files at 1M calls).
      deleteCallsOfCaptureFile: db.prepare('DELETE FROM calls WHERE rollout_pk = ? AND file_id = ?'),
      insertCall: db.prepare(`INSERT OR REPLACE INTO calls (rollout_pk, call_index, run_no, model_call_id, response_id, file_id, line_offset, line_length,
        req_off, req_len, resp_off, resp_len, model_server, model, dialect, status_code, response_status, finish_reason, error_category,
        started_at, completed_at, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, cache_creation_tokens, cache_hit,
        latency_ms, ttft_ms, tool_calls) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
      setCaptureState: db.prepare('UPDATE rollouts SET capture_file = ?, unreadable = ?, marker = ? WHERE pk = ?'),
      setMarker: db.prepare('UPDATE rollouts SET marker = ? WHERE pk = ?'),
      markersOfRun: db.prepare('SELECT pk, key FROM rollouts WHERE run_no = ? AND marker = 1'),
    };
  }

  /** Ingests every file of a run that changed since the last ingest. */
  async ingestRun(runNo: number, run: RunSource, stats: IngestStats, only?: Set<string>): Promise<void> {
    // The live path writes a batch of changed files in one transaction: one WAL commit instead of three per
    // file. Other work on this connection while it awaits the disk (a concurrent full pass's transactions
    // become savepoints; reads see the batch) is committed with it.
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
    for (const [file, kind] of [
      [run.rolloutsFile, 'rollouts'],
      [run.failuresFile, 'failures'],
    ] as const) {
      if (file && (!only || only.has(file))) await this.ingestRolloutsFile(runNo, file, kind, run.captureDir !== null, stats);
    }
    if (only) stats.appended ??= new Map();
    try {
      if (run.captureDir) {
        const changed = only ? [...only].filter((p) => path.dirname(p) === run.captureDir) : null;
        if (changed) await this.ingestCaptureFiles(runNo, run.captureDir, changed, stats);
        else await this.ingestCaptureDir(runNo, run.captureDir, stats);
      }
    } catch (err) {
      this.folds.clear();
      throw err;
    }
    if (stats.rolloutsChanged.size) {
      const recompute = this.db.transaction((pks: number[]) => {
        for (const pk of pks) this.updateAggregates(pk, run.captureDir !== null, stats.appended?.get(pk));
      });
      recompute([...stats.rolloutsChanged]);
    }
  }

  /**
   * The live path (a rollout whose capture file was only appended to) folds the new calls into the
   * rollout's cached fold; everything else recomputes from all of the rollout's calls.
   */
  private updateAggregates(pk: number, hasCaptureDir: boolean, appended: { from: number; to: number } | undefined): void {
    if (!appended) {
      this.folds.delete(pk);
      recomputeRollout(this.db, pk, hasCaptureDir);
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

  private fileRow(runNo: number, file: string, kind: string, rolloutId: string | null): FileRow {
    let row = this.stmt.fileByPath.get(file) as FileRow | undefined;
    if (!row) {
      this.stmt.insertFile.run(runNo, file, kind, rolloutId);
      row = this.stmt.fileByPath.get(file) as FileRow;
    }
    return row;
  }

  /** Where to resume: the stored offset, or 0 when the file was replaced or truncated. */
  private resumeFrom(row: FileRow, st: Stats): 'unchanged' | 'append' | 'reread' {
    if (row.dev === st.dev && row.ino === st.ino && row.size === st.size && row.mtime_ms === st.mtimeMs) return 'unchanged';
    if (row.ino !== 0 && (row.dev !== st.dev || row.ino !== st.ino || st.size < row.offset + row.pending)) return 'reread';
    return 'append';
  }

  async ingestCaptureDir(runNo: number, dir: string, stats: IngestStats): Promise<void> {
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const markers = new Set(names.filter((n) => n.endsWith(INCOMPLETE_SUFFIX)).map((n) => n.slice(0, -INCOMPLETE_SUFFIX.length)));
    const captureIds = new Set<string>();
    const unchanged = await this.unchangedCaptureFiles(runNo, dir, names, markers);
    for (const name of names) {
      const id = rolloutIdOfCaptureFile(name);
      if (!id || !isStoreRolloutId(id)) continue;
      captureIds.add(id);
      if (!unchanged.has(name)) await this.ingestCaptureFile(runNo, path.join(dir, name), id, markers.has(id), stats);
    }
    // Markers without a capture file, and markers that appeared or vanished.
    for (const id of markers) {
      if (captureIds.has(id) || !isStoreRolloutId(id)) continue;
      const pk = this.rolloutPk(runNo, id);
      this.stmt.setMarker.run(1, pk);
      stats.rolloutsChanged.add(pk);
    }
    for (const row of this.stmt.markersOfRun.all(runNo) as { pk: number; key: string }[]) {
      if (!markers.has(row.key)) {
        this.stmt.setMarker.run(0, row.pk);
        stats.rolloutsChanged.add(row.pk);
      }
    }
    await this.dropVanishedCaptureFiles(runNo, dir, captureIds, stats);
  }

  /**
   * The names of capture files whose identity, size, mtime, marker and rollout link are what the index holds:
   * one query for the run and one lstat per file, no read and no statement per file (the warm pass over
   * 100,000 unchanged files). lstatSync in slices: a few µs each from the dentry cache, where a promise
   * per file costs several times that; the event loop is yielded between slices.
   */
  private async unchangedCaptureFiles(runNo: number, dir: string, names: string[], markers: Set<string>): Promise<Set<string>> {
    type Known = { id: number; path: string; dev: number; ino: number; size: number; mtime_ms: number; rollout_id: string; marker: number; capture_file: number | null };
    const rows = this.db
      .prepare(
        `SELECT f.id, f.path, f.dev, f.ino, f.size, f.mtime_ms, f.rollout_id, r.marker, r.capture_file FROM files f
         JOIN rollouts r ON r.run_no = f.run_no AND r.key = f.rollout_id WHERE f.run_no = ? AND f.kind = 'capture'`,
      )
      .all(runNo) as Known[];
    const known = new Map(rows.map((r) => [r.path, r]));
    const out = new Set<string>();
    for (let i = 0; i < names.length; i++) {
      if (i % 2000 === 1999) await new Promise((resolve) => setImmediate(resolve));
      const row = known.get(path.join(dir, names[i]));
      if (!row) continue;
      const st = lstatSync(row.path, { throwIfNoEntry: false });
      if (!st || !st.isFile()) continue;
      if (row.dev !== st.dev || row.ino !== st.ino || row.size !== st.size || row.mtime_ms !== st.mtimeMs) continue;
      if (row.marker !== (markers.has(row.rollout_id) ? 1 : 0) || row.capture_file !== row.id) continue;
      out.add(names[i]);
    }
    return out;
  }

  /** Ingests a few named capture files or markers of a dir (the live path: no directory listing). */
  async ingestCaptureFiles(runNo: number, dir: string, files: string[], stats: IngestStats): Promise<void> {
    const ids = new Set<string>();
    for (const file of files) {
      const name = path.basename(file);
      const id = name.endsWith(INCOMPLETE_SUFFIX) ? name.slice(0, -INCOMPLETE_SUFFIX.length) : rolloutIdOfCaptureFile(name);
      if (id && isStoreRolloutId(id)) ids.add(id);
    }
    const vanished = new Map<string, boolean>();
    // A few files at a time, so that their stats and reads overlap: each file is its own rollout, and the
    // statements of one file run synchronously between awaits.
    const queue = [...ids];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const capture = path.join(dir, id + '.capture.jsonl');
        const [marker, exists] = await Promise.all([
          fsp.stat(path.join(dir, id + INCOMPLETE_SUFFIX)).then(() => true, () => false),
          fsp.stat(capture).then(() => true, () => false),
        ]);
        if (exists) await this.ingestCaptureFile(runNo, capture, id, marker, stats);
        else vanished.set(id, marker);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIVE_FILES_AT_ONCE, queue.length) }, worker));
    if (!vanished.size) return;
    // One pass over the run's file rows for all the files that went away (an `rm` of many at once).
    await this.dropVanishedCaptureFiles(runNo, dir, new Set(this.presentIds(runNo, new Set(vanished.keys()))), stats);
    for (const [id, marker] of vanished) {
      const pk = this.rolloutPk(runNo, id);
      this.stmt.setMarker.run(marker ? 1 : 0, pk);
      stats.rolloutsChanged.add(pk);
    }
  }

  private presentIds(runNo: number, except: Set<string>): string[] {
    const rows = this.db.prepare("SELECT rollout_id FROM files WHERE run_no = ? AND kind = 'capture'").pluck().all(runNo) as string[];
    return rows.filter((id) => !except.has(id));
  }

  private async dropVanishedCaptureFiles(runNo: number, dir: string, present: Set<string>, stats: IngestStats): Promise<void> {
    const rows = this.db.prepare("SELECT * FROM files WHERE run_no = ? AND kind = 'capture'").all(runNo) as FileRow[];
    for (const row of rows) {
      if (path.dirname(row.path) !== dir || (row.rollout_id && present.has(row.rollout_id))) continue;
      const pk = this.rolloutPk(runNo, row.rollout_id!);
      stats.rolloutsChanged.add(pk);
      this.db.transaction(() => {
        this.stmt.deleteCallsOfCaptureFile.run(pk, row.id);
        this.stmt.setCaptureState.run(null, 0, 0, pk);
        this.db.prepare('DELETE FROM files WHERE id = ?').run(row.id);
      })();
    }
  }

  /** The rollout row for an id, created (as a capture-only rollout) when the rollouts file has not named it. */
  rolloutPk(runNo: number, key: string): number {
    const row = this.stmt.rolloutByKey.get(runNo, key) as { pk: number } | undefined;
    if (row) return row.pk;
    return Number(this.stmt.insertRollout.run(runNo, key, key).lastInsertRowid);
  }

  async ingestCaptureFile(runNo: number, file: string, rolloutId: string, marker: boolean, stats: IngestStats): Promise<void> {
    const st = await fsp.lstat(file).catch(() => null);
    if (!st || !st.isFile()) return;
    const row = this.fileRow(runNo, file, 'capture', rolloutId);
    const pk = this.rolloutPk(runNo, rolloutId);
    const mode = this.resumeFrom(row, st);
    if (mode === 'unchanged') {
      const prev = this.db.prepare('SELECT marker, capture_file FROM rollouts WHERE pk = ?').get(pk) as { marker: number; capture_file: number | null };
      if (prev.marker !== (marker ? 1 : 0) || prev.capture_file !== row.id) {
        this.stmt.setCaptureState.run(row.id, row.unreadable, marker ? 1 : 0, pk);
        stats.rolloutsChanged.add(pk);
      }
      return;
    }
    if (mode === 'reread') {
      this.db.transaction(() => {
        this.stmt.deleteCallsOfCaptureFile.run(pk, row.id);
        this.stmt.resetFile.run(row.id);
      })();
      Object.assign(row, { offset: 0, next_line: 1, next_call_index: 0, unreadable: 0, pending: 0 });
    }
    stats.rolloutsChanged.add(pk);
    stats.filesRead++;
    const appendedFrom = mode === 'append' ? row.next_call_index : null;
    const handle = await fsp.open(file, 'r');
    let { offset, next_line: nextLine, next_call_index: callIndex, unreadable } = row;
    let batch: unknown[][] = [];
    const flush = () => {
      const rows = batch;
      batch = [];
      this.db.transaction(() => {
        for (const values of rows) this.stmt.insertCall.run(...values);
      })();
    };
    try {
      for await (const line of readLines(handle, { start: offset, startLine: nextLine, holdUnterminated: true })) {
        stats.bytesRead += line.length + 1;
        stats.linesRead++;
        offset = line.offset + line.length + 1;
        nextLine = line.lineNumber + 1;
        const outcome = scanExchangeLine(line.bytes, callIndex);
        if (outcome.kind === 'blank') continue;
        if (outcome.kind === 'unreadable') unreadable++;
        else batch.push(callValues(pk, runNo, row.id, line.offset, line.length, outcome.call));
        callIndex++;
        if (batch.length >= BATCH_LINES) flush();
      }
    } finally {
      await handle.close();
    }
    if (batch.length) flush();
    const pending = Math.max(0, st.size - offset);
    this.stmt.updateFile.run(st.dev, st.ino, st.size, st.mtimeMs, offset, nextLine, callIndex, unreadable, pending, row.id);
    this.stmt.setCaptureState.run(row.id, unreadable, marker ? 1 : 0, pk);
    if (stats.appended && appendedFrom !== null) {
      const prev = stats.appended.get(pk);
      stats.appended.set(pk, { from: prev ? Math.min(prev.from, appendedFrom) : appendedFrom, to: callIndex });
    }
  }

  async ingestRolloutsFile(runNo: number, file: string, kind: 'rollouts' | 'failures', hasCaptureDir: boolean, stats: IngestStats): Promise<void> {
    const st = await fsp.lstat(file).catch(() => null);
    if (!st || !st.isFile()) return;
    const row = this.fileRow(runNo, file, kind, null);
    const mode = this.resumeFrom(row, st);
    if (mode === 'unchanged') return;
    if (mode === 'reread') {
      const pks = this.db.prepare('SELECT pk FROM rollouts WHERE line_file = ?').all(row.id) as { pk: number }[];
      this.db.transaction(() => {
        this.db.prepare('DELETE FROM calls WHERE file_id = ?').run(row.id);
        this.db.prepare("DELETE FROM rollouts WHERE line_file = ? AND capture_file IS NULL").run(row.id);
        this.db.prepare('UPDATE rollouts SET line_file = NULL, line_no = NULL WHERE line_file = ?').run(row.id);
        this.stmt.resetFile.run(row.id);
      })();
      for (const p of pks) stats.rolloutsChanged.add(p.pk);
      Object.assign(row, { offset: 0, next_line: 1, pending: 0 });
    }
    stats.filesRead++;
    const handle = await fsp.open(file, 'r');
    let { offset, next_line: nextLine } = row;
    const lines: RolloutLine[] = [];
    try {
      for await (const line of readLines(handle, { start: offset, startLine: nextLine, holdUnterminated: true })) {
        stats.bytesRead += line.length + 1;
        stats.linesRead++;
        offset = line.offset + line.length + 1;
        nextLine = line.lineNumber + 1;
        const parsed = readRolloutLine(line.bytes, line.lineNumber, line.offset);
        if (parsed) lines.push(parsed);
        if (lines.length >= BATCH_LINES) this.storeRolloutLines(runNo, row.id, kind, hasCaptureDir, lines.splice(0), stats);
      }
    } finally {
      await handle.close();
    }
    this.storeRolloutLines(runNo, row.id, kind, hasCaptureDir, lines, stats);
    this.stmt.updateFile.run(st.dev, st.ino, st.size, st.mtimeMs, offset, nextLine, 0, 0, Math.max(0, st.size - offset), row.id);
  }

  private storeRolloutLines(runNo: number, fileId: number, kind: string, hasCaptureDir: boolean, lines: RolloutLine[], stats: IngestStats): void {
    const upsert = this.db.prepare(`UPDATE rollouts SET rollout_id = ?, line_file = ?, line_no = ?, line_offset = ?, line_length = ?, reward = ?,
      task_index = ?, rollout_index = ?, attempt = ?, failure_class = ?, agent = ?, task = ?, search = ?, attached_calls = ?,
      attached_tokens_total = ?, attached_gaps = ?, source = CASE WHEN ? THEN source ELSE ? END WHERE pk = ?`);
    const insert = this.db.prepare("INSERT INTO rollouts (run_no, key, source) VALUES (?, ?, 'line')");
    const taken = this.db.prepare('SELECT pk, line_file FROM rollouts WHERE run_no = ? AND key = ?');
    this.db.transaction(() => {
      for (const l of lines) {
        let key = l.rolloutId ?? `${kind === 'failures' ? 'failure-' : ''}line-${l.lineNo}`;
        let existing = taken.get(runNo, key) as { pk: number; line_file: number | null } | undefined;
        if (existing && existing.line_file !== null && existing.line_file !== undefined) {
          key = `${key}~${kind === 'failures' ? 'f' : 'l'}${l.lineNo}`; // the same id on two lines: keep both
          existing = taken.get(runNo, key) as typeof existing;
        }
        const pk = existing ? existing.pk : Number(insert.run(runNo, key).lastInsertRowid);
        upsert.run(
          l.rolloutId, fileId, l.lineNo, l.offset, l.length, l.reward, l.taskIndex, l.rolloutIndex, l.attempt,
          l.failureClass ?? (kind === 'failures' ? 'failed' : null), l.agent, l.task, l.search,
          l.attachment?.calls.length ?? null, l.attachment?.tokensTotal ?? null, l.attachment ? JSON.stringify(l.attachment.gaps) : null,
          hasCaptureDir ? 1 : 0, l.attachment ? 'attachment' : 'line', pk,
        );
        if (!hasCaptureDir && l.attachment) {
          this.db.prepare('DELETE FROM calls WHERE rollout_pk = ?').run(pk);
          for (const call of l.attachment.calls) {
            this.stmt.insertCall.run(...callValues(pk, runNo, fileId, l.offset, l.length, { record: call, request: null, response: null }));
          }
        }
        stats.rolloutsChanged.add(pk);
      }
    })();
  }
}

function num(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v !== null && typeof v === 'object' && 'value' in (v as object)) return Number((v as { value: number }).value);
  return null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function callValues(
  pk: number,
  runNo: number,
  fileId: number,
  lineOffset: number,
  lineLength: number,
  call: { record: Record<string, unknown>; request: { start: number; end: number } | null; response: { start: number; end: number } | null },
): unknown[] {
  const r = call.record;
  const ref = r.model_ref as { name?: unknown } | null;
  const toolCalls = Array.isArray(r.tool_calls) ? r.tool_calls.length : 0;
  return [
    pk, num(r.call_index), runNo, str(r.model_call_id), str(r.response_id), fileId, lineOffset, lineLength,
    call.request ? lineOffset + call.request.start : null, call.request ? call.request.end - call.request.start : null,
    call.response ? lineOffset + call.response.start : null, call.response ? call.response.end - call.response.start : null,
    ref && typeof ref.name === 'string' ? ref.name : null, str(r.model), str(r.dialect), num(r.status_code), str(r.response_status),
    str(r.finish_reason), str(r.error_category), num(r.started_at), num(r.completed_at), num(r.tokens_in), num(r.tokens_out),
    num(r.tokens_reasoning), num(r.tokens_total), num(r.cached_tokens), num(r.cache_creation_tokens),
    r.cache_hit === null || r.cache_hit === undefined ? null : r.cache_hit ? 1 : 0, num(r.latency_total_ms), num(r.latency_ttft_ms), toolCalls,
  ];
}

