// The rows of files and calls that both paths of an ingest write (capture-files.ts, rollouts-files.ts), with their
// statements prepared once per connection. A call row is bound value by value (insertCallRow).
import type Database from 'better-sqlite3';
import { storedCallId } from '../call-id';
import { CALL, CALL_INSERT_SQL, CALL_WIDTH } from '../call-row';
import { unpackCall, type FileState, type PackedCalls } from './capture-file';
import type { EncodedCalls } from '../clickhouse/call-columns';
import type { IngestOptions } from './parallel';
import type { Pass } from './pass';
import type { RunSource } from '../sources/discovery';

const PK = CALL.rollout_pk;
const FILE_ID = CALL.file_id;
const ID = CALL.model_call_id;

/**
 * What the ClickHouse mirror (lib/index/clickhouse/sync.ts) asks of ingest on a working copy's connection. It is told of
 * every batch of call rows ingest inserts (`inserted`: each row's values in the row's order, call-row.ts, the call id as
 * read, then ROW_SPARE slots it may fill: it writes these rows as they are instead of reading them back). It may take a
 * rollout's calls as a worker encoded them, read whole from its capture file, instead of the working copy storing them
 * (`take`: the bulk of a cold ingest never becomes SQLite rows); such a rollout's calls are read again from its capture
 * file (`localize`) before the working copy reads or extends them, and forgotten (`dropped`) when ingest drops them.
 */
export interface CallMirror {
  inserted(pk: number, rows: unknown[][]): void;
  /**
   * A rollout's calls, all of them (its capture file read from the start), as a worker encoded them: true when taken (then
   * not stored here).
   */
  take(pk: number, fileId: number, calls: EncodedCalls, from: number, count: number): boolean;
  /** Makes a rollout's calls, if taken, rows of the working copy again (before they are read or appended to). */
  localize(pk: number): void;
  /** The working copy drops a rollout's calls from its capture file (read again from the start, or gone). */
  dropped(pk: number): void;
  /** Before any pass: the working copy made whole (runs a cold pass wrote elsewhere), or, inside a transaction, waited for. */
  beforePass?(inTransaction: boolean): Promise<void>;
  /** A run's first pass written elsewhere than the working copy: true when done so (the ordinary pass is then skipped). */
  coldPass?(pass: Pass, run: RunSource, options: IngestOptions): Promise<boolean>;
}

/** Slots after a call's values in each observed row. */
export const ROW_SPARE = 4;

const mirrors = new WeakMap<Database.Database, CallMirror>();

/** Mirrors the call rows ingest writes on `db` from now on (one mirror per connection). */
export function mirrorCalls(db: Database.Database, mirror: CallMirror): void {
  mirrors.set(db, mirror);
}

/** The mirror of `db`'s calls, if any. */
export function callMirror(db: Database.Database): CallMirror | undefined {
  return mirrors.get(db);
}

/** A row of the files table. */
export interface FileRow extends FileState {
  id: number;
  run_no: number;
  path: string;
  kind: string;
  rollout_id: string | null;
}

export class IngestRows {
  private readonly stmt;
  /** One call's values, reused row to row (observed rows are copies), with ROW_SPARE slots after them. */
  private readonly callRow: unknown[] = new Array(CALL_WIDTH + ROW_SPARE).fill(null);

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      fileByPath: db.prepare('SELECT * FROM files WHERE path = ?'),
      insertFile: db.prepare('INSERT INTO files (run_no, path, kind, rollout_id, dev, ino, size, mtime_ms) VALUES (?, ?, ?, ?, 0, 0, 0, 0)'),
      updateFile: db.prepare(
        'UPDATE files SET dev = ?, ino = ?, size = ?, mtime_ms = ?, offset = ?, next_line = ?, next_call_index = ?, unreadable = ?, pending = ? WHERE id = ?',
      ),
      insertCall: db.prepare(CALL_INSERT_SQL),
    };
  }

  fileByPath(file: string): FileRow | undefined {
    return this.stmt.fileByPath.get(file) as FileRow | undefined;
  }

  fileRow(runNo: number, file: string, kind: string, rolloutId: string | null): FileRow {
    let row = this.stmt.fileByPath.get(file) as FileRow | undefined;
    if (!row) {
      const id = Number(this.stmt.insertFile.run(runNo, file, kind, rolloutId).lastInsertRowid);
      row = { id, run_no: runNo, path: file, kind, rollout_id: rolloutId, dev: 0, ino: 0, size: 0, mtime_ms: 0, offset: 0, next_line: 1, next_call_index: 0, unreadable: 0, pending: 0 };
    }
    return row;
  }

  updateFile(id: number, st: FileState): void {
    this.stmt.updateFile.run(st.dev, st.ino, st.size, st.mtime_ms, st.offset, st.next_line, st.next_call_index, st.unreadable, st.pending, id);
  }

  /** Inserts flat call rows (capture-file.ts, rollouts-file.ts), with their rollout and file (`quiet`: not told to the mirror). */
  insertCalls(pk: number, fileId: number, calls: unknown[], quiet = false): void {
    const mirror = quiet ? undefined : mirrors.get(this.db);
    const seen: unknown[][] | null = mirror ? [] : null;
    const values = this.callRow;
    for (let i = 0; i < calls.length; i += CALL_WIDTH) {
      for (let j = 0; j < CALL_WIDTH; j++) values[j] = calls[i + j];
      values[PK] = pk;
      values[FILE_ID] = fileId;
      seen?.push(values.slice());
      this.insertCallRow(values);
    }
    if (seen?.length) mirror!.inserted(pk, seen);
  }

  insertPackedCalls(pk: number, fileId: number, calls: PackedCalls, from: number, count: number): void {
    const mirror = mirrors.get(this.db);
    const seen: unknown[][] | null = mirror ? [] : null;
    const values = this.callRow;
    for (let c = from; c < from + count; c++) {
      unpackCall(calls, c, values);
      values[PK] = pk;
      values[FILE_ID] = fileId;
      seen?.push(values.slice());
      this.insertCallRow(values);
    }
    if (seen?.length) mirror!.inserted(pk, seen);
  }

  /**
   * One call row, its 29 values as arguments in the row's order (CALL_WIDTH of them, or SQLite refuses the row): binding
   * an array reads its elements one by one (measurably slower), and a spread call copies them into a new arguments
   * array first (garbage on every call).
   */
  private insertCallRow(v: unknown[]): void {
    v[ID] = storedCallId(v[ID]);
    this.stmt.insertCall.run(
      v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20],
      v[21], v[22], v[23], v[24], v[25], v[26], v[27], v[28],
    );
  }
}
