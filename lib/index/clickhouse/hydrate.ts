// An ingest's working copy against the database, at start. The working copy records, per run, the version of the last
// rows it wrote (ch_synced, a table of its own beside SQLite's). A run the database holds newer rows of (another
// machine ingested it since), or that the working copy lacks (a new machine, a new index dir), is filled from the
// database: its files with their read offsets, its rollouts and tool calls, as they were written, and the calls of
// rollouts without a capture file (a capture file's calls are read again from it when ingest needs them: sync.ts), so
// that the next pass reads only what was appended. A run the working copy holds but the database does not (the database was
// emptied) is written again whole. A run whose rows the working copy changed and did not write (ch_unflushed: the
// process stopped, or the database refused a flush, before they were written) is filled from the database too: its
// files are then read again from the offsets the database holds, so nothing read but unwritten is lost.
import type Database from 'better-sqlite3';
import type { ClickHouseClient } from '@clickhouse/client';
import { storedCallId } from '../call-id';
import { written } from './schema';

export interface SyncedRun {
  no: number;
  id: string;
  month: number;
  /** Its capture dir, if any. */
  captureDir: string | null;
}

/**
 * The working copy's own tables (beside SQLite's): each run's last written version (localState reads it), the runs it has
 * changed since it last wrote them all (ch_unflushed: kept across a restart, unlike the temp marks of what changed),
 * and the rollouts whose calls it does not hold (ch_remote_calls: their capture files hold them; sync.ts localize).
 */
export function ensureTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS main.ch_synced (run TEXT PRIMARY KEY, version INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS main.ch_unflushed (run_no INTEGER PRIMARY KEY);
    CREATE TABLE IF NOT EXISTS main.ch_remote_calls (pk INTEGER PRIMARY KEY)`);
}

const ROLLOUT_COLS = written('rollouts');
const FILE_COLS = written('files');
const CALL_COLS = written('calls');
const TOOL_COLS = written('tool_calls');

/** What the working copy's rows of a run need: nothing, to be filled from the database, or to be written to it again. */
export async function localState(client: ClickHouseClient, database: string, db: Database.Database, run: string, runNo: number): Promise<{ state: 'current' | 'hydrate' | 'resync'; version: number }> {
  ensureTables(db);
  const rs = await client.query({
    query: `SELECT greatest((SELECT max(version) FROM ${database}.files WHERE run = {run:String}), (SELECT max(version) FROM ${database}.rollouts WHERE run = {run:String}))`,
    query_params: { run },
    format: 'JSONCompactEachRow',
  });
  const [[inDatabase]] = await rs.json<[number]>();
  const local = db.prepare('SELECT EXISTS (SELECT 1 FROM files WHERE run_no = ?)').pluck().get(runNo) === 1;
  const synced = (db.prepare('SELECT version FROM ch_synced WHERE run = ?').pluck().get(run) as number | undefined) ?? 0;
  const unflushed = db.prepare('SELECT EXISTS (SELECT 1 FROM ch_unflushed WHERE run_no = ?)').pluck().get(runNo) === 1;
  if (!inDatabase) return { state: local ? 'resync' : 'current', version: 0 };
  return { state: !local || unflushed || inDatabase > synced ? 'hydrate' : 'current', version: inDatabase };
}

/** Records each run's last written version (after a flush). */
export function recordSynced(db: Database.Database, runs: SyncedRun[], versions: ReadonlyMap<string, number>): void {
  ensureTables(db);
  const put = db.prepare('INSERT INTO ch_synced (run, version) VALUES (?, ?) ON CONFLICT (run) DO UPDATE SET version = excluded.version');
  for (const r of runs) {
    const v = versions.get(r.id);
    if (v !== undefined) put.run(r.id, v);
  }
}

/** Marks every row of a run to be written (the mirror's temp tables exist: sync.ts). */
export function markAllDirty(db: Database.Database, runNo: number): void {
  db.prepare('INSERT OR IGNORE INTO ch_dirty_rollouts (pk) SELECT pk FROM main.rollouts WHERE run_no = ?').run(runNo);
  db.prepare('INSERT OR IGNORE INTO ch_dirty_files SELECT id FROM main.files WHERE run_no = ?').run(runNo);
}

/** Replaces the working copy's rows of a run with the database's (newest versions; calls and tool calls of those versions). */
export async function hydrateRun(client: ClickHouseClient, database: string, db: Database.Database, run: string, runNo: number, version: number): Promise<void> {
  const current = `(key, version) IN (SELECT key, version FROM ${database}.rollouts FINAL WHERE run = {run:String} AND deleted = 0)`;
  const tables: { table: string; cols: string[]; query: string; map?: (row: unknown[]) => unknown[] }[] = [
    { table: 'files', cols: FILE_COLS, query: `SELECT ${FILE_COLS.join(', ')} FROM ${database}.files FINAL WHERE run = {run:String} AND deleted = 0 ORDER BY id` },
    { table: 'rollouts', cols: ROLLOUT_COLS, query: `SELECT ${ROLLOUT_COLS.join(', ')} FROM ${database}.rollouts FINAL WHERE run = {run:String} AND deleted = 0 ORDER BY pk` },
    {
      // Only the calls of rollouts without a capture file (a run without a capture dir: the lines' attached calls): the
      // others are their capture files' lines, read again from them when ingest needs them (ch_remote_calls, sync.ts).
      table: 'calls',
      cols: CALL_COLS,
      query: `SELECT ${CALL_COLS.join(', ')} FROM ${database}.calls WHERE run = {run:String} AND (key, version) IN (
        SELECT key, version FROM ${database}.rollouts FINAL WHERE run = {run:String} AND deleted = 0 AND capture_file IS NULL) AND deleted = 0 ORDER BY rollout_pk, call_index`,
      map: (row) => row.map((v, i) => (CALL_COLS[i] === 'model_call_id' ? storedCallId(v) : v)),
    },
    { table: 'tool_calls', cols: TOOL_COLS, query: `SELECT ${TOOL_COLS.join(', ')} FROM ${database}.tool_calls WHERE run = {run:String} AND ${current} ORDER BY rollout_pk, seq` },
  ];
  db.exec('BEGIN');
  try {
    db.prepare('DELETE FROM ch_remote_calls WHERE pk IN (SELECT pk FROM rollouts WHERE run_no = ?)').run(runNo);
    db.prepare('DELETE FROM calls WHERE rollout_pk IN (SELECT pk FROM rollouts WHERE run_no = ?)').run(runNo);
    db.prepare('DELETE FROM tool_calls WHERE rollout_pk IN (SELECT pk FROM rollouts WHERE run_no = ?)').run(runNo);
    db.prepare('DELETE FROM rollouts WHERE run_no = ?').run(runNo);
    db.prepare('DELETE FROM files WHERE run_no = ?').run(runNo);
    db.prepare('DELETE FROM run_stats WHERE run_no = ?').run(runNo);
    db.prepare('DELETE FROM compare_batches WHERE run_no = ?').run(runNo);
    for (const t of tables) {
      const runCol = t.table === 'files' || t.table === 'rollouts';
      const cols = runCol ? ['run_no', ...t.cols] : t.cols;
      const insert = db.prepare(`INSERT INTO ${t.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      const rs = await client.query({ query: t.query, query_params: { run }, format: 'JSONCompactEachRow' });
      for await (const rows of rs.stream()) {
        for (const r of rows) {
          let values = r.json<unknown[]>();
          if (t.map) values = t.map(values);
          insert.run(...(runCol ? [runNo, ...values] : values));
        }
      }
    }
    db.prepare('INSERT OR IGNORE INTO ch_remote_calls SELECT pk FROM rollouts WHERE run_no = ? AND capture_file IS NOT NULL AND num_calls > 0').run(runNo);
    db.prepare('INSERT INTO ch_synced (run, version) VALUES (?, ?) ON CONFLICT (run) DO UPDATE SET version = excluded.version').run(run, version);
    db.prepare('DELETE FROM ch_unflushed WHERE run_no = ?').run(runNo);
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
