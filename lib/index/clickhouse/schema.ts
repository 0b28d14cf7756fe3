// The ClickHouse tables of the index: the SQLite tables' columns (schema.ts, read from the SQLite schema itself so
// that a column is declared once), keyed by run id instead of a machine's run number, each row with the version of
// the write that produced it. Metadata only: payloads stay in the capture files, served by byte span.
//
// Every table is a ReplacingMergeTree(version, deleted): an ingest writes a changed rollout again whole (its row,
// its calls, its tool calls, all with one new version), a merge keeps the newest version of each key, and reads
// never see two versions of one rollout:
// - rollouts and files are read with FINAL (the newest version of each key; partitions are the run's month and a
//   key never moves between them, so FINAL merges within partitions only: do_not_merge_across_partitions_select_final);
// - a rollout's calls and tool calls are read by its row's version (`version = <the rollout row's>`), which names one
//   write exactly; a run's calls (compare) with FINAL, which is exact because sync.ts writes a deleted row for every
//   call a rollout no longer has.
// Ordered by run, rollout, then call index (a rollout's calls in time order): a rollout's rows are one range.
// Granules of 1024 calls and 256 rollouts (ClickHouse reads whole granules; the default is 8192), the rollouts in compact parts
// (all columns in one file): a rollout's row, some 85 columns, is one read instead of 85, and a page's 50 rows or a
// rollout's calls a few granules. Probe queries on chdb over 100k generated rollouts (not a committed script) read a
// rollout's row in about half the time (25 → 12 ms); the calls, scanned by column for compare, stay in wide parts,
// where compact ones cost 5 B/call more.
import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from '../schema';
import { nativeTypeOf, type NativeColumn } from './native';

/** The SQLite schema version the tables mirror: a database of another version is refused, never changed. */
export const CLICKHOUSE_SCHEMA = `sqlite-${SCHEMA_VERSION}.2`;

export interface MirroredColumn {
  name: string;
  /** ClickHouse type. */
  type: string;
  /** Computed from other columns (the SQLite generated columns): not written, read by name. */
  alias?: string;
}

export type TableName = 'runs' | 'files' | 'rollouts' | 'calls' | 'tool_calls';

/** Columns SQLite keeps per machine that ClickHouse keys by run id instead (the run id is the `run` column). */
const LOCAL_ONLY = new Set(['run_no', 'no']);

function chType(sqliteType: string, notNull: boolean): string {
  const base = sqliteType === 'INTEGER' ? 'Int64' : sqliteType === 'REAL' ? 'Float64' : 'String';
  return notNull ? base : `Nullable(${base})`;
}

/** The SQLite generated columns, as ClickHouse ALIAS expressions. */
const ALIASES: Record<string, string> = {
  shown_tokens_in: 'if(num_calls = 0, usage_in, tokens_in)',
  shown_tokens_out: 'if(num_calls = 0, usage_out, tokens_out)',
  shown_tokens_reasoning: 'if(num_calls = 0, usage_reasoning, tokens_reasoning)',
  shown_cached_tokens: 'if(num_calls = 0, usage_cached, cached_tokens)',
  shown_tokens_total: 'if(num_calls = 0, usage_total, tokens_total)',
};

function mirrored(): Record<TableName, MirroredColumn[]> {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const of = (table: TableName) =>
      (db.prepare(`PRAGMA table_xinfo(${table})`).all() as { name: string; type: string; notnull: number; hidden: number; pk: number }[])
        .filter((c) => !LOCAL_ONLY.has(c.name))
        .map((c): MirroredColumn => {
          if (c.hidden) {
            const alias = ALIASES[c.name];
            if (!alias) throw new Error(`lib/index/clickhouse/schema.ts: no ClickHouse expression for the generated column ${table}.${c.name}`);
            return { name: c.name, type: chType(c.type, false), alias };
          }
          // INTEGER PRIMARY KEY columns are never null once written.
          return { name: c.name, type: chType(c.type, c.notnull === 1 || c.pk === 1) };
        });
    return { runs: of('runs'), files: of('files'), rollouts: of('rollouts'), calls: of('calls'), tool_calls: of('tool_calls') };
  } finally {
    db.close();
  }
}

/** Each mirrored table's SQLite columns as ClickHouse declares them (without the run, version and deleted columns). */
export const MIRRORED = mirrored();

/** The SQLite columns a table's rows carry to ClickHouse, in order (aliases excluded). */
export const written = (table: TableName): string[] => MIRRORED[table].filter((c) => !c.alias).map((c) => c.name);

/**
 * Columns ClickHouse adds: `run` (the run id), `run_month` (the partition: the month the run was first written, so
 * that a key never changes partition), `version` and `deleted` (ReplacingMergeTree's), and for rollouts the path and
 * kind of the file its line is in (a rollout row is read without the files table).
 */
const EXTRA = {
  head: ['run LowCardinality(String)', 'run_month UInt32'],
  tail: ['version UInt64', 'deleted UInt8 DEFAULT 0'],
};

export const ROLLOUT_EXTRA = ['line_path Nullable(String)', 'line_kind LowCardinality(Nullable(String))'];

/** The types of the columns ClickHouse adds (EXTRA, ROLLOUT_EXTRA and the calls' and tool calls' `key`). */
const EXTRA_TYPES = new Map([...EXTRA.head, ...EXTRA.tail, ...ROLLOUT_EXTRA, 'key String'].map((d) => [d.split(' ')[0], d.split(' ')[1]]));

/** Columns of a table as a Native block writes them (native.ts), by name, in the given order. */
export function nativeColumns(table: TableName, names: readonly string[]): NativeColumn[] {
  return names.map((name) => {
    const type = MIRRORED[table].find((c) => c.name === name && !c.alias)?.type ?? EXTRA_TYPES.get(name);
    if (!type) throw new Error(`lib/index/clickhouse/schema.ts: ${table} has no written column ${name}`);
    return { name, type: nativeTypeOf(type) };
  });
}

function columnsSql(table: TableName, extra: string[] = []): string {
  const cols = MIRRORED[table].map((c) => (c.alias ? `${c.name} ${c.type} ALIAS ${c.alias}` : `${c.name} ${lowCardinality(table, c)} ${codec(table, c)}`));
  return [...EXTRA.head, ...cols, ...extra, ...EXTRA.tail].join(',\n  ');
}

/** Repetitive text columns (a few distinct values per run) as LowCardinality: smaller and faster to filter. */
const LOW_CARDINALITY = new Set(['calls.model_server', 'calls.model', 'calls.dialect', 'calls.response_status', 'calls.finish_reason', 'calls.error_category', 'files.kind', 'rollouts.source', 'rollouts.agent', 'rollouts.failure_class', 'rollouts.trajectory_source', 'tool_calls.tool_name', 'tool_calls.status', 'tool_calls.timing_source']);

function lowCardinality(table: TableName, c: MirroredColumn): string {
  return LOW_CARDINALITY.has(`${table}.${c.name}`) ? `LowCardinality(${c.type})` : c.type;
}

/**
 * Compression per column, chosen by a one-off codec sweep over bench:clickhouse's generated calls (not committed;
 * the bytes each column takes with these codecs are in reports/bench-clickhouse.json, calls_columns): ZSTD over LZ4
 * (the default) halves text and integers, a uuid4().hex call id included; integers first through T64 (a little
 * smaller again); ids that climb with the sort order as deltas. Floats (time.time() stamps, 2-decimal latencies)
 * did better with ZSTD alone than with Gorilla or FPC.
 */
function codec(table: TableName, c: MirroredColumn): string {
  if (DELTA.has(`${table}.${c.name}`)) return 'CODEC(Delta, ZSTD(1))';
  return c.type.includes('Int64') ? 'CODEC(T64, ZSTD(1))' : 'CODEC(ZSTD(1))';
}

const DELTA = new Set(['calls.rollout_pk', 'calls.file_id', 'tool_calls.rollout_pk', 'tool_calls.file_id', 'rollouts.pk', 'rollouts.line_no', 'rollouts.line_offset', 'rollouts.capture_file']);

const ENGINE = 'ENGINE = ReplacingMergeTree(version, deleted)';

/** The DDL of the database's tables, in creation order (`db`: the database name, already checked to be an identifier). */
export function ddl(db: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.meta (key String, value String, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY key`,
    `CREATE TABLE IF NOT EXISTS ${db}.runs (
  ${['id String', ...MIRRORED.runs.filter((c) => c.name !== 'id').map((c) => `${c.name} ${c.type}`), 'capture_dir_note Nullable(String)', 'reward_profile_file Nullable(String)', 'aggregate_metrics_file Nullable(String)', 'inputs_file Nullable(String)', 'run_month UInt32', 'ord UInt32', 'version UInt64'].join(',\n  ')}
) ENGINE = ReplacingMergeTree(version) ORDER BY id`,
    // How far the ingest of each run has got (its state, files, bytes and lines read): what /api/runs shows as progress.
    `CREATE TABLE IF NOT EXISTS ${db}.progress (run String, state LowCardinality(String), files_read Int64, bytes_read Int64, lines_read Int64, error Nullable(String), version UInt64)
ENGINE = ReplacingMergeTree(version) ORDER BY run`,
    // Each run's task groups (aggregates/tasks.ts's Tasks page, built from its rollouts) as JSON, at the version of the run
    // they were built at: built once by whichever process first needs them (an ingest after a pass, a serve for a
    // request), read by every other (clickhouse-index.ts taskGroups). A new version of the run makes them stale.
    `CREATE TABLE IF NOT EXISTS ${db}.task_groups (run String, version UInt64, groups String CODEC(ZSTD(3))) ENGINE = ReplacingMergeTree(version) ORDER BY run`,
    `CREATE TABLE IF NOT EXISTS ${db}.files (
  ${columnsSql('files')}
) ${ENGINE} PARTITION BY run_month ORDER BY (run, id)`,
    `CREATE TABLE IF NOT EXISTS ${db}.rollouts (
  ${columnsSql('rollouts', ROLLOUT_EXTRA)}
) ${ENGINE} PARTITION BY run_month ORDER BY (run, key) SETTINGS index_granularity = 256, min_bytes_for_wide_part = 1000000000000, min_rows_for_wide_part = 1000000000000`,
    `CREATE TABLE IF NOT EXISTS ${db}.calls (
  key String CODEC(ZSTD(1)),
  ${columnsSql('calls')}
) ${ENGINE} PARTITION BY run_month ORDER BY (run, key, call_index) SETTINGS index_granularity = 1024`,
    `CREATE TABLE IF NOT EXISTS ${db}.tool_calls (
  key String CODEC(ZSTD(1)),
  ${columnsSql('tool_calls')}
) ${ENGINE} PARTITION BY run_month ORDER BY (run, key, seq)`,
  ];
}
