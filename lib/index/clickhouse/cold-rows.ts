// The rows a cold pass over a run writes, built in memory instead of in the working copy: the first pass over a run
// with a capture dir, the working copy holding nothing of it. They are the rows SQLite's ingest would leave in the
// working copy after the same pass, column for column, id for id (tests/unit/index/clickhouse/cold-rows.test.ts holds
// the two equal): what ingest writes for each line (rollouts-files.ts lineValues), for each capture file read from
// its start (capture-files.ts applyIngestRead: the file's row, its rollout's capture state and aggregates, a
// capture-only rollout for a file no line names), for each marker without a capture file, and the aggregates of the
// rollouts the pass changed and did not settle (ingest.ts, at the end of a pass). Ids come after the working copy's
// largest, as SQLite gives them.
//
// What a cold pass cannot give as SQLite would is refused (ColdPassRefused): a line whose key is taken twice over.
import type Database from 'better-sqlite3';
import { AGGREGATE_COLUMNS, aggregateRow, type RolloutCaptureState } from '../aggregates/rollouts';
import { callTotals, type CallTotals } from '../aggregates/call-totals';
import { rolloutOrderKey } from '../rollout-order';
import type { FileIdentity, FileState, IngestRead } from '../ingest/capture-file';
import { LINE_COLUMNS, lineKey, lineValues, repeatedLineKey, TOOL_CALL_COLUMNS, toolCallValues } from '../ingest/rollouts-files';
import type { StoredRolloutLine } from '../ingest/rollouts-file';

export class ColdPassRefused extends Error {
  override name = 'ColdPassRefused';
}

/** A table's stored columns (generated ones left out) and each one's default, as SQLite gives it to a row inserted without it. */
interface Table {
  columns: string[];
  at: Record<string, number>;
  empty: unknown[];
}

function tableOf(db: Database.Database, table: string): Table {
  const info = db.prepare(`PRAGMA table_xinfo(${table})`).all() as { name: string; dflt_value: string | null; hidden: number }[];
  const stored = info.filter((c) => c.hidden === 0);
  const columns = stored.map((c) => c.name);
  return { columns, at: Object.fromEntries(columns.map((c, i) => [c, i])), empty: stored.map((c) => defaultValue(c.dflt_value)) };
}

/** A column default as SQLite stores it: NULL, a number, or a quoted string (the only kinds the schema uses). */
function defaultValue(sql: string | null): unknown {
  if (sql === null || sql.toUpperCase() === 'NULL') return null;
  if (/^'.*'$/s.test(sql)) return sql.slice(1, -1).replace(/''/g, "'");
  const n = Number(sql);
  if (!Number.isFinite(n)) throw new Error(`lib/index/clickhouse/cold-rows.ts: a column default it cannot read: ${sql}`);
  return n;
}

/** A row of a table, each column at its place in `t.columns`. */
type Row = unknown[];

export class ColdRows {
  readonly rollouts: Table;
  readonly files: Table;
  readonly tools: Table;
  /** The run's rows not released yet (release: written), in the order SQLite would have inserted them (ids ascending). */
  readonly rolloutRows = new Set<Row>();
  readonly fileRows = new Set<Row>();
  private readonly byKey = new Map<string, Row>();
  /** Every key a rollout of the pass took, released or not: a line's key is repeated against all of them. */
  private readonly keys = new Set<string>();
  private readonly fileById = new Map<number, Row>();
  /** Each unreleased rollout's tool calls (by pk), in order. */
  readonly toolsOf = new Map<number, Row[]>();
  /** Rollouts the pass changed and whose aggregates are not yet those of their calls (ingest.ts recomputes them at its end). */
  private readonly pending = new Set<Row>();
  private nextPk: number;
  private nextFileId: number;
  // Column places resolved once (a row is an array: its values are set by place, some 100 per rollout).
  private readonly lineAt: number[];
  private readonly aggregateAt: number[];
  private readonly toolAt: number[];
  private readonly pkAt: number;
  readonly keyAt: number;

  constructor(db: Database.Database, private readonly runNo: number) {
    this.rollouts = tableOf(db, 'rollouts');
    this.files = tableOf(db, 'files');
    this.tools = tableOf(db, 'tool_calls');
    for (const c of [...LINE_COLUMNS, ...AGGREGATE_COLUMNS]) if (!(c in this.rollouts.at)) throw new Error(`lib/index/clickhouse/cold-rows.ts: rollouts has no column ${c}`);
    for (const c of TOOL_CALL_COLUMNS) if (!(c in this.tools.at)) throw new Error(`lib/index/clickhouse/cold-rows.ts: tool_calls has no column ${c}`);
    this.lineAt = LINE_COLUMNS.map((c) => this.rollouts.at[c]);
    this.aggregateAt = AGGREGATE_COLUMNS.map((c) => this.rollouts.at[c]);
    this.toolAt = TOOL_CALL_COLUMNS.map((c) => this.tools.at[c]);
    this.pkAt = this.rollouts.at.pk;
    this.keyAt = this.rollouts.at.key;
    this.nextPk = ((db.prepare('SELECT max(pk) FROM rollouts').pluck().get() as number | null) ?? 0) + 1;
    this.nextFileId = ((db.prepare('SELECT max(id) FROM files').pluck().get() as number | null) ?? 0) + 1;
  }

  /** A file's row as ingest first inserts it (rows.ts fileRow: its identity zero until read). */
  file(path: string, kind: string, rolloutId: string | null): Row {
    const f = this.files;
    const row = f.empty.slice();
    row[f.at.id] = this.nextFileId++;
    row[f.at.run_no] = this.runNo;
    row[f.at.path] = path;
    row[f.at.kind] = kind;
    row[f.at.rollout_id] = rolloutId;
    for (const c of ['dev', 'ino', 'size', 'mtime_ms'] as const) row[f.at[c]] = 0;
    this.fileRows.add(row);
    if (kind !== 'capture') this.fileById.set(row[f.at.id] as number, row);
    return row;
  }

  /** A file's state after a read (rows.ts updateFile). */
  setFileState(row: Row, st: FileState): void {
    const at = this.files.at;
    for (const c of ['dev', 'ino', 'size', 'mtime_ms', 'offset', 'next_line', 'next_call_index', 'unreadable', 'pending'] as const) row[at[c]] = st[c];
  }

  /** A rollouts file read to `offset` (its lines before it stored), as readRolloutsFile leaves its row. */
  rolloutsFileRead(row: Row, st: FileIdentity, offset: number, nextLine: number): void {
    this.setFileState(row, { dev: st.dev, ino: st.ino, size: st.size, mtime_ms: st.mtimeMs, offset, next_line: nextLine, next_call_index: 0, unreadable: 0, pending: Math.max(0, st.size - offset) });
  }

  private rolloutRow(key: string): Row {
    const r = this.rollouts;
    const row = r.empty.slice();
    row[r.at.pk] = this.nextPk++;
    row[r.at.run_no] = this.runNo;
    row[r.at.key] = key;
    row[r.at.order_key] = rolloutOrderKey(key);
    this.rolloutRows.add(row);
    this.byKey.set(key, row);
    this.keys.add(key);
    return row;
  }

  pkOf(row: Row): number {
    return row[this.pkAt] as number;
  }

  /**
   * Forgets written rows (a rollout with its tool calls): a cold pass holds only the rows it has yet to write. A
   * released rollout is never looked up again (its capture file was read, and the rollouts files before it).
   */
  release(rollouts: readonly Row[], files: readonly Row[]): void {
    for (const row of rollouts) {
      this.rolloutRows.delete(row);
      this.byKey.delete(row[this.keyAt] as string);
      const pk = this.pkOf(row);
      this.toolsOf.delete(pk);
    }
    for (const row of files) this.fileRows.delete(row);
  }

  /** A rollouts (or failures) file's row by id. */
  fileOf(id: number): Row | undefined {
    return this.fileById.get(id);
  }

  /** Whether a rollout of the pass took `key` (its row released or not). */
  taken(key: string): boolean {
    return this.keys.has(key);
  }

  /** The rollout of a key, if any. */
  rollout(key: string): Row | undefined {
    return this.byKey.get(key);
  }

  /**
   * Lines of a rollouts (or failures) file, in file order (rollouts-files.ts storeRolloutLines on a run it holds nothing
   * of): their rollouts' rows, in order.
   */
  lines(file: Row, kind: string, lines: readonly StoredRolloutLine[]): Row[] {
    const fileId = file[this.files.at.id] as number;
    const made: Row[] = [];
    for (const l of lines) {
      let key = lineKey(l, kind);
      if (this.keys.has(key)) {
        // Every rollout so far came from a line (a cold pass reads the rollouts files before any capture file no line
        // names): the same id on two lines.
        key = repeatedLineKey(key, l, kind);
        if (this.keys.has(key)) throw new ColdPassRefused(`line ${l.lineNo}: its key ${key} is taken twice over`);
      }
      const row = this.rolloutRow(key);
      made.push(row);
      const values = lineValues(l, fileId, kind, true);
      const lineAt = this.lineAt;
      for (let i = 0; i < lineAt.length; i++) row[lineAt[i]] = values[i];
      const tools = l.trajectory?.tools ?? [];
      if (tools.length) {
        const pk = this.pkOf(row);
        const list: Row[] = [];
        for (let seq = 0; seq < tools.length; seq++) {
          const tool = this.tools.empty.slice();
          const v = toolCallValues(pk, seq, fileId, tools[seq]);
          for (let i = 0; i < this.toolAt.length; i++) tool[this.toolAt[i]] = v[i];
          list.push(tool);
        }
        this.toolsOf.set(pk, list);
      }
      this.pending.add(row);
    }
    return made;
  }

  /**
   * A line's rollout that has no capture file, final at once: marked when it has a marker, its aggregates those of no
   * calls (as `markers` and then `finish` leave it).
   */
  settle(row: Row, marker: boolean): void {
    if (marker) row[this.rollouts.at.marker] = 1;
    this.settleEmpty(row);
  }

  /** A rollout for a capture file or marker no line names (capture-files.ts rollout). */
  private captureRollout(id: string): Row {
    let row = this.byKey.get(id);
    if (!row) {
      row = this.rolloutRow(id);
      row[this.rollouts.at.rollout_id] = id;
      row[this.rollouts.at.source] = 'capture';
    }
    return row;
  }

  /**
   * A capture file new to the index, as applyIngestRead stores its first read: null when it is gone; else its rollout and
   * file ids (those of its calls).
   */
  captureFile(path: string, id: string, read: IngestRead, marker: boolean): { row: Row; file: Row; pk: number; fileId: number } | null {
    if (read.kind === 'absent') return null;
    const file = this.file(path, 'capture', id);
    if (read.kind === 'read') this.setFileState(file, read.state);
    const row = this.captureRollout(id);
    const ids = { row, file, pk: this.pkOf(row), fileId: file[this.files.at.id] as number };
    if (read.kind !== 'read') return ids;
    // A file new to the index is read from its start, so its read has the rollout's totals (capture-file.ts).
    if (!read.totals) throw new Error(`${path}: a capture file new to the index read without its totals`);
    this.setAggregates(row, read.totals, { capture_file: ids.fileId, unreadable: read.state.unreadable, marker: marker ? 1 : 0 });
    this.pending.delete(row);
    return ids;
  }

  /** Whether a rollout's row may still change in this pass (its aggregates are computed at the end). */
  isPending(row: Row): boolean {
    return this.pending.has(row);
  }

  /** Markers with no capture file (capture-files.ts ingestCaptureDir): each one's rollout marked, its aggregates at the end. */
  markers(ids: Iterable<string>): void {
    for (const id of ids) {
      const row = this.captureRollout(id);
      row[this.rollouts.at.marker] = 1;
      this.pending.add(row);
    }
  }

  /**
   * The aggregates of the rollouts changed and not settled (ingest.ts updateAggregates): none has calls (every capture
   * file read settles its rollout), so they are those of no calls. Then the rows are final.
   */
  finish(): void {
    for (const row of this.pending) this.settleEmpty(row);
  }

  private settleEmpty(row: Row): void {
    const at = this.rollouts.at;
    this.setAggregates(row, callTotals([]), { capture_file: row[at.capture_file] as number | null, unreadable: row[at.unreadable] as number, marker: row[at.marker] as number });
    this.pending.delete(row);
  }

  private setAggregates(row: Row, totals: CallTotals, capture: { capture_file: number | null; unreadable: number; marker: number }): void {
    const at = this.rollouts.at;
    const state: RolloutCaptureState = {
      rollout_id: row[at.rollout_id] as string | null, ...capture,
      attached_calls: row[at.attached_calls] as number | null, attached_tokens_total: row[at.attached_tokens_total] as number | null, attached_gaps: row[at.attached_gaps] as string | null,
    };
    const values = aggregateRow(totals, state, true);
    const aggregateAt = this.aggregateAt;
    for (let i = 0; i < aggregateAt.length; i++) row[aggregateAt[i]] = values[i];
    row[at.capture_file] = capture.capture_file;
    row[at.unreadable] = capture.unreadable;
    row[at.marker] = capture.marker;
  }
}
