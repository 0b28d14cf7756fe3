// The rows of files and calls that both paths of an ingest write (capture-files.ts, rollouts-files.ts), with their
// statements prepared once per connection. A call row is bound value by value (insertCallRow).
import type Database from 'better-sqlite3';
import { storedCallId } from '../call-id';
import { CALL, CALL_INSERT_SQL, CALL_WIDTH } from '../call-row';
import { unpackCall, type FileState, type PackedCalls } from './capture-file';

const PK = CALL.rollout_pk;
const FILE_ID = CALL.file_id;
const ID = CALL.model_call_id;

/**
 * Told of every batch of call rows ingest inserts on a connection (a rollout's calls from one file read): each row's
 * values in the row's order (call-row.ts), the call id as read, then ROW_SPARE slots the observer may fill. The
 * ClickHouse mirror writes these rows as they are instead of reading them back (lib/index/clickhouse/sync.ts), its
 * own columns in the spare slots (no second array per call).
 */
export type CallObserver = (pk: number, rows: unknown[][]) => void;

/** Slots after a call's values in each observed row. */
export const ROW_SPARE = 4;

const observers = new WeakMap<Database.Database, CallObserver>();

/** Observes the call rows inserted on `db` from now on (one observer per connection). */
export function observeCallInserts(db: Database.Database, observer: CallObserver): void {
  observers.set(db, observer);
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

  /** Inserts flat call rows (capture-file.ts, rollouts-file.ts), with their rollout and file. */
  insertCalls(pk: number, fileId: number, calls: unknown[]): void {
    const observer = observers.get(this.db);
    const seen: unknown[][] | null = observer ? [] : null;
    const values = this.callRow;
    for (let i = 0; i < calls.length; i += CALL_WIDTH) {
      for (let j = 0; j < CALL_WIDTH; j++) values[j] = calls[i + j];
      values[PK] = pk;
      values[FILE_ID] = fileId;
      seen?.push(values.slice());
      this.insertCallRow(values);
    }
    if (seen?.length) observer!(pk, seen);
  }

  insertPackedCalls(pk: number, fileId: number, calls: PackedCalls, from: number, count: number): void {
    const observer = observers.get(this.db);
    const seen: unknown[][] | null = observer ? [] : null;
    const values = this.callRow;
    for (let c = from; c < from + count; c++) {
      unpackCall(calls, c, values);
      values[PK] = pk;
      values[FILE_ID] = fileId;
      seen?.push(values.slice());
      this.insertCallRow(values);
    }
    if (seen?.length) observer!(pk, seen);
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
