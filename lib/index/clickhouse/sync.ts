// The ingest side of the ClickHouse backend. Ingest itself is SQLite's (lib/index/ingest: the same scans, pairing,
// aggregates and gaps, so both backends hold the same rows): it writes a working copy on the ingesting machine, and
// this module mirrors every row that copy changes into ClickHouse. Temporary triggers on the working copy's
// connection record the rollouts and files each statement touched; `flush` reads those rows and writes them, each
// rollout whole (its row, its calls, its tool calls) under one new version, rollouts last so that a reader who sees a
// rollout's version finds all of its calls. Deleted rollouts and files are written as deleted rows, and so are the
// calls a rollout no longer has (a capture file rewritten shorter, a rollout deleted): the newest row of every call
// key is then exactly the current call, so that a run's calls are read with FINAL alone (compare's figures), with no
// join against the rollouts' versions.
//
// The rows go as Native blocks (native.ts: the engine reads them without parsing text). A rollout's calls are the
// rows ingest inserted, as it inserted them (rows.ts CallMirror), when they are all of its calls (ch_captured counts
// them, in the working copy's transactions); otherwise they are read back from the working copy.
//
// A rollout whose capture file an ingest worker read whole (a cold pass) is not stored in the working copy at all: the
// mirror takes the calls as the worker encoded them (`take`, call-columns.ts) and writes their bytes, and
// ch_remote_calls (kept across restarts) names the rollouts whose calls the working copy lacks. Before ingest reads such a rollout's calls or
// appends to them (an append, a rollout line that came later) they are read again from its capture file up to where
// ingest stopped (`localize`): the working copy's rows are what that file's lines were, so reading them again from it
// gives the same rows. The working copy then never holds most of a cold ingest's calls, SQLite's largest cost.
//
// The files' read offsets are in ClickHouse too, so an ingest can be restarted on another machine: `hydrate` fills
// an empty (or outdated) working copy with a run's rows from ClickHouse before its first pass, and that pass reads
// only what was appended since.
import type Database from 'better-sqlite3';
import type { ClickHouseClient } from '@clickhouse/client';
import { callIdSql, storedCallId } from '../call-id';
import { CALL, CALL_COLUMNS, CALL_WIDTH } from '../call-row';
import { IngestRows, mirrorCalls, ROW_SPARE } from '../ingest/rows';
import { readCallsBefore } from '../ingest/capture-file';
import type { IngestOptions } from '../ingest/parallel';
import type { Pass } from '../ingest/pass';
import type { RunSource } from '../sources/discovery';
import { callIndexOf, concatRanges, ENCODED_CALL_COLUMNS, type EncodedCalls } from './call-columns';
import { nativeColumns, written } from './schema';
import type { BlockRows, EncodedColumn, NumberColumn } from './native';
import { encodeBlocks, type NativeInserter, type PreparedInsert } from './native-insert';
import { coldPass, type ColdBatch } from './cold-pass';
import type { ColdRows } from './cold-rows';
import { ensureTables, hydrateRun, type SyncedRun } from './hydrate';

export type { SyncedRun } from './hydrate';

/** Rollouts read and written per insert. */
const CHUNK = 5_000;

/** A rollout whose calls the database may hold. */
interface CallOwner {
  run: string;
  month: number;
  key: string;
}

/** A version above every version written before it by this process (microseconds since the epoch, then a counter). */
export class Versions {
  private last = 0;
  next(): number {
    this.last = Math.max(this.last + 1, Date.now() * 1000);
    return this.last;
  }
}

const ROLLOUT_COLS = written('rollouts');
/** A rollout row as written: its columns, then the path and kind of the file its line is in. */
const ROLLOUT_WRITTEN = [...ROLLOUT_COLS, 'line_path', 'line_kind'];
const FILE_COLS = written('files');
/**
 * A rollout's or file's row as the mirror holds it: the working copy's row as read (its run number, then `cols`), with the
 * run's id and month, the version and the deleted flag pushed onto it (no copy of some 90 values per rollout). The
 * table's columns for the insert, and where each is in such a row.
 */
function heldLayout(cols: readonly string[]): { columns: string[]; at: number[] } {
  const n = cols.length;
  return { columns: ['run', 'run_month', ...cols, 'version', 'deleted'], at: [n + 1, n + 2, ...cols.map((_, i) => 1 + i), n + 3, n + 4] };
}
const ROLLOUT_LAYOUT = heldLayout(ROLLOUT_WRITTEN);
const FILE_LAYOUT = heldLayout(FILE_COLS);
const CALL_COLS = written('calls');
const TOOL_COLS = written('tool_calls');
/** Each insert's columns as its blocks carry them (the rollouts' and tool calls' encoded as readRollouts reads them). */
const ROLLOUT_NATIVE = nativeColumns('rollouts', ROLLOUT_LAYOUT.columns);
const TOOL_NATIVE = nativeColumns('tool_calls', ['key', 'run', 'run_month', ...TOOL_COLS, 'version']);
const FILE_NATIVE = nativeColumns('files', FILE_LAYOUT.columns);
const DROPPED_NATIVE = nativeColumns('calls', ['key', 'run', 'run_month', 'rollout_pk', 'call_index', 'version', 'deleted']);
/**
 * A call row as the mirror holds it: an ingested call row (call-row.ts's order) with its rollout's key, run, month
 * and the flush's version in the row's spare slots (rows.ts ROW_SPARE).
 */
const KEY_AT = CALL_WIDTH;
const RUN_AT = CALL_WIDTH + 1;
const MONTH_AT = CALL_WIDTH + 2;
const VERSION_AT = CALL_WIDTH + 3;
if (ROW_SPARE < 4) throw new Error('lib/index/clickhouse/sync.ts: a call row needs 4 spare slots');
/** The calls table's written columns, and where each is in a held call row. */
const CALL_INSERT = ['key', 'run', 'run_month', ...CALL_COLS, 'version'];
const CALL_INSERT_AT = [KEY_AT, RUN_AT, MONTH_AT, ...CALL_COLS.map((name) => {
  const at = CALL_COLUMNS.findIndex((c) => c.name === name);
  if (at < 0) throw new Error(`lib/index/clickhouse/sync.ts: the calls column ${name} is not in call-row.ts`);
  return at;
}), VERSION_AT];
const CALL_NATIVE = nativeColumns('calls', CALL_INSERT);

/**
 * The marks of what changed in the mirrored runs (@runs: their run numbers, as JSON), each table with its condition: a
 * flush reads them and clears them by the same one. Runs whose pass is under way (@deferred) keep two kinds of marks
 * for a later flush: rollouts without a capture file yet (a cold pass reads the rollouts file first: its rollouts would
 * be written once from their lines and again with their calls moments later), and then also their rollouts files'
 * rows (an offset in the database says that every rollout read up to it is there).
 */
const MARKS = {
  dirtyRollouts: `ch_dirty_rollouts WHERE EXISTS (SELECT 1 FROM main.rollouts r WHERE r.pk = ch_dirty_rollouts.pk AND r.run_no IN (SELECT value FROM json_each(@runs))
    AND NOT (r.capture_file IS NULL AND r.marker = 0 AND r.run_no IN (SELECT value FROM json_each(@deferred))))`,
  dirtyFiles: `ch_dirty_files WHERE EXISTS (SELECT 1 FROM main.files f WHERE f.id = ch_dirty_files.id AND f.run_no IN (SELECT value FROM json_each(@runs))
    AND NOT (f.kind <> 'capture' AND f.run_no IN (SELECT value FROM json_each(@deferred))))`,
  deletedRollouts: 'ch_deleted_rollouts WHERE run_no IN (SELECT value FROM json_each(@runs))',
  deletedFiles: 'ch_deleted_files WHERE run_no IN (SELECT value FROM json_each(@runs))',
};

/** The run numbers of every change marked and not yet written (a run once per mark). */
const MARKED_RUNS = `SELECT r.run_no FROM ch_dirty_rollouts d JOIN main.rollouts r ON r.pk = d.pk UNION ALL SELECT f.run_no FROM ch_dirty_files d JOIN main.files f ON f.id = d.id
  UNION ALL SELECT run_no FROM ch_deleted_rollouts UNION ALL SELECT run_no FROM ch_deleted_files`;

export class ClickhouseSync {
  private flushing: Promise<void> = Promise.resolve();
  private readonly runs = new Map<number, SyncedRun>();
  /** The version of each run's last rows written (hydrate.ts compares it with the database's on the next start). */
  private readonly written = new Map<string, number>();
  /**
   * The calls ingest inserted or handed over since the last flush, by rollout pk (rows.ts CallMirror). A rollout's are
   * written as they are when they are all of its calls; else its calls are read back from the working copy.
   */
  private captured = new Map<number, Held>();
  private heldCount = 0;
  /**
   * Rollouts (run id, NUL, key) this process wrote with no calls, first when new: the database holds no live call of
   * theirs, so a later write of theirs need not ask which calls it drops (a cold ingest writes each rollout from its
   * rollouts line first, then again with its capture file's calls).
   */
  private readonly callless = new Set<string>();

  constructor(
    private readonly db: Database.Database,
    private readonly client: ClickHouseClient,
    private readonly database: string,
    private readonly versions: Versions,
    private readonly inserter: NativeInserter,
  ) {
    // Temp objects live on this connection only: the working copy's schema is SQLite's, and ensureTables' two.
    // Every change also names its run in ch_unflushed, in the change's own transaction: a process that stops before
    // writing it leaves the run marked, and the next start fills the run from the database (hydrate.ts).
    ensureTables(db);
    // In memory (the default is a temp file): the triggers write these tables on every change ingest makes, and
    // from a file they cost several times SQLite's own writes. (Set before any temp object exists: setting it drops them.)
    db.pragma('temp_store = MEMORY');
    db.exec(`
      -- fresh: inserted since the last flush, so never written (its key's calls in the database, if any, are all deleted rows).
      CREATE TEMP TABLE IF NOT EXISTS ch_dirty_rollouts (pk INTEGER PRIMARY KEY, fresh INTEGER NOT NULL DEFAULT 0);
      CREATE TEMP TABLE IF NOT EXISTS ch_deleted_rollouts (run_no INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (run_no, key));
      CREATE TEMP TABLE IF NOT EXISTS ch_dirty_files (id INTEGER PRIMARY KEY);
      CREATE TEMP TABLE IF NOT EXISTS ch_deleted_files (run_no INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (run_no, id));
      -- How many call rows of each rollout the mirror holds, as committed: a batch rolled back takes its count with it, and a
      -- deleted call drops its rollout's count, so a count that equals both the rows held and the rollout's calls in the
      -- working copy says the rows held are exactly its calls.
      CREATE TEMP TABLE IF NOT EXISTS ch_captured (pk INTEGER PRIMARY KEY, n INTEGER NOT NULL);
      CREATE TEMP TRIGGER IF NOT EXISTS ch_call_delete AFTER DELETE ON main.calls BEGIN DELETE FROM ch_captured WHERE pk = old.rollout_pk; END;
      -- Taken calls made rows again or dropped: what the mirror holds of them is no longer all of the rollout's calls.
      CREATE TEMP TRIGGER IF NOT EXISTS ch_remote_delete AFTER DELETE ON main.ch_remote_calls BEGIN DELETE FROM ch_captured WHERE pk = old.pk; END;
      CREATE TEMP TRIGGER IF NOT EXISTS ch_rollout_insert AFTER INSERT ON main.rollouts BEGIN
        INSERT OR IGNORE INTO main.ch_unflushed VALUES (new.run_no);
        INSERT OR IGNORE INTO ch_dirty_rollouts VALUES (new.pk, NOT EXISTS (SELECT 1 FROM ch_deleted_rollouts WHERE run_no = new.run_no AND key = new.key));
        DELETE FROM ch_deleted_rollouts WHERE run_no = new.run_no AND key = new.key; END;
      CREATE TEMP TRIGGER IF NOT EXISTS ch_rollout_update AFTER UPDATE ON main.rollouts BEGIN
        INSERT OR IGNORE INTO main.ch_unflushed VALUES (new.run_no); INSERT OR IGNORE INTO ch_dirty_rollouts (pk) VALUES (new.pk); END;
      CREATE TEMP TRIGGER IF NOT EXISTS ch_rollout_delete AFTER DELETE ON main.rollouts BEGIN
        INSERT OR IGNORE INTO main.ch_unflushed VALUES (old.run_no); DELETE FROM ch_dirty_rollouts WHERE pk = old.pk; INSERT OR IGNORE INTO ch_deleted_rollouts VALUES (old.run_no, old.key);
        DELETE FROM main.ch_remote_calls WHERE pk = old.pk; END;
      CREATE TEMP TRIGGER IF NOT EXISTS ch_file_insert AFTER INSERT ON main.files BEGIN
        INSERT OR IGNORE INTO main.ch_unflushed VALUES (new.run_no); INSERT OR IGNORE INTO ch_dirty_files VALUES (new.id); DELETE FROM ch_deleted_files WHERE run_no = new.run_no AND id = new.id; END;
      CREATE TEMP TRIGGER IF NOT EXISTS ch_file_update AFTER UPDATE ON main.files BEGIN
        INSERT OR IGNORE INTO main.ch_unflushed VALUES (new.run_no); INSERT OR IGNORE INTO ch_dirty_files VALUES (new.id); END;
      CREATE TEMP TRIGGER IF NOT EXISTS ch_file_delete AFTER DELETE ON main.files BEGIN
        INSERT OR IGNORE INTO main.ch_unflushed VALUES (old.run_no); DELETE FROM ch_dirty_files WHERE id = old.id; INSERT OR IGNORE INTO ch_deleted_files VALUES (old.run_no, old.id); END;
    `);
    const count = db.prepare('INSERT INTO ch_captured (pk, n) VALUES (?, ?) ON CONFLICT (pk) DO UPDATE SET n = n + excluded.n');
    const markRemote = db.prepare('INSERT OR IGNORE INTO main.ch_remote_calls VALUES (?)');
    const unmarkRemote = db.prepare('DELETE FROM main.ch_remote_calls WHERE pk = ?');
    const remoteFile = db.prepare('SELECT f.id, f.path, f.offset FROM main.ch_remote_calls m JOIN main.rollouts r ON r.pk = m.pk LEFT JOIN main.files f ON f.id = r.capture_file WHERE m.pk = ?');
    const rows = new IngestRows(db);
    this.localize = (pk) => {
      const file = remoteFile.get(pk) as { id: number | null; path: string | null; offset: number | null } | undefined;
      if (!file) return;
      unmarkRemote.run(pk);
      // Up to where ingest stopped: the lines after it are read by the pass that reads the file next.
      const calls = file.path === null ? null : readCallsBefore(file.path, file.offset ?? 0);
      if (calls?.length) rows.insertCalls(pk, file.id!, calls, true);
    };
    const held = (pk: number) => {
      let h = this.captured.get(pk);
      if (!h) this.captured.set(pk, (h = { rows: null, pieces: null, taken: 0 }));
      return h;
    };
    mirrorCalls(db, {
      inserted: (pk, inserted) => {
        count.run(pk, inserted.length);
        this.heldCount += inserted.length;
        const h = held(pk);
        const rows = (h.rows ??= []);
        for (const r of inserted) rows.push(r);
      },
      take: (pk, fileId, calls, from, n) => {
        if (n === 0) return false;
        markRemote.run(pk);
        count.run(pk, n);
        this.heldCount += n;
        const h = held(pk);
        (h.pieces ??= []).push({ pk, fileId, calls, from, count: n, key: '', run: null });
        h.taken += n;
        return true;
      },
      localize: this.localize,
      dropped: (pk) => void unmarkRemote.run(pk),
      beforePass: (inTransaction) => this.fillColdRuns(inTransaction),
      coldPass: (pass, run, options) => this.coldPass(pass, run, options),
    });
  }

  /** Runs written by a cold pass (run number to id) that the working copy does not hold yet: filled before any pass. */
  private readonly cold = new Map<number, string>();
  /** The cold pass under way: every other pass waits for it (its rows take ids the working copy does not know of yet). */
  private coldRunning: Promise<boolean> | null = null;
  /** The last write of the cold pass under way (each runs after the one before it, and none after one that failed). */
  private coldWrites: Promise<void> = Promise.resolve();

  /**
   * A run's first pass straight from the scan to the database (cold-pass.ts), when it is one: the working copy gets
   * its rows from the database before its next pass (fillColdRuns).
   */
  private async coldPass(pass: Pass, run: RunSource, options: IngestOptions): Promise<boolean> {
    const synced = this.runs.get(pass.runNo);
    // Ids are given after the working copy's largest: not while another pass's transaction may still add rows.
    if (!synced || this.db.inTransaction || this.coldRunning) return false;
    // A write the database refuses leaves the run to the ordinary pass: its rows then wait in the working copy, and the
    // flushes write them once the database takes them (rows of writes that went through are written again, newer).
    this.coldWrites = Promise.resolve();
    const running = coldPass(this.db, pass, run, options, (batch, rows) => this.writeCold(synced, batch, rows)).catch(() => false);
    this.coldRunning = running;
    try {
      const done = await running;
      if (done) this.cold.set(pass.runNo, synced.id);
      return done;
    } finally {
      this.coldRunning = null;
    }
  }

  /**
   * Fills the working copy with the rows of the runs a cold pass wrote (hydrate.ts, as after a restart), before a pass
   * over any run: until then the copy lacks their rows, and with them the ids SQLite would give a new row of any run.
   * The marks of what changed that the fill makes are cleared with it: those rows are the database's own.
   */
  fillColdRuns(inTransaction: boolean): Promise<void> {
    // Inside another pass's transaction a fill cannot begin its own: a fill under way is waited for.
    if (inTransaction) return this.filling;
    const next = this.filling.then(() => this.fill());
    this.filling = next.catch(() => undefined);
    return next;
  }

  private filling: Promise<void> = Promise.resolve();

  private async fill(): Promise<void> {
    await this.coldRunning?.catch(() => false);
    for (const [no, id] of this.cold) {
      await hydrateRun(this.client, this.database, this.db, id, no, this.written.get(id) ?? 0);
      this.db.prepare('DELETE FROM ch_dirty_rollouts WHERE pk IN (SELECT pk FROM main.rollouts WHERE run_no = ?)').run(no);
      this.db.prepare('DELETE FROM ch_dirty_files WHERE id IN (SELECT id FROM main.files WHERE run_no = ?)').run(no);
      this.db.prepare('DELETE FROM main.ch_unflushed WHERE run_no = ?').run(no);
      this.cold.delete(no);
    }
  }

  /**
   * One write of a cold pass: its blocks encoded (and spooled) now, the inserts run after every write before it
   * (serialized with the flushes): its calls and tool calls, then its rollouts, then its files. Answers once the
   * blocks are ready, with the inserts' end (`done`), so that the scan goes on while the engine inserts.
   */
  private async writeCold(run: SyncedRun, batch: ColdBatch, rows: ColdRows): Promise<{ done: Promise<void> }> {
    const version = this.versions.next();
    const r = rows.rollouts.at;
    const f = rows.files.at;
    const t = rows.tools.at;
    // The rollout rows read where ColdRows holds them (no row of some 70 values copied per rollout), in ROLLOUT_LAYOUT's order.
    const held = batch.rollouts;
    const lineFile = (k: number, at: number) => {
      const id = held[k][r.line_file];
      const line = id === null ? undefined : rows.fileOf(id as number);
      return line ? line[at] : null;
    };
    const rolloutRows: BlockRows = {
      n: held.length,
      column: (c) => {
        const name = ROLLOUT_LAYOUT.columns[c];
        if (name === 'run') return () => run.id;
        if (name === 'run_month') return () => run.month;
        if (name === 'version') return () => version;
        if (name === 'deleted') return () => 0;
        if (name === 'line_path') return (k) => lineFile(k, f.path);
        if (name === 'line_kind') return (k) => lineFile(k, f.kind);
        const at = r[name as keyof typeof r];
        return (k) => held[k][at];
      },
    };
    const fileRows = batch.files.map((row) => [run.no, ...FILE_COLS.map((c) => row[f[c]]), run.id, run.month, version, 0]);
    const tools: unknown[][] = [];
    for (const row of batch.rollouts) {
      for (const tool of rows.toolsOf.get(row[r.pk] as number) ?? []) tools.push([row[r.key], run.id, run.month, ...TOOL_COLS.map((c) => tool[t[c]]), version]);
    }
    const pieces = batch.pieces.map((p): OwnedPiece => ({ ...p, run }));
    const prepared: (PreparedInsert | null)[] = [];
    try {
      prepared.push(await this.inserter.prepare('calls', CALL_NATIVE, [takenRows(pieces, version)], CALL_INSERT_AT));
      prepared.push(await this.inserter.prepare('tool_calls', TOOL_NATIVE, [tools]));
      prepared.push(await this.inserter.prepareEncoded('rollouts', ROLLOUT_NATIVE, encodeBlocks(ROLLOUT_NATIVE, [rolloutRows])));
      prepared.push(await this.inserter.prepare('files', FILE_NATIVE, [fileRows], FILE_LAYOUT.at));
    } catch (err) {
      for (const p of prepared) p?.discard();
      throw err;
    }
    const [calls, toolCalls, rollouts, files] = prepared;
    // After the flushes and the pass's writes before it; not at all once one of those failed (the pass is then redone).
    const before = this.coldWrites;
    const done = this.flushing.then(() => before).then(async () => {
      await Promise.all([calls?.run(), toolCalls?.run()]);
      await rollouts?.run();
      await files?.run();
      this.written.set(run.id, version);
    });
    done.catch(() => {
      for (const p of prepared) p?.discard();
    });
    this.coldWrites = done;
    this.flushing = done.catch(() => undefined);
    return { done };
  }

  /** Makes a rollout's taken calls rows of the working copy again (before they are read back). */
  private readonly localize: (pk: number) => void;

  /** The runs whose rows are mirrored (rows of other runs stay marked until their run is added). */
  setRuns(runs: SyncedRun[]): void {
    this.runs.clear();
    for (const r of runs) this.runs.set(r.no, r);
  }

  /** Each run's last version written by this process. */
  lastVersions(): ReadonlyMap<string, number> {
    return this.written;
  }

  /** Call rows taken from ingest and not written yet. */
  get heldCalls(): number {
    return this.heldCount;
  }

  /** Whether rows wait to be written. */
  get dirty(): boolean {
    return this.db.prepare('SELECT EXISTS (SELECT 1 FROM ch_dirty_rollouts) OR EXISTS (SELECT 1 FROM ch_deleted_rollouts) OR EXISTS (SELECT 1 FROM ch_dirty_files) OR EXISTS (SELECT 1 FROM ch_deleted_files)').pluck().get() === 1;
  }

  /** Whether the run (by number) has changes marked and not yet written. */
  unwritten(runNo: number): boolean {
    return this.db.prepare(`SELECT ? IN (${MARKED_RUNS})`).pluck().get(runNo) === 1;
  }

  /**
   * Writes what changed since the last flush; flushes run one at a time, and one asked for during another runs after it.
   * `underway`: the runs whose pass is running (a run with a capture dir defers some rows: see MARKS).
   */
  flush(underway: ReadonlySet<number> = new Set()): Promise<void> {
    const next = this.flushing.then(() => this.flushNow(underway));
    this.flushing = next.catch(() => undefined);
    return next;
  }

  private async flushNow(underway: ReadonlySet<number>): Promise<void> {
    // Rows of a transaction still open may yet be rolled back: they are written by the flush after it ends.
    if (this.db.inTransaction) return;
    const known = [...this.runs.keys()];
    if (!known.length) return;
    const params = { runs: JSON.stringify(known), deferred: JSON.stringify(known.filter((no) => underway.has(no) && this.runs.get(no)!.captureDir)) };
    const take = (marks: string, cols: string) => this.db.prepare(`SELECT ${cols} FROM ${marks}`).raw().all(params) as unknown[][];
    // Taken and cleared in one synchronous step: whatever ingest writes while the inserts below are awaited is
    // marked again and written by the next flush.
    const dirty = take(MARKS.dirtyRollouts, 'pk, fresh') as [number, number][];
    const rolloutPks = dirty.map(([pk]) => pk);
    const fresh = new Set(dirty.filter(([, f]) => f === 1).map(([pk]) => pk));
    const fileIds = take(MARKS.dirtyFiles, 'id').map(([id]) => id as number);
    const deletedRollouts = take(MARKS.deletedRollouts, 'run_no, key') as [number, string][];
    const deletedFiles = take(MARKS.deletedFiles, 'run_no, id') as [number, number][];
    if (!rolloutPks.length && !fileIds.length && !deletedRollouts.length && !deletedFiles.length) return this.markFlushed(known);
    const version = this.versions.next();
    const snapshot = this.db.transaction(() => {
      const files = this.readFiles(fileIds, version);
      const captured = this.capturedCalls();
      const chunks: ReturnType<ClickhouseSync['readRollouts']>[] = [];
      for (let i = 0; i < rolloutPks.length; i += CHUNK) chunks.push(this.readRollouts(rolloutPks.slice(i, i + CHUNK), fresh, version, captured));
      for (const marks of Object.values(MARKS)) this.db.prepare(`DELETE FROM ${marks}`).run(params);
      return { files, chunks };
    });
    const { files, chunks } = snapshot();
    // Each table's block is encoded (and spooled) while the engine inserts the tables before it.
    const ready: PreparedInsert[] = [];
    let started: Promise<void>[] = [];
    /** A prepared insert, kept to be discarded if the write fails before running it. */
    const keep = (prepared: PreparedInsert | null) => {
      if (prepared) ready.push(prepared);
      return prepared;
    };
    const start = (prepared: PreparedInsert | null) => {
      if (!prepared) return;
      const running = prepared.run();
      running.catch(() => undefined); // heard by settle (a failure while the next table is prepared is not unhandled)
      started.push(running);
    };
    const settle = async () => {
      const results = await Promise.allSettled(started);
      started = [];
      for (const r of results) if (r.status === 'rejected') throw r.reason;
    };
    try {
      const run = (no: number) => this.runs.get(no)!;
      // One insert per table and kind of row for the whole flush: the engine makes (and later merges) a part per
      // insert, so fewer, larger inserts cost it less (native-insert.ts encodes them a block at a time).
      for (const [no, key] of deletedRollouts) this.callless.delete(`${run(no).id}\u0000${key}`);
      const gone = deletedRollouts.map(([no, key]) => ({ run: run(no).id, month: run(no).month, key }));
      const dropped = await this.droppedCalls(gone, [], [], version);
      for (const c of chunks) for (const row of await this.droppedCalls(c.written, c.calls, c.pieces, version)) dropped.push(row);
      // The calls' three inserts run at once; a rollout's row after its calls (a reader that sees the row finds them),
      // and the files' read offsets last: an offset in the database says that the rows read up to it are there too
      // (an ingest restarted after a flush that failed half-way reads again from the offsets written before it).
      const taken = chunks.map((c) => takenRows(c.pieces, version));
      start(keep(await this.inserter.prepare('calls', CALL_NATIVE, [...chunks.map((c) => c.calls), ...taken], CALL_INSERT_AT)));
      start(keep(await this.inserter.prepare('calls', DROPPED_NATIVE, [dropped])));
      start(keep(await this.inserter.prepareEncoded('tool_calls', TOOL_NATIVE, chunks.flatMap((c) => c.tools))));
      const deletedRolloutRows = deletedRollouts.map(([no, key]) => deletedRow(ROLLOUT_WRITTEN, { key, pk: 0 }, run(no), version));
      const rolloutBlocks = [...chunks.flatMap((c) => c.rollouts), ...encodeBlocks(ROLLOUT_NATIVE, [deletedRolloutRows], ROLLOUT_LAYOUT.at)];
      const rollouts = keep(await this.inserter.prepareEncoded('rollouts', ROLLOUT_NATIVE, rolloutBlocks));
      const deletedFileRows = deletedFiles.map(([no, id]) => deletedRow(FILE_COLS, { id, path: '', kind: '' }, run(no), version));
      const fileRows = keep(await this.inserter.prepare('files', FILE_NATIVE, [files, deletedFileRows], FILE_LAYOUT.at));
      await settle();
      start(rollouts);
      await settle();
      start(fileRows);
      await settle();
      const wrote = new Set<number>([...deletedRollouts.map(([no]) => no), ...deletedFiles.map(([no]) => no)]);
      for (const row of files) wrote.add(row[0] as number);
      for (const c of chunks) for (const no of c.runNos) wrote.add(no);
      for (const no of wrote) this.written.set(this.runs.get(no)!.id, version);
      this.markFlushed(known);
    } catch (err) {
      // Not written: marked again, for the next flush (once no insert of this one is running).
      await Promise.allSettled(started);
      for (const prepared of ready) prepared.discard();
      this.remark(dirty, fileIds, deletedRollouts, deletedFiles);
      throw err;
    }
  }

  /** The runs of `known` with no change left to write are written: their marks in ch_unflushed go. */
  private markFlushed(known: number[]): void {
    if (this.db.inTransaction) return; // a change not yet committed may mark its run again
    this.db.prepare(`DELETE FROM main.ch_unflushed WHERE run_no IN (SELECT value FROM json_each(?)) AND run_no NOT IN (${MARKED_RUNS})`).run(JSON.stringify(known));
  }

  /**
   * Deleted rows for the calls the database holds of these rollouts that `calls` (their rows now, as held: see
   * KEY_AT) no longer has. Rollouts inserted since the last flush are not asked about: the database
   * holds no live call of theirs (a cold ingest's are all new).
   */
  private async droppedCalls(owners: CallOwner[], calls: unknown[][], pieces: OwnedPiece[], version: number): Promise<unknown[][]> {
    if (!owners.length) return [];
    const now = new Set(calls.map((c) => `${c[RUN_AT]}\u0000${c[KEY_AT]}\u0000${c[CALL.call_index]}`));
    for (const p of pieces) for (let c = p.from; c < p.from + p.count; c++) now.add(`${p.run.id}\u0000${p.key}\u0000${callIndexOf(p.calls, c)}`);
    const byRun = new Map<string, { month: number; keys: string[] }>();
    for (const o of owners) {
      if (!byRun.has(o.run)) byRun.set(o.run, { month: o.month, keys: [] });
      byRun.get(o.run)!.keys.push(o.key);
    }
    const out: unknown[][] = [];
    for (const [run, { month, keys }] of byRun) {
      const rs = await this.client.query({
        // FINAL: the calls live now (without it, every older version's rows would be deleted again at each flush).
        query: `SELECT key, any(rollout_pk), groupUniqArray(call_index) FROM ${this.database}.calls FINAL WHERE run = {run:String} AND key IN {keys:Array(String)} AND deleted = 0 GROUP BY key`,
        query_params: { run, keys },
        format: 'JSONCompactEachRow',
      });
      for (const [key, pk, indices] of await rs.json<[string, number, number[]]>()) {
        for (const i of indices) if (!now.has(`${run}\u0000${key}\u0000${i}`)) out.push([key, run, month, pk, i, version, 1]);
      }
    }
    return out;
  }

  private remark(rollouts: [number, number][], fileIds: number[], deletedRollouts: [number, string][], deletedFiles: [number, number][]): void {
    const run = (sql: string, values: unknown[]) => {
      const st = this.db.prepare(sql);
      for (const v of values) st.run(...(Array.isArray(v) ? v : [v]));
    };
    run('INSERT OR IGNORE INTO ch_dirty_rollouts VALUES (?, ?)', rollouts.filter(([pk]) => this.db.prepare('SELECT 1 FROM main.rollouts WHERE pk = ?').get(pk)));
    run('INSERT OR IGNORE INTO ch_dirty_files VALUES (?)', fileIds.filter((id) => this.db.prepare('SELECT 1 FROM main.files WHERE id = ?').get(id)));
    run('INSERT OR IGNORE INTO ch_deleted_rollouts VALUES (?, ?)', deletedRollouts);
    run('INSERT OR IGNORE INTO ch_deleted_files VALUES (?, ?)', deletedFiles);
  }

  private readFiles(ids: number[], version: number): unknown[][] {
    if (!ids.length) return [];
    const rows = this.db.prepare(`SELECT run_no, ${FILE_COLS.join(', ')} FROM main.files WHERE id IN (SELECT value FROM json_each(?))`).raw().all(JSON.stringify(ids)) as unknown[][];
    for (const row of rows) {
      const run = this.runs.get(row[0] as number)!;
      row.push(run.id, run.month, version, 0); // FILE_LAYOUT
    }
    return rows;
  }

  /** The calls held that are all of their rollout's calls (in the working copy, or taken); the rest are dropped. */
  private capturedCalls(): Map<number, Held> {
    const held = this.captured;
    this.captured = new Map();
    this.heldCount = 0;
    // Each count with its rollout's calls in the working copy and whether its calls were taken, in one statement.
    const counts = this.db
      .prepare('SELECT pk, n, (SELECT count(*) FROM main.calls WHERE rollout_pk = c.pk), EXISTS (SELECT 1 FROM main.ch_remote_calls m WHERE m.pk = c.pk) FROM ch_captured c')
      .raw()
      .all() as [number, number, number, number][];
    this.db.exec('DELETE FROM ch_captured');
    const exact = new Map<number, Held>();
    for (const [pk, n, stored, remote] of counts) {
      const h = held.get(pk);
      if (h && (h.rows?.length ?? 0) + h.taken === n && stored + (remote ? h.taken : 0) === n) exact.set(pk, h);
    }
    return exact;
  }

  private readRollouts(
    pks: number[], fresh: ReadonlySet<number>, version: number, captured: ReadonlyMap<number, Held>,
  ): { rollouts: Uint8Array[]; runNos: Set<number>; calls: unknown[][]; pieces: OwnedPiece[]; tools: Uint8Array[]; written: CallOwner[] } {
    const list = JSON.stringify(pks);
    const rollouts = this.db
      .prepare(`SELECT r.run_no, ${ROLLOUT_COLS.map((c) => `r.${c}`).join(', ')}, f.path, f.kind FROM main.rollouts r LEFT JOIN main.files f ON f.id = r.line_file
        WHERE r.pk IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(list) as unknown[][];
    const keyOf = new Map<number, { key: string; run: SyncedRun }>();
    const pkAt = ROLLOUT_COLS.indexOf('pk') + 1;
    const keyAt = ROLLOUT_COLS.indexOf('key') + 1;
    for (const row of rollouts) {
      const run = this.runs.get(row[0] as number)!;
      keyOf.set(row[pkAt] as number, { key: row[keyAt] as string, run });
      row.push(run.id, run.month, version, 0); // ROLLOUT_LAYOUT
    }
    const calls: unknown[][] = [];
    const unheld: number[] = [];
    const own = (row: unknown[], { key, run }: { key: string; run: SyncedRun }) => {
      row[KEY_AT] = key;
      row[RUN_AT] = run.id;
      row[MONTH_AT] = run.month;
      row[VERSION_AT] = version;
      calls.push(row);
    };
    const pieces: OwnedPiece[] = [];
    for (const pk of keyOf.keys()) {
      const h = captured.get(pk);
      if (!h) {
        // Calls taken and not held now (a flush that failed, a resync) are read from the capture file again.
        this.localize(pk);
        unheld.push(pk);
        continue;
      }
      const owner = keyOf.get(pk)!;
      if (h.rows) for (const row of h.rows) own(row, owner);
      if (h.pieces) {
        for (const piece of h.pieces) {
          // The mirror's own object, dropped with this write (a write that fails reads the calls again: `localize`).
          piece.key = owner.key;
          piece.run = owner.run;
          pieces.push(piece as OwnedPiece);
        }
      }
    }
    if (unheld.length) {
      // Read back in the held rows' order (call-row.ts), the call id as ingest read it.
      const callSelect = CALL_COLUMNS.map((c) => (c.name === 'model_call_id' ? callIdSql('model_call_id') : c.name)).join(', ');
      const read = this.db.prepare(`SELECT ${callSelect} FROM main.calls WHERE rollout_pk IN (SELECT value FROM json_each(?)) ORDER BY rollout_pk, call_index`).raw().all(JSON.stringify(unheld)) as unknown[][];
      for (const row of read) own(row, keyOf.get(row[CALL.rollout_pk] as number)!);
    }
    const tools = (this.db.prepare(`SELECT ${TOOL_COLS.join(', ')} FROM main.tool_calls WHERE rollout_pk IN (SELECT value FROM json_each(?)) ORDER BY rollout_pk, seq`).raw().all(list) as unknown[][]).map((values) => {
      const { key, run } = keyOf.get(values[0] as number)!;
      return [key, run.id, run.month, ...values, version];
    });
    const runNos = new Set(rollouts.map((row) => row[0] as number));
    const withCalls = new Set(calls.map((c) => c[CALL.rollout_pk] as number));
    for (const p of pieces) withCalls.add(p.pk);
    const written: CallOwner[] = [];
    for (const [pk, { key, run }] of keyOf) {
      const id = `${run.id}\u0000${key}`;
      const none = fresh.has(pk) || this.callless.has(id);
      if (!none) written.push({ run: run.id, month: run.month, key });
      if (none && !withCalls.has(pk)) this.callless.add(id);
      else this.callless.delete(id);
    }
    // The rows encoded now (encodeBlocks): kept until their insert, they would survive young collections.
    return { rollouts: encodeBlocks(ROLLOUT_NATIVE, [rollouts], ROLLOUT_LAYOUT.at), runNos, calls, pieces, tools: encodeBlocks(TOOL_NATIVE, [tools]), written };
  }
}

/** A deleted row laid out as a held one (heldLayout): its key columns, zeros and nulls elsewhere (a deleted row is never read). */
function deletedRow(cols: readonly string[], keys: Record<string, unknown>, run: SyncedRun, version: number): unknown[] {
  return [run.no, ...cols.map((c) => (c in keys ? keys[c] : null)), run.id, run.month, version, 1];
}

/** Call ids as the working copy stores them (16 bytes for a uuid4 hex), for rows read back from ClickHouse. */
export const localCallId = storedCallId;

/** A rollout's calls as an ingest worker encoded them, taken instead of stored in the working copy (rows.ts CallMirror.take). */
interface Piece {
  pk: number;
  fileId: number;
  calls: EncodedCalls;
  from: number;
  count: number;
  /** The rollout's key and run, given when a write reads the rollout. */
  key: string;
  run: SyncedRun | null;
}

/**
 * What the mirror holds of a rollout's calls since the last flush: rows ingest inserted, and calls taken (`taken` in all);
 * each list made when first needed (a cold pass's rollouts only take, some 100k of them held at once).
 */
interface Held {
  rows: unknown[][] | null;
  pieces: Piece[] | null;
  taken: number;
}

type OwnedPiece = Piece & { run: SyncedRun };

/** Where each of CALL_INSERT's columns is among the encoded ones (-1: written here). */
const ENCODED_AT = CALL_INSERT.map((name) => ENCODED_CALL_COLUMNS.findIndex((c) => c.name === name));
{
  // The workers encode the columns as the table declares them.
  const declared = nativeColumns('calls', ENCODED_CALL_COLUMNS.map((c) => c.name));
  for (const [k, c] of ENCODED_CALL_COLUMNS.entries()) {
    if (declared[k].type !== c.type) throw new Error(`lib/index/clickhouse/call-columns.ts: calls.${c.name} is ${declared[k].type} in the table, encoded as ${c.type}`);
  }
}

/**
 * Taken calls as rows of the calls table in CALL_INSERT's order: the columns the workers encoded as their bytes, copied
 * by range; the rollout's key, run, pk, file and the version written here.
 */
function takenRows(pieces: OwnedPiece[], version: number): BlockRows {
  let n = 0;
  for (const p of pieces) n += p.count;
  const encoded = n ? concatRanges(pieces) : [];
  const pieceOf = new Int32Array(n);
  for (let k = 0, r = 0; k < pieces.length; k++) pieceOf.fill(k, r, (r += pieces[k].count));
  const perPiece = (value: (p: OwnedPiece) => number): NumberColumn => {
    const numbers = new Float64Array(n);
    for (let k = 0, r = 0; k < pieces.length; k++) numbers.fill(value(pieces[k]), r, (r += pieces[k].count));
    return { numbers, nulls: null };
  };
  const column = (c: number): ((r: number) => unknown) | NumberColumn | EncodedColumn => {
    if (ENCODED_AT[c] >= 0) return encoded[ENCODED_AT[c]];
    switch (CALL_INSERT[c]) {
      case 'key':
        return (r) => pieces[pieceOf[r]].key;
      case 'run':
        return (r) => pieces[pieceOf[r]].run.id;
      case 'run_month':
        return perPiece((p) => p.run.month);
      case 'version':
        return { numbers: new Float64Array(n).fill(version), nulls: null };
      case 'rollout_pk':
        return perPiece((p) => p.pk);
      case 'file_id':
        return perPiece((p) => p.fileId);
      default:
        throw new Error(`lib/index/clickhouse/sync.ts: no value for the calls column ${CALL_INSERT[c]}`);
    }
  };
  return { n, column };
}
