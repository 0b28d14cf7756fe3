// Read queries over the index: the rollouts list (sort, filters, search, keyset pages), run totals and the
// cross-run comparison. Every sort key has an expression index (see schema.ts), so a page costs the same at
// any depth.
import type { RolloutSource, TrajectorySource } from '../../capture/vocabulary';
import type { ResponseUsage } from '../../rollouts/rollout-line';
import type Database from 'better-sqlite3';
import type { Run } from '../../api/schemas';
import { SORT_COLUMNS, hasIndex, type SortKey } from '../schema';

export interface RolloutFilters {
  q?: string;
  model_server?: string;
  dialect?: string;
  error_category?: string;
  gap?: string;
  /** Rollouts whose trajectory has a tool call of this name / status, or this trajectory gap code. */
  tool_name?: string;
  tool_status?: string;
  trajectory_gap?: string;
  attempt?: number;
  reward_min?: number;
  reward_max?: number;
  has_errors?: boolean;
  failed?: boolean;
  line_problem?: boolean;
}

export interface RolloutPageQuery extends RolloutFilters {
  sort: SortKey;
  order: 'asc' | 'desc';
  limit: number;
  cursor?: string;
}

export class CursorError extends Error {
  override name = 'CursorError';
}

/** By name: the index may have been loaded by another module instance than the caller (serve vs routes). */
export const isCursorError = (err: unknown): boolean => err instanceof Error && err.name === 'CursorError';

export const ROLLOUT_COLUMNS = `pk, key, rollout_id, line_no, reward, task_index, rollout_index, attempt, failure_class, agent, task, source,
  num_calls, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_sum, latency_max, ttft_p50, errors, gaps,
  gap_count, model_servers, dialects, error_categories, started_at, completed_at, marker, unreadable, mismatch, attached_calls, attached_tokens_total,
  usage_in, usage_out, usage_reasoning, usage_cached, usage_total, line_problem, prompt, expected, extracted, outcome, trajectory_source, invocations,
  subagent_depth, turns, tool_calls, tool_failed, tool_time, tool_time_max, tool_unmeasured, compactions, sandboxes, trajectory_gaps, tool_names, tool_statuses`;

export interface RolloutRow {
  pk: number;
  key: string;
  rollout_id: string | null;
  line_no: number | null;
  reward: number | null;
  task_index: number | null;
  rollout_index: number | null;
  attempt: number | null;
  failure_class: string | null;
  agent: string | null;
  task: string | null;
  source: RolloutSource;
  num_calls: number;
  tokens_in: number | null;
  tokens_out: number | null;
  tokens_reasoning: number | null;
  tokens_total: number | null;
  cached_tokens: number | null;
  latency_sum: number | null;
  latency_max: number | null;
  ttft_p50: number | null;
  errors: number;
  gaps: string | null;
  gap_count: number;
  model_servers: string | null;
  dialects: string | null;
  error_categories: string | null;
  started_at: number | null;
  completed_at: number | null;
  marker: number;
  unreadable: number;
  mismatch: number;
  attached_calls: number | null;
  attached_tokens_total: number | null;
  /** The rollout line's own response.usage (rollout-line.ts, ResponseUsage); all null without one. */
  usage_in: number | null;
  usage_out: number | null;
  usage_reasoning: number | null;
  usage_cached: number | null;
  usage_total: number | null;
  line_problem: string | null;
  prompt: string | null;
  expected: string | null;
  extracted: string | null;
  /** JSON object of the line's outcome fields (rollout-line.ts OUTCOME_FIELDS), or null. */
  outcome: string | null;
  /** The line's trajectory summary (lib/rollouts/trajectory-summary.ts): all null when it has none. */
  trajectory_source: TrajectorySource | null;
  invocations: number | null;
  subagent_depth: number | null;
  turns: number | null;
  tool_calls: number | null;
  tool_failed: number | null;
  tool_time: number | null;
  tool_time_max: number | null;
  tool_unmeasured: number | null;
  compactions: number | null;
  sandboxes: number | null;
  trajectory_gaps: string | null;
  tool_names: string | null;
  tool_statuses: string | null;
}

function sortExpression(sort: SortKey): string {
  return sort === 'rollout' ? 'order_key' : `IFNULL(${SORT_COLUMNS[sort]}, -1e308)`;
}

/**
 * The WHERE terms of the filters. `forPage`: every column term is written `+col` so that SQLite checks them on
 * the rows a walk of the sort key's index meets rather than choosing another index; otherwise (the count, the
 * `matches` plan) they are ranges on the narrow covering index `rollouts_filter`.
 */
function filterSql(f: RolloutFilters, params: unknown[], forPage: boolean): string {
  const where: string[] = [];
  const col = (name: string) => (forPage ? `+${name}` : name);
  const tag = (column: string, value: string) => {
    where.push(`instr(IFNULL(${column}, ''), ?) > 0`);
    params.push(`|${value}|`);
  };
  if (f.q) {
    where.push('(instr(IFNULL(search, \'\'), ?) > 0 OR instr(lower(key), ?) > 0)');
    params.push(f.q.toLowerCase(), f.q.toLowerCase());
  }
  if (f.model_server) tag('model_servers', f.model_server);
  if (f.dialect) tag('dialects', f.dialect);
  if (f.error_category) tag('error_categories', f.error_category);
  if (f.gap) {
    where.push('instr(IFNULL(gaps, \'\'), ?) > 0');
    params.push(`"code":"${f.gap}"`);
  }
  if (f.tool_name) tag('tool_names', f.tool_name);
  if (f.tool_status) tag('tool_statuses', f.tool_status);
  if (f.trajectory_gap) {
    where.push('instr(IFNULL(trajectory_gaps, \'\'), ?) > 0');
    params.push(`"code":"${f.trajectory_gap}"`);
  }
  if (f.attempt !== undefined) {
    where.push(`IFNULL(${col('attempt')}, 0) = ?`);
    params.push(f.attempt);
  }
  if (f.reward_min !== undefined) {
    where.push(`${col('reward')} >= ?`);
    params.push(f.reward_min);
  }
  if (f.reward_max !== undefined) {
    where.push(`${col('reward')} <= ?`);
    params.push(f.reward_max);
  }
  if (f.has_errors !== undefined) where.push(f.has_errors ? `${col('errors')} > 0` : `${col('errors')} = 0`);
  if (f.failed !== undefined) where.push(f.failed ? `${col('failure_class')} IS NOT NULL` : `${col('failure_class')} IS NULL`);
  if (f.line_problem !== undefined) where.push(f.line_problem ? `${col('line_problem')} IS NOT NULL` : `${col('line_problem')} IS NULL`);
  return where.length ? ' AND ' + where.join(' AND ') : '';
}

export function encodeCursor(value: unknown, pk: number): string {
  return Buffer.from(JSON.stringify([value, pk])).toString('base64url');
}

export function decodeCursor(cursor: string, sort: SortKey): [number | string, number] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && Number.isInteger(v[1]) && (sort === 'rollout' ? typeof v[0] === 'string' : typeof v[0] === 'number')) {
      return [v[0], v[1]];
    }
  } catch {
    // fall through
  }
  throw new CursorError('cursor is not one this server issued');
}

export interface RolloutPage {
  total: number;
  rollouts: RolloutRow[];
  next_cursor: string | null;
}

/**
 * How a filtered page is read. `walk`: the sort key's index in keyset order, checking the filters on the rows
 * it meets, at most `WALK_SPAN` index entries; cheap when matches are dense along the sort order. `matches`:
 * every match after the cursor, read through the narrow filter index (`rollouts_filter`), then the first
 * `limit + 1` of them by sort key; its cost follows the number of matches, not their place in the order.
 * `auto` (the default) reads few matches directly and otherwise walks, falling back to `matches` when the walk
 * ends before it found a full page (rare matches, or matches far along the order).
 */
export type PagePlan = 'auto' | 'walk' | 'matches';

/** Matches at most this many: read them through the filter index and sort them. */
export const MATCHES_MAX = 3000;
/** Index entries a walk reads before it gives up on finding a full page. */
export const WALK_SPAN = 4000;

function hasFilters(f: RolloutFilters): boolean {
  return (
    !!f.q ||
    !!f.model_server ||
    !!f.dialect ||
    !!f.error_category ||
    !!f.gap ||
    !!f.tool_name ||
    !!f.tool_status ||
    !!f.trajectory_gap ||
    f.attempt !== undefined ||
    f.reward_min !== undefined ||
    f.reward_max !== undefined ||
    f.has_errors !== undefined ||
    f.failed !== undefined ||
    f.line_problem !== undefined
  );
}

function sortIndex(sort: SortKey): string {
  return sort === 'rollout' ? 'rollouts_sort_order_key' : `rollouts_sort_${SORT_COLUMNS[sort]}`;
}

/** ` INDEXED BY name`, or nothing while the index is absent (built at the end of a cold ingest: schema.ts). */
function indexedBy(db: Database.Database, name: string): string {
  return hasIndex(db, name) ? ` INDEXED BY ${name}` : '';
}

type PageRow = RolloutRow & { sort_value: number | string };

export interface PageOptions {
  plan?: PagePlan;
  matchesMax?: number;
  walkSpan?: number;
}

export function listRollouts(db: Database.Database, runNo: number, query: RolloutPageQuery, options: PageOptions = {}): RolloutPage {
  const { plan = 'auto', matchesMax = MATCHES_MAX, walkSpan = WALK_SPAN } = options;
  const e = sortExpression(query.sort);
  const dir = query.order === 'desc' ? 'DESC' : 'ASC';
  const countParams: unknown[] = [];
  const countFilters = filterSql(query, countParams, false);
  const total = (db.prepare(`SELECT count(*) AS n FROM rollouts WHERE run_no = ?${countFilters}`).get(runNo, ...countParams) as { n: number }).n;
  let keyset = '';
  const keyParams: unknown[] = [];
  if (query.cursor) {
    const [value, pk] = decodeCursor(query.cursor, query.sort);
    // (e, pk) beyond the cursor, spelled so that the bound on e is a range on the sort key's index.
    const [le, lt] = dir === 'DESC' ? ['<=', '<'] : ['>=', '>'];
    keyset = ` AND ${e} ${le} ? AND (${e} ${lt} ? OR pk ${lt} ?)`;
    keyParams.push(value, value, pk);
  }
  const order = `ORDER BY ${e} ${dir}, pk ${dir}`;
  const want = query.limit + 1;
  const filtered = hasFilters(query);
  let rows: PageRow[] | null = null;
  if (total === 0) rows = [];
  else if (!filtered) {
    rows = db
      .prepare(`SELECT ${ROLLOUT_COLUMNS}, ${e} AS sort_value FROM rollouts WHERE run_no = ?${keyset} ${order} LIMIT ?`)
      .all(runNo, ...keyParams, want) as PageRow[];
  } else {
    const direct = plan === 'matches' || (plan === 'auto' && total <= matchesMax);
    if (!direct) {
      // Bound the walk at the walkSpan-th entry after the cursor (found on the covering sort index, no table
      // read), then walk in keyset order checking the filters on the rows, stopping at a full page.
      let bound = '';
      const boundParams: unknown[] = [];
      if (plan !== 'walk') {
        const edge = db
          .prepare(`SELECT ${e} AS v, pk FROM rollouts${indexedBy(db, sortIndex(query.sort))} WHERE run_no = ?${keyset} ${order} LIMIT 1 OFFSET ?`)
          .get(runNo, ...keyParams, walkSpan - 1) as { v: number | string; pk: number } | undefined;
        if (edge) {
          const [ge, gt] = dir === 'DESC' ? ['>=', '>'] : ['<=', '<'];
          bound = ` AND ${e} ${ge} ? AND (${e} ${gt} ? OR pk ${ge} ?)`;
          boundParams.push(edge.v, edge.v, edge.pk);
        }
      }
      const params: unknown[] = [runNo];
      const filters = filterSql(query, params, true);
      params.push(...keyParams, ...boundParams, want);
      const walked = db
        .prepare(
          `SELECT ${ROLLOUT_COLUMNS}, ${e} AS sort_value FROM rollouts${indexedBy(db, sortIndex(query.sort))} WHERE run_no = ?${filters}${keyset}${bound} ${order} LIMIT ?`,
        )
        .all(...params) as PageRow[];
      if (walked.length === want || !bound) rows = walked;
    }
    if (!rows) {
      // Every match after the cursor with its sort value, from rollouts_filter (covering but for text search and
      // the rollout key), the first `want` by sort key, then their rows.
      const params: unknown[] = [runNo];
      const filters = filterSql(query, params, false);
      params.push(...keyParams, want);
      const ids = db
        .prepare(`SELECT pk FROM rollouts${indexedBy(db, 'rollouts_filter')} WHERE run_no = ?${filters}${keyset} ${order} LIMIT ?`)
        .pluck()
        .all(...params) as number[];
      const byPk = new Map(
        (ids.length ? (db.prepare(`SELECT ${ROLLOUT_COLUMNS}, ${e} AS sort_value FROM rollouts WHERE pk IN (${ids.join(',')})`).all() as PageRow[]) : []).map(
          (r) => [r.pk, r],
        ),
      );
      rows = ids.map((pk) => byPk.get(pk)!);
    }
  }
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : rows;
  const last = page.at(-1);
  return {
    total,
    rollouts: page.map(({ sort_value: _, ...r }) => r),
    next_cursor: more && last ? encodeCursor(last.sort_value, last.pk) : null,
  };
}

/** A run's totals, as GET /api/runs answers them (lib/api/schemas.ts, RunSchema). */
export type RunTotals = Run['totals'];

export type { ResponseUsage };

/** Sums of the rollout lines' own response.usage, over the `rollouts` that have one. */
export type ResponseUsageTotals = NonNullable<RunTotals['response_usage']>;

/** A rollout row's response.usage, null without one. */
export function responseUsage(r: RolloutRow): ResponseUsage | null {
  if (r.usage_in === null && r.usage_out === null && r.usage_reasoning === null && r.usage_cached === null && r.usage_total === null) return null;
  return { tokens_in: r.usage_in, tokens_out: r.usage_out, tokens_reasoning: r.usage_reasoning, cached_tokens: r.usage_cached, tokens_total: r.usage_total };
}

/**
 * The sums and counts a run's totals are made of, over its rollouts with pk in [lo, hi) or over all of them:
 * compare keeps them per batch of rollouts, so that a change to one rollout reads its batch's rows, not the run's.
 */
export interface TotalsParts extends Omit<RunTotals, 'mean_reward' | 'model_servers' | 'agents' | 'response_usage'> {
  reward_sum: number | null;
  reward_n: number;
  usage_rollouts: number;
  usage_in: number | null;
  usage_out: number | null;
  usage_reasoning: number | null;
  usage_cached: number | null;
  usage_total: number | null;
  /** Model server names, distinct. */
  servers: string[];
  /** Agent names, distinct. */
  agents: string[];
}

const TOTALS_SELECT = `count(*) AS rollouts, count(failure_class) AS failed, IFNULL(sum(num_calls), 0) AS calls, sum(tokens_in) AS tokens_in,
  sum(tokens_out) AS tokens_out, sum(tokens_reasoning) AS tokens_reasoning, sum(tokens_total) AS tokens_total,
  sum(cached_tokens) AS cached_tokens, sum(latency_sum) AS latency_sum, IFNULL(sum(errors), 0) AS errors,
  IFNULL(sum(gap_count), 0) AS gaps, count(line_problem) AS line_problems, IFNULL(sum(source = 'none'), 0) AS uncaptured, sum(reward) AS reward_sum, count(reward) AS reward_n,
  count(IFNULL(usage_in, IFNULL(usage_out, IFNULL(usage_reasoning, IFNULL(usage_cached, usage_total))))) AS usage_rollouts,
  sum(usage_in) AS usage_in, sum(usage_out) AS usage_out, sum(usage_reasoning) AS usage_reasoning,
  sum(usage_cached) AS usage_cached, sum(usage_total) AS usage_total, json_group_array(DISTINCT agent) AS agents FROM rollouts`;
const totalsStatements = new WeakMap<Database.Database, Record<'run' | 'range' | 'runTags' | 'rangeTags', Database.Statement>>();

/** The totals' parts over the run's rollouts, or over those with pk in `range` ([lo, hi)). */
export function totalsParts(db: Database.Database, runNo: number, range?: [number, number]): TotalsParts {
  let st = totalsStatements.get(db);
  if (!st) {
    const tags = 'SELECT DISTINCT model_servers FROM rollouts WHERE';
    st = {
      run: db.prepare(`SELECT ${TOTALS_SELECT} WHERE run_no = ?`),
      range: db.prepare(`SELECT ${TOTALS_SELECT} WHERE pk >= ? AND pk < ? AND +run_no = ?`), // by the pk range
      runTags: db.prepare(`${tags} run_no = ? AND model_servers IS NOT NULL`).pluck(),
      rangeTags: db.prepare(`${tags} pk >= ? AND pk < ? AND +run_no = ? AND model_servers IS NOT NULL`).pluck(),
    };
    totalsStatements.set(db, st);
  }
  const args = range ? [range[0], range[1], runNo] : [runNo];
  // The agents come with the sums (the same rows are read for them), as a JSON array that may hold a null.
  const { agents, ...t } = (range ? st.range : st.run).get(...args) as Omit<TotalsParts, 'servers' | 'agents'> & { agents: string };
  const tags = (range ? st.rangeTags : st.runTags).all(...args) as string[];
  return {
    ...t,
    servers: [...new Set(tags.flatMap((tag) => tag.split('|').filter(Boolean)))],
    agents: (JSON.parse(agents) as (string | null)[]).filter((a): a is string => a !== null),
  };
}

const plus = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : a + b);

/** The parts of several ranges as one (null-skipping sums, as SQL's sum()). */
export function addTotalsParts(parts: TotalsParts[]): TotalsParts {
  const out: TotalsParts = {
    rollouts: 0, failed: 0, calls: 0, tokens_in: null, tokens_out: null, tokens_reasoning: null, tokens_total: null, cached_tokens: null,
    latency_sum: null, errors: 0, gaps: 0, line_problems: 0, uncaptured: 0, reward_sum: null, reward_n: 0, usage_rollouts: 0, usage_in: null, usage_out: null,
    usage_reasoning: null, usage_cached: null, usage_total: null, servers: [], agents: [],
  };
  const servers = new Set<string>();
  const agents = new Set<string>();
  for (const p of parts) {
    for (const k of ['rollouts', 'failed', 'calls', 'errors', 'gaps', 'line_problems', 'uncaptured', 'reward_n', 'usage_rollouts'] as const) out[k] += p[k];
    for (const k of ['tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total', 'cached_tokens', 'latency_sum', 'reward_sum', 'usage_in', 'usage_out', 'usage_reasoning', 'usage_cached', 'usage_total'] as const) {
      out[k] = plus(out[k], p[k]);
    }
    for (const s of p.servers) servers.add(s);
    for (const a of p.agents) agents.add(a);
  }
  out.servers = [...servers];
  out.agents = [...agents];
  return out;
}

export function finishTotals(p: TotalsParts): RunTotals {
  const response_usage: ResponseUsageTotals | null = p.usage_rollouts
    ? { rollouts: p.usage_rollouts, tokens_in: p.usage_in, tokens_out: p.usage_out, tokens_reasoning: p.usage_reasoning, cached_tokens: p.usage_cached, tokens_total: p.usage_total }
    : null;
  return {
    rollouts: p.rollouts, failed: p.failed, calls: p.calls, tokens_in: p.tokens_in, tokens_out: p.tokens_out, tokens_reasoning: p.tokens_reasoning,
    tokens_total: p.tokens_total, cached_tokens: p.cached_tokens, latency_sum: p.latency_sum, errors: p.errors, gaps: p.gaps, line_problems: p.line_problems,
    uncaptured: p.uncaptured, mean_reward: p.reward_n && p.reward_sum !== null ? p.reward_sum / p.reward_n : null, model_servers: [...p.servers].sort(),
    agents: [...p.agents].sort(), response_usage,
  };
}

export function runTotals(db: Database.Database, runNo: number): RunTotals {
  return finishTotals(totalsParts(db, runNo));
}
