// The SQLite schema of the index. Per call: the metadata columns views sort and filter on and the byte spans
// of the line and of its request and response values (payloads stay on disk). Per rollout: its aggregates,
// reward, indices, attempt, failure class and gaps. Per file: identity and how far it has been read.
// Call rows are kept narrow (I4): no run number (the rollout has it), request/response offsets relative to the
// line's start, no secondary index (a call by id is found among its rollout's rows).
// Sort keys use IFNULL(col, -1e308) so that null (unknown) sorts below every value in both directions and one
// expression index serves ascending and descending keyset pages.
import type Database from 'better-sqlite3';
import type { RolloutSortColumn } from '../api/schemas';
import { CALL_COLUMNS_SQL } from './call-row';

// 12: run totals carry the agents, and totals stored by 11 (run_stats) have none. 13: a line's answers also read
// from ground_truth / extracted_final_answer, and its outcome holds browsecomp's fields (lib/rollouts/rollout-line.ts). 14: the
// trajectory summary of each line and its tool calls (lib/rollouts/trajectory-summary.ts).
export const SCHEMA_VERSION = 14;

// The column (or expression column) of each sort key the API accepts (lib/api/schemas.ts, ROLLOUT_SORT_COLUMNS).
// Token sort keys sort by the counts the views show (shown_* below, lib/view/table.ts shownTokens).
export const SORT_COLUMNS = {
  tokens_in: 'shown_tokens_in',
  tokens_out: 'shown_tokens_out',
  tokens_reasoning: 'shown_tokens_reasoning',
  tokens_cached: 'shown_cached_tokens',
  tokens_total: 'shown_tokens_total',
  calls: 'num_calls',
  latency_sum: 'latency_sum',
  latency_max: 'latency_max',
  ttft_p50: 'ttft_p50',
  reward: 'reward',
  errors: 'errors',
  gaps: 'gap_count',
  started_at: 'started_at',
  tool_calls: 'tool_calls',
  tool_time: 'tool_time',
  turns: 'turns',
  invocations: 'invocations',
} as const satisfies Record<RolloutSortColumn, string>;
export type SortKey = keyof typeof SORT_COLUMNS | 'rollout';

const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  no INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  root TEXT NOT NULL,
  rollouts_file TEXT,
  failures_file TEXT,
  capture_dir TEXT
);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  run_no INTEGER NOT NULL,
  path TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  rollout_id TEXT,
  dev INTEGER, ino INTEGER, size INTEGER, mtime_ms REAL,
  offset INTEGER NOT NULL DEFAULT 0,
  next_line INTEGER NOT NULL DEFAULT 1,
  next_call_index INTEGER NOT NULL DEFAULT 0,
  unreadable INTEGER NOT NULL DEFAULT 0,
  pending INTEGER NOT NULL DEFAULT 0,
  -- A rollouts file's last line without its newline, stored provisionally (ingest/rollouts-files.ts, readRolloutsTail).
  tail_pk INTEGER
);
CREATE TABLE IF NOT EXISTS rollouts (
  pk INTEGER PRIMARY KEY,
  run_no INTEGER NOT NULL,
  key TEXT NOT NULL,
  rollout_id TEXT,
  line_file INTEGER, line_no INTEGER, line_offset INTEGER, line_length INTEGER,
  reward REAL, task_index INTEGER, rollout_index INTEGER, attempt INTEGER,
  failure_class TEXT, agent TEXT, task TEXT, search TEXT,
  attached_calls INTEGER, attached_tokens_total INTEGER, attached_gaps TEXT,
  usage_in INTEGER, usage_out INTEGER, usage_reasoning INTEGER, usage_cached INTEGER, usage_total INTEGER,
  -- Why the rollout line could not be read (not JSON, not an object, an id NeMo Gym's derivation rejects); null when it was.
  line_problem TEXT,
  capture_file INTEGER, marker INTEGER NOT NULL DEFAULT 0, unreadable INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL DEFAULT 'none',
  -- What decides the reward, from the line (lib/rollouts/rollout-line.ts): the prompt, the answers, the outcome fields (JSON).
  prompt TEXT, expected TEXT, extracted TEXT, outcome TEXT,
  -- The rollout key's place in the default order (rollout-order.ts).
  order_key TEXT NOT NULL DEFAULT '',
  num_calls INTEGER NOT NULL DEFAULT 0,
  tokens_in INTEGER, tokens_out INTEGER, tokens_reasoning INTEGER, tokens_total INTEGER, cached_tokens INTEGER,
  latency_sum REAL, latency_max REAL, ttft_p50 REAL,
  errors INTEGER NOT NULL DEFAULT 0,
  gaps TEXT, gap_count INTEGER NOT NULL DEFAULT 0,
  model_servers TEXT, dialects TEXT, error_categories TEXT,
  started_at REAL, completed_at REAL,
  mismatch INTEGER NOT NULL DEFAULT 0,
  -- The line's trajectory (lib/rollouts/trajectory-summary.ts): all null when it has none to show. Tool time in ms,
  -- measured intervals only; tool names and statuses as |a|b| tags; trajectory gaps as the JSON list of {code, detail}.
  trajectory_source TEXT, invocations INTEGER, subagent_depth INTEGER, turns INTEGER, tool_calls INTEGER, tool_failed INTEGER,
  tool_time REAL, tool_time_max REAL, tool_unmeasured INTEGER, compactions INTEGER, sandboxes INTEGER, trajectory_gaps TEXT,
  tool_names TEXT, tool_statuses TEXT,
  -- The token counts the views show and sort by: the captured calls' sums, or for a rollout without calls its
  -- line's response.usage (lib/view/table.ts, shownTokens). Computed, not stored; their sort indexes store them.
  shown_tokens_in INTEGER GENERATED ALWAYS AS (CASE WHEN num_calls = 0 THEN usage_in ELSE tokens_in END) VIRTUAL,
  shown_tokens_out INTEGER GENERATED ALWAYS AS (CASE WHEN num_calls = 0 THEN usage_out ELSE tokens_out END) VIRTUAL,
  shown_tokens_reasoning INTEGER GENERATED ALWAYS AS (CASE WHEN num_calls = 0 THEN usage_reasoning ELSE tokens_reasoning END) VIRTUAL,
  shown_cached_tokens INTEGER GENERATED ALWAYS AS (CASE WHEN num_calls = 0 THEN usage_cached ELSE cached_tokens END) VIRTUAL,
  shown_tokens_total INTEGER GENERATED ALWAYS AS (CASE WHEN num_calls = 0 THEN usage_total ELSE tokens_total END) VIRTUAL,
  UNIQUE (run_no, key)
);
-- A call's columns are call-row.ts's (CALL_COLUMNS), in its order.
CREATE TABLE IF NOT EXISTS calls (
  ${CALL_COLUMNS_SQL},
  PRIMARY KEY (rollout_pk, call_index)
) WITHOUT ROWID;
-- The tool calls of each rollout's trajectory, in the trajectory's order (seq), with the rollouts file they came from.
CREATE TABLE IF NOT EXISTS tool_calls (
  rollout_pk INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  invocation_id TEXT, tool_call_id TEXT, tool_name TEXT, status TEXT,
  started_at REAL, duration_ms REAL, timing_source TEXT, sandbox_id TEXT,
  PRIMARY KEY (rollout_pk, seq)
) WITHOUT ROWID;
-- A run's compare figures (compare.ts), whole and for each batch of its rollouts (in batch-codec.ts's binary form).
CREATE TABLE IF NOT EXISTS run_stats (run_no INTEGER PRIMARY KEY, stats TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS compare_batches (run_no INTEGER NOT NULL, batch INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run_no, batch)) WITHOUT ROWID;
`;

/**
 * The secondary indexes of the rollouts table (sorting, filters, tasks). A cold ingest drops them and builds
 * them once at the end (`dropRolloutIndexes`): kept up to date row by row they cost more than the rest of the
 * writes (each rollout row is written several times and touches every one of them), while a build from the
 * finished table is one sort each. An index left without them (a process stopped mid-ingest) gets them back
 * when it is next opened (`migrate`).
 */
export const ROLLOUT_INDEXES: readonly { name: string; sql: string }[] = [
  { name: 'rollouts_by_task', sql: 'CREATE INDEX IF NOT EXISTS rollouts_by_task ON rollouts (run_no, task_index, rollout_index)' },
  // Covers every list filter but text search and every numeric sort key, so that a filtered count, and the
  // matches of a filter sorted by any key but the rollout key (queries.ts, plan `matches`), read this index only.
  {
    name: 'rollouts_filter',
    sql: `CREATE INDEX IF NOT EXISTS rollouts_filter ON rollouts (run_no, errors, attempt, reward, failure_class, line_problem, model_servers, dialects,
  error_categories, gaps, shown_tokens_in, shown_tokens_out, shown_tokens_reasoning, shown_tokens_total, shown_cached_tokens, num_calls, latency_sum, latency_max,
  ttft_p50, gap_count, started_at, tool_calls, tool_time, turns, invocations, tool_names, tool_statuses, trajectory_gaps)`,
  },
  { name: 'rollouts_sort_order_key', sql: 'CREATE INDEX IF NOT EXISTS rollouts_sort_order_key ON rollouts (run_no, order_key, pk)' },
  ...Object.values(SORT_COLUMNS).map((column) => ({
    name: `rollouts_sort_${column}`,
    sql: `CREATE INDEX IF NOT EXISTS rollouts_sort_${column} ON rollouts (run_no, IFNULL(${column}, -1e308), pk)`,
  })),
];

export function dropRolloutIndexes(db: Database.Database): void {
  for (const index of ROLLOUT_INDEXES) db.exec(`DROP INDEX IF EXISTS ${index.name}`);
}

/** Whether the named index exists (the rollouts indexes are absent during a cold ingest). */
export function hasIndex(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(name) !== undefined;
}

/**
 * Opens the schema on `db`, rebuilt when it is of another version. `rolloutIndexes: false` (an index nobody queries: the
 * ClickHouse ingest's working copy) keeps the rollouts without their secondary indexes, which only pages read.
 */
export function migrate(db: Database.Database, { rolloutIndexes = true } = {}): void {
  // 16 KB pages (for a new index file; an existing one keeps its own): a cold ingest writes each page to the WAL
  // and again at checkpoints, one system call a page, and on this machine kind those calls cost more than the
  // bytes: a cold ingest is faster than with 4 KB pages, for about 1% more bytes on disk.
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // derived data: an OS crash costs a rebuild at worst, never a capture line
  db.pragma('foreign_keys = OFF');
  const version = (() => {
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined;
      return row ? Number(row.value) : 0;
    } catch {
      return 0;
    }
  })();
  // An index of another version is rebuilt (7 added the rollout lines' response.usage, which needs every
  // rollouts file read again, and the provisional last lines of rollouts files).
  if (version !== SCHEMA_VERSION) {
    db.exec('DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS rollouts; DROP TABLE IF EXISTS calls; DROP TABLE IF EXISTS tool_calls; DROP TABLE IF EXISTS run_stats; DROP TABLE IF EXISTS compare_batches;');
  }
  db.exec(DDL);
  db.exec('DROP INDEX IF EXISTS rollouts_sort_key'); // the key order's index of older files: the UNIQUE index serves it
  if (rolloutIndexes) for (const index of ROLLOUT_INDEXES) db.exec(index.sql);
  else dropRolloutIndexes(db);
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
}
