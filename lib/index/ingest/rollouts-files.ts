// The rollouts-file path of ingest: a run's rollouts and failures files tailed from where the last read stopped
// (read again from the start when replaced or truncated), in slices of a transaction each, or by the workers
// (rollouts-file.ts reads and parses a slice); each line stored as its rollout's row, with its trajectory's tool
// calls and, in a run without a capture dir, its attached calls as the rollout's calls. A last line without its
// newline is stored provisionally (readRolloutsTail).
import { closeSync, fstatSync, openSync, promises as fsp, readSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { parseRolloutLine } from '../../rollouts/rollout-line';
import { scanShallowFast } from '../scan/fast-scan';
import { readRolloutsSlice, storedRolloutLine, type StoredRolloutLine } from './rollouts-file';
import { rolloutOrderKey } from '../rollout-order';
import { resumeFrom } from './capture-file';
import { DEFAULT_MIN_BYTES, DEFAULT_SLICE_BYTES, OrderedJobs, type IngestOptions, type IngestPool } from './parallel';
import { readLinesSync } from './line-reader';
import { BATCH_MS, poolFor, touch, type Pass } from './pass';
import type { IngestRows } from './rows';
import { stripAscii } from '../../capture/bytes';
import { rolloutSource } from '../../capture/vocabulary';
import type { ToolCallRow, TrajectorySummary } from '../../rollouts/trajectory-summary';

/** Bytes of a rollouts file read per transaction. */
const ROLLOUTS_SLICE_BYTES = 16 << 20;
/** The longest unterminated last line of a rollouts file that is parsed (readRolloutsTail). */
const TAIL_BYTES = 64 << 20;

export class RolloutsFiles {
  private readonly stmt;
  /** Rollouts files being read, and those another pass asked for meanwhile (ingestRolloutsFile). */
  private readonly rolloutsReading = new Set<string>();
  private readonly rolloutsAgain = new Set<string>();

  constructor(
    private readonly db: Database.Database,
    private readonly options: IngestOptions,
    private readonly rows: IngestRows,
  ) {
    this.stmt = {
      resetFile: db.prepare('UPDATE files SET offset = 0, next_line = 1, next_call_index = 0, unreadable = 0, pending = 0 WHERE id = ?'),
      deleteCallsOfFile: db.prepare('DELETE FROM calls WHERE file_id = ?'),
      deleteCallsOfRollout: db.prepare('DELETE FROM calls WHERE rollout_pk = ?'),
      rolloutsOfLineFile: db.prepare('SELECT pk FROM rollouts WHERE line_file = ?'),
      deleteLineRollouts: db.prepare('DELETE FROM rollouts WHERE line_file = ? AND capture_file IS NULL'),
      unlinkLineFile: db.prepare(`UPDATE rollouts SET line_file = NULL, line_no = NULL, line_problem = NULL, ${NO_TRAJECTORY} WHERE line_file = ?`),
      deleteToolCallsOfFile: db.prepare('DELETE FROM tool_calls WHERE file_id = ?'),
      deleteToolCallsOfRollout: db.prepare('DELETE FROM tool_calls WHERE rollout_pk = ?'),
      insertToolCall: db.prepare(`INSERT INTO tool_calls (${TOOL_CALL_COLUMNS.join(', ')}) VALUES (${TOOL_CALL_COLUMNS.map(() => '?').join(', ')})`),
      upsertLine: db.prepare(`UPDATE rollouts SET ${LINE_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE pk = ?`),
      insertLine: db.prepare(`INSERT INTO rollouts (run_no, key, ${LINE_COLUMNS.join(', ')}, order_key)
        VALUES (?, ?, ${LINE_COLUMNS.map(() => '?').join(', ')}, ?) ON CONFLICT (run_no, key) DO NOTHING`),
      lineRolloutByKey: db.prepare('SELECT pk, line_file FROM rollouts WHERE run_no = ? AND key = ?'),
      tailOfFile: db.prepare('SELECT tail_pk FROM files WHERE id = ?'),
      setTail: db.prepare('UPDATE files SET tail_pk = ? WHERE id = ?'),
      captureFileOf: db.prepare('SELECT capture_file FROM rollouts WHERE pk = ?'),
      deleteRollout: db.prepare('DELETE FROM rollouts WHERE pk = ?'),
      unlinkRolloutLine: db.prepare(`UPDATE rollouts SET line_file = NULL, line_no = NULL, ${NO_TRAJECTORY} WHERE pk = ?`),
    };
  }

  /**
   * A rollouts file is read by one pass at a time: its offset is stored when the read ends, so a second reader
   * meanwhile (the live path while a full pass reads it) would read the same lines again and store each twice.
   * That reader leaves it to the one reading, which reads again from where it stopped until nothing is new.
   */
  async ingestRolloutsFile(pass: Pass, file: string, kind: 'rollouts' | 'failures'): Promise<void> {
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
    const row = this.rows.fileRow(pass.runNo, file, kind, null);
    const mode = resumeFrom(row, st);
    if (mode === 'unchanged') return;
    if (mode === 'reread') {
      const pks = this.stmt.rolloutsOfLineFile.all(row.id) as { pk: number }[];
      this.db.transaction(() => {
        for (const p of pks) touch(pass, p.pk);
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
      const pool = await poolFor(pass, this.options, size - offset >= (this.options.minBytes ?? DEFAULT_MIN_BYTES));
      if (pool) ({ offset, nextLine } = await this.ingestRolloutsParallel(pass, pool, { file, kind, id: row.id, offset, nextLine, size }));
      let slice = ROLLOUTS_SLICE_BYTES;
      while (offset < size && !pool) {
        const lines: StoredRolloutLine[] = [];
        const read = readLinesSync(fd, offset, Math.min(size, offset + slice), nextLine, (bytes, lineOffset, lineNo) => {
          stats.bytesRead += bytes.length + 1;
          stats.linesRead++;
          const parsed = parseRolloutLine(bytes, lineNo, lineOffset, pass.hasCaptureDir, scanShallowFast);
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
    this.rows.updateFile(row.id, {
      dev: st.dev, ino: st.ino, size: st.size, mtime_ms: st.mtimeMs, offset, next_line: nextLine, next_call_index: 0, unreadable: 0,
      pending: Math.max(0, st.size - offset),
    });
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
    const parsed = parseRolloutLine(bytes, f.nextLine, f.offset, pass.hasCaptureDir, scanShallowFast);
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
      touch(pass, tail);
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

  private insertToolCalls(pk: number, fileId: number, tools: readonly ToolCallRow[]): void {
    for (let i = 0; i < tools.length; i++) this.stmt.insertToolCall.run(...toolCallValues(pk, i, fileId, tools[i]));
  }

  /** Stores the lines; returns the rollout pk of the last one (0 for none). */
  private storeRolloutLines(pass: Pass, fileId: number, kind: string, lines: StoredRolloutLine[]): number {
    const { runNo, hasCaptureDir } = pass;
    let last = 0;
    for (const l of lines) {
      let key = lineKey(l, kind);
      const values = lineValues(l, fileId, kind, hasCaptureDir);
      // A rollout new to the index is inserted with its line's columns at once (a cold pass: one statement a line,
      // no lookup first); a key already there (a capture-only rollout, a line read again) is looked up and updated.
      const inserted = this.stmt.insertLine.run(runNo, key, ...values, rolloutOrderKey(key));
      let pk = Number(inserted.lastInsertRowid);
      if (inserted.changes === 0) {
        let existing = this.stmt.lineRolloutByKey.get(runNo, key) as { pk: number; line_file: number | null } | undefined;
        if (existing && existing.line_file !== null && existing.line_file !== undefined) {
          key = repeatedLineKey(key, l, kind); // the same id on two lines: keep both
          existing = this.stmt.lineRolloutByKey.get(runNo, key) as typeof existing;
        }
        pk = existing ? existing.pk : Number(this.stmt.insertLine.run(runNo, key, ...values, rolloutOrderKey(key)).lastInsertRowid);
        if (existing) this.stmt.upsertLine.run(...values, pk);
        this.stmt.deleteToolCallsOfRollout.run(pk);
      }
      if (l.trajectory) this.insertToolCalls(pk, fileId, l.trajectory.tools);
      if (!hasCaptureDir && l.attachment) {
        this.stmt.deleteCallsOfRollout.run(pk);
        this.rows.insertCalls(pk, fileId, l.attachment.callValues);
      }
      touch(pass, pk);
      last = pk;
    }
    return last;
  }
}

/** A line's rollout key: its rollout id, else its line (a failures file's marked as such). */
export function lineKey(l: StoredRolloutLine, kind: string): string {
  return l.rolloutId ?? `${kind === 'failures' ? 'failure-' : ''}line-${l.lineNo}`;
}

/** The key of a line whose key an earlier line of the run already has (the same id on two lines: both are kept). */
export function repeatedLineKey(key: string, l: StoredRolloutLine, kind: string): string {
  return `${key}~${kind === 'failures' ? 'f' : 'l'}${l.lineNo}`;
}

/** A line's rollout columns (LINE_COLUMNS' order) as ingest stores them, the line in file `fileId` of `kind`. */
export function lineValues(l: StoredRolloutLine, fileId: number, kind: string, hasCaptureDir: boolean): unknown[] {
  const u = l.usage;
  return [
    l.rolloutId, fileId, l.lineNo, l.offset, l.length, l.reward, l.taskIndex, l.rolloutIndex, l.attempt,
    l.failureClass ?? (kind === 'failures' ? 'failed' : null), l.agent, l.task, l.search ?? `line ${l.lineNo}`,
    l.attachment?.calls ?? null, l.attachment?.tokensTotal ?? null, l.attachment ? l.attachment.gaps : null,
    u?.tokens_in ?? null, u?.tokens_out ?? null, u?.tokens_reasoning ?? null, u?.cached_tokens ?? null, u?.tokens_total ?? null,
    l.problem, rolloutSource(hasCaptureDir && l.rolloutId !== null, !!l.attachment), l.prompt, l.expected, l.extracted, l.outcome,
    ...trajectoryValues(l.trajectory),
  ];
}

/** A trajectory's tool call as a tool_calls row (TOOL_CALL_COLUMNS' order). */
export function toolCallValues(pk: number, seq: number, fileId: number, t: ToolCallRow): unknown[] {
  return [pk, seq, fileId, t.invocation_id, t.tool_call_id, t.tool_name, t.status, t.started_at, t.duration_ms, t.timing_source, t.sandbox_id];
}

// The rollout columns of a line's trajectory summary, in the order trajectoryValues gives them.
const TRAJECTORY_COLUMNS = [
  'trajectory_source', 'invocations', 'subagent_depth', 'turns', 'tool_calls', 'tool_failed', 'tool_time', 'tool_time_max', 'tool_unmeasured',
  'compactions', 'sandboxes', 'trajectory_gaps', 'tool_names', 'tool_statuses',
] as const;
const NO_TRAJECTORY = TRAJECTORY_COLUMNS.map((c) => `${c} = NULL`).join(', ');

/** The rollout columns a line sets (lineValues' order). */
export const LINE_COLUMNS = [
  'rollout_id', 'line_file', 'line_no', 'line_offset', 'line_length', 'reward', 'task_index', 'rollout_index', 'attempt', 'failure_class', 'agent', 'task',
  'search', 'attached_calls', 'attached_tokens_total', 'attached_gaps', 'usage_in', 'usage_out', 'usage_reasoning', 'usage_cached', 'usage_total',
  'line_problem', 'source', 'prompt', 'expected', 'extracted', 'outcome', ...TRAJECTORY_COLUMNS,
] as const;

/** The tool_calls columns a trajectory's tool call sets (toolCallValues' order). */
export const TOOL_CALL_COLUMNS = [
  'rollout_pk', 'seq', 'file_id', 'invocation_id', 'tool_call_id', 'tool_name', 'status', 'started_at', 'duration_ms', 'timing_source', 'sandbox_id',
] as const;

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

/** `length` bytes of `fd` at `position`; null when the file ends before. */
export function readAt(fd: number, length: number, position: number): Buffer | null {
  const bytes = Buffer.allocUnsafe(length);
  for (let got = 0; got < length; ) {
    const n = readSync(fd, bytes, got, length - got, position + got);
    if (n === 0) return null;
    got += n;
  }
  return bytes;
}
