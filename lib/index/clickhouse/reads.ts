// The read queries of the ClickHouse backend: the same answers as SQLite's (queries/rollouts.ts, compare/compare.ts,
// aggregates/tasks.ts), in ClickHouse SQL. Rollouts and files are read with FINAL (their newest version); a
// rollout's calls by its row's version (schema.ts). Sort keys and filters are spelled as SQLite's are: nulls sort
// below every value (ifNull(col, -1e308)), ties by the rollout's pk, text filters as substring tests on the tag
// columns, the search text lowercased as SQLite's lower() (ASCII only) does.
import type { ClickHouseClient } from '@clickhouse/client';
import type { CallSummary } from '../../api/call-schemas';
import { decodeCursor, encodeCursor, finishTotals, ROLLOUT_COLUMNS, type RolloutFilters, type RolloutPage, type RolloutPageQuery, type RolloutRow, type RunTotals } from '../queries/rollouts';
import { SORT_COLUMNS, type SortKey } from '../schema';
import { QUANTILES, PERCENTILES, byName, type RunFigures } from '../compare/compare';
import type { Distribution } from '../../api/compare-schemas';
import { taskGroupsOfColumns, type AgentTasks, type TaskRolloutColumns } from '../../rollouts/task-groups';
import type { CallLocation } from '../queries/payload';

/** Query parameters, named p0, p1, … in the order they are added, each with its ClickHouse type. */
export class Params {
  readonly values: Record<string, unknown> = {};
  private n = 0;
  add(value: unknown, type: string): string {
    const name = `p${this.n++}`;
    // Floats as their shortest decimal text: exact, and a whole float beyond 2^53 (-1e308) is not refused as an unsafe integer.
    this.values[name] = type === 'Float64' && typeof value === 'number' ? String(value) : value;
    return `{${name}:${type}}`;
  }
}

export class Reads {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly db: string,
  ) {}

  async rows<T>(query: string, params: Params | Record<string, unknown> = {}): Promise<T[]> {
    const query_params = params instanceof Params ? params.values : params;
    const rs = await this.client.query({ query, query_params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  async arrays<T extends unknown[]>(query: string, params: Params | Record<string, unknown> = {}): Promise<T[]> {
    const query_params = params instanceof Params ? params.values : params;
    const rs = await this.client.query({ query, query_params, format: 'JSONCompactEachRow' });
    return rs.json<T>();
  }

  private get rollouts(): string {
    return `${this.db}.rollouts FINAL`;
  }

  /** A rollout's row and the version its calls were written with. */
  async rollout(run: string, key: string): Promise<{ row: RolloutRow; version: number; line_path: string | null; line_kind: string | null } | null> {
    const rows = await this.rows<RolloutRow & { version: number; line_path: string | null; line_kind: string | null }>(
      `SELECT ${ROLLOUT_COLUMNS}, version, line_path, line_kind, line_offset, line_length FROM ${this.rollouts} WHERE run = {run:String} AND key = {key:String} AND deleted = 0`,
      { run, key },
    );
    const r = rows[0];
    if (!r) return null;
    const { version, line_path, line_kind, ...rest } = r as RolloutRow & { version: number; line_path: string | null; line_kind: string | null; line_offset: number | null; line_length: number | null };
    const { line_offset, line_length, ...row } = rest as RolloutRow & { line_offset: number | null; line_length: number | null };
    spans.set(row, { line_offset, line_length });
    return { row: row as RolloutRow, version, line_path, line_kind };
  }

  /** The run's rollouts page: the same total, order, rows and cursors as SQLite's listRollouts. */
  async listRollouts(run: string, query: RolloutPageQuery): Promise<RolloutPage> {
    const e = sortExpression(query.sort);
    const dir = query.order === 'desc' ? 'DESC' : 'ASC';
    const p = new Params();
    const where = `run = ${p.add(run, 'String')} AND deleted = 0${filterSql(query, p)}`;
    const [{ n: total }] = await this.rows<{ n: number }>(`SELECT count() AS n FROM ${this.rollouts} WHERE ${where}`, p);
    if (total === 0) return { total, rollouts: [], next_cursor: null };
    let keyset = '';
    if (query.cursor) {
      const [value, pk] = decodeCursor(query.cursor, query.sort);
      const [le, lt] = dir === 'DESC' ? ['<=', '<'] : ['>=', '>'];
      const v = p.add(value, query.sort === 'rollout' ? 'String' : 'Float64');
      keyset = ` AND ${e} ${le} ${v} AND (${e} ${lt} ${v} OR pk ${lt} ${p.add(pk, 'Int64')})`;
    }
    const want = query.limit + 1;
    // The page's keys first, sorting only the sort column (the order by all ~85 columns reads each of them for every
    // row of the run), then their rows by primary key.
    const order = await this.arrays<[string, number | string, number]>(
      `SELECT key, ${e} AS sort_value, pk FROM ${this.rollouts} WHERE ${where}${keyset} ORDER BY sort_value ${dir}, pk ${dir} LIMIT ${p.add(want, 'UInt32')}`,
      p,
    );
    const more = order.length > query.limit;
    const page = more ? order.slice(0, query.limit) : order;
    const rows = page.length
      ? await this.rows<RolloutRow>(`SELECT ${ROLLOUT_COLUMNS} FROM ${this.rollouts} WHERE run = {run:String} AND key IN {keys:Array(String)} AND deleted = 0`, { run, keys: page.map(([k]) => k) })
      : [];
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const last = page.at(-1);
    // (A row deleted between the two reads is left out.)
    const rollouts = page.map(([k]) => byKey.get(k)).filter((r): r is RolloutRow => r !== undefined);
    return { total, rollouts, next_cursor: more && last ? encodeCursor(last[1], last[2]) : null };
  }

  /** A run's totals, as SQLite's runTotals (null-skipping sums, distinct servers and agents). */
  async totals(run: string): Promise<RunTotals> {
    const [t] = await this.rows<Record<string, unknown>>(
      `SELECT count() AS rollouts, count(failure_class) AS failed, ifNull(sum(num_calls), 0) AS calls, sum(tokens_in) AS tokens_in,
        sum(tokens_out) AS tokens_out, sum(tokens_reasoning) AS tokens_reasoning, sum(tokens_total) AS tokens_total,
        sum(cached_tokens) AS cached_tokens, sumKahan(latency_sum) AS latency_sum, ifNull(sum(errors), 0) AS errors,
        ifNull(sum(gap_count), 0) AS gaps, count(line_problem) AS line_problems, countIf(source = 'none') AS uncaptured, sumKahan(reward) AS reward_sum, count(reward) AS reward_n,
        countIf(usage_in IS NOT NULL OR usage_out IS NOT NULL OR usage_reasoning IS NOT NULL OR usage_cached IS NOT NULL OR usage_total IS NOT NULL) AS usage_rollouts,
        sum(usage_in) AS usage_in, sum(usage_out) AS usage_out, sum(usage_reasoning) AS usage_reasoning,
        sum(usage_cached) AS usage_cached, sum(usage_total) AS usage_total, groupUniqArray(agent) AS agents,
        arrayFilter(s -> s != '', arrayDistinct(arrayFlatten(groupUniqArray(splitByChar('|', ifNull(model_servers, '')))))) AS servers
       FROM ${this.rollouts} WHERE run = {run:String} AND deleted = 0`,
      { run },
    );
    return finishTotals(t as never);
  }

  /** A rollout's calls as index columns, in call_index order. */
  async calls(run: string, key: string, version: number): Promise<CallSummary[]> {
    return this.rows<CallSummary>(
      `SELECT ${CALL_SUMMARY_COLUMNS} FROM ${this.db}.calls WHERE run = {run:String} AND key = {key:String} AND version = {version:UInt64} AND deleted = 0 ORDER BY call_index`,
      { run, key, version },
    );
  }

  /** Where a rollout's calls are stored, in call_index order (the files' paths looked up by id). */
  async locations(run: string, key: string, pk: number, version: number): Promise<CallLocation[]> {
    const rows = await this.rows<Omit<CallLocation, 'path' | 'kind' | 'rollout_pk'> & { file_id: number | null }>(
      `SELECT call_index, model_call_id, file_id, line_offset, line_length, line_offset + req_off AS req_off, req_len, line_offset + resp_off AS resp_off,
        resp_len, model, dialect FROM ${this.db}.calls WHERE run = {run:String} AND key = {key:String} AND version = {version:UInt64} AND deleted = 0 ORDER BY call_index`,
      { run, key, version },
    );
    const ids = [...new Set(rows.map((r) => r.file_id).filter((id): id is number => id !== null))];
    const files = new Map(
      ids.length
        ? (await this.arrays<[number, string, string]>(`SELECT id, path, kind FROM ${this.db}.files FINAL WHERE run = {run:String} AND id IN {ids:Array(Int64)} AND deleted = 0`, { run, ids })).map(
            ([id, path, kind]) => [id, { path, kind }],
          )
        : [],
    );
    const out: CallLocation[] = [];
    for (const { file_id, ...r } of rows) {
      const f = file_id === null ? undefined : files.get(file_id);
      // In SQLite's key order (queries/payload.ts LOCATION_SQL); its join drops a call whose file row is gone.
      if (f) {
        out.push({
          rollout_pk: pk, call_index: r.call_index, model_call_id: r.model_call_id, path: f.path, kind: f.kind, line_offset: r.line_offset, line_length: r.line_length,
          req_off: r.req_off, req_len: r.req_len, resp_off: r.resp_off, resp_len: r.resp_len, model: r.model, dialect: r.dialect,
        });
      }
    }
    return out;
  }

  /** Every rollout of a task (any agent, any kind) in pk order: what the rollout page's attempts and best of task are taken from. */
  async taskMates(run: string, taskIndex: number): Promise<TaskMate[]> {
    return this.rows<TaskMate>(
      `SELECT key, pk, rollout_index, attempt, failure_class, reward FROM ${this.rollouts} WHERE run = {run:String} AND task_index = {t:Int64} AND deleted = 0 ORDER BY pk`,
      { run, t: taskIndex },
    );
  }

  /**
   * The run's task groups (task-groups.ts taskGroups over the rows aggregates/tasks.ts reads in SQLite): the rows in
   * SQLite's order (task, rollout index, line, pk; rows without indices first) as columns (JSONColumnsWithMetadata: one
   * array per column, far cheaper to decode than 100k rows, grouped without an object per row, and no per-task arrays
   * for the engine to build and sort); each task's name once, from a query of its own run beside it: a group takes the
   * name of its first row that has one, the first by that order of the rows it takes.
   */
  async taskGroups(run: string): Promise<AgentTasks[]> {
    const from = `FROM ${this.rollouts} WHERE run = {run:String} AND deleted = 0 AND line_problem IS NULL`;
    const [rs, names, failures] = await Promise.all([
      this.client.query({
        query: `SELECT agent, task_index, key, rollout_index, reward, shown_tokens_total AS tokens_total, latency_sum AS latency_ms ${from} AND line_kind = 'rollouts'
          ORDER BY task_index NULLS FIRST, rollout_index NULLS FIRST, line_no, pk`,
        query_params: { run },
        format: 'JSONColumnsWithMetadata',
      }),
      this.arrays<[string | null, number, string | null]>(
        `SELECT agent, task_index, argMinIf(ifNull(task, substringUTF8(prompt, 1, 200)), (rollout_index, line_no, pk),
           (task IS NOT NULL OR prompt IS NOT NULL) AND rollout_index IS NOT NULL AND reward IS NOT NULL)
         ${from} AND line_kind = 'rollouts' AND task_index IS NOT NULL GROUP BY agent, task_index`,
        { run },
      ),
      this.arrays<[string | null, number | null]>(`SELECT agent, task_index ${from} AND line_kind = 'failures'`, { run }),
    ]);
    // One array per column under `data` (the client types single-document formats as rows); no rows, no columns at all.
    const { data } = (await rs.json()) as unknown as { data: Partial<TaskRolloutColumns> };
    if (!data.key) return [];
    return taskGroupsOfColumns(data as TaskRolloutColumns, names, failures.map(([agent, task_index]) => ({ agent, task_index })));
  }

  /** A run's task groups as stored when built at `version` (taskGroups' answer at that version), or null. */
  async storedTaskGroups(run: string, version: number): Promise<AgentTasks[] | null> {
    const rs = await this.client.query({
      query: `SELECT groups FROM ${this.db}.task_groups WHERE run = {run:String} AND version = {v:UInt64} LIMIT 1`,
      query_params: { run, v: version },
      // The JSON text as it was stored, unescaped (it holds no tab or newline of its own).
      format: 'TabSeparatedRaw',
    });
    const text = (await rs.text()).trimEnd();
    return text ? (JSON.parse(text) as AgentTasks[]) : null;
  }

  /** Whether a run's task groups are stored at `version` (without reading them). */
  async hasTaskGroups(run: string, version: number): Promise<boolean> {
    const [[n]] = await this.arrays<[number]>(`SELECT count() FROM ${this.db}.task_groups WHERE run = {run:String} AND version = {v:UInt64}`, { run, v: version });
    return n > 0;
  }

  /** One task's rollouts (by key) with the tool calls their captured responses asked for. */
  async taskRollouts(run: string, keys: string[]): Promise<(RolloutRow & { tool_calls_requested: number | null })[]> {
    if (!keys.length) return [];
    return this.rows(
      `SELECT ${ROLLOUT_COLUMNS.replace(/\s+/g, ' ').split(', ').map((c) => `r.${c.trim()} AS ${c.trim()}`).join(', ')}, c.requested AS tool_calls_requested
       FROM (SELECT * FROM ${this.rollouts} WHERE run = {run:String} AND key IN {keys:Array(String)} AND deleted = 0) r
       LEFT JOIN (SELECT key, version, sum(tool_calls) AS requested FROM ${this.db}.calls WHERE run = {run:String} AND key IN {keys:Array(String)} AND deleted = 0 GROUP BY key, version) c
         ON c.key = r.key AND c.version = r.version
       SETTINGS join_use_nulls = 1`,
      { run, keys },
    );
  }

  /** The failures-file rows of one task of one agent ('' for none). */
  async taskFailures(run: string, taskIndex: number, agent: string): Promise<{ key: string; rollout_index: number | null; attempt: number | null; failure_class: string | null }[]> {
    return this.rows(
      `SELECT key, rollout_index, attempt, failure_class FROM ${this.rollouts} WHERE run = {run:String} AND task_index = {t:Int64} AND line_kind = 'failures'
        AND ifNull(agent, '') = {agent:String} AND deleted = 0 ORDER BY rollout_index, ifNull(attempt, 0), pk`,
      { run, t: taskIndex, agent },
    );
  }

  /** The smallest task name of each of these task indices (compare's task relation). */
  async taskNames(run: string, sample: number[]): Promise<Map<number, string | null>> {
    const rows = await this.arrays<[number, string | null]>(
      `SELECT task_index, min(task) FROM ${this.rollouts} WHERE run = {run:String} AND task_index IN {sample:Array(Int64)} AND deleted = 0 GROUP BY task_index`,
      { run, sample },
    );
    return new Map(rows);
  }

  /** A run's compare figures (compare.ts RunFigures), computed in the database: sums, counts and exact nearest-rank quantiles. */
  async figures(run: string, totals: RunTotals): Promise<RunFigures> {
    // The newest row of each call key is the current call, or a deleted row for one that is gone (sync.ts).
    const callsOf = `${this.db}.calls FINAL WHERE run = {run:String} AND deleted = 0`;
    const rolloutsOf = `${this.rollouts} WHERE run = {run:String} AND deleted = 0`;
    const servers = await this.rows<RunFigures['comparison']['calls']['servers'][number]>(
      `SELECT model_server, count() AS calls, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out, sum(tokens_reasoning) AS tokens_reasoning,
        sum(tokens_total) AS tokens_total, sum(cached_tokens) AS cached_tokens, count(error_category) AS errors FROM ${callsOf} GROUP BY model_server`,
      { run },
    );
    const categories = await this.arrays<[string, number]>(`SELECT error_category, count() FROM ${callsOf} AND error_category IS NOT NULL GROUP BY error_category`, { run });
    const gaps = await this.arrays<[string, number]>(
      `SELECT JSONExtractString(g, 'code') AS code, count() FROM (SELECT gaps FROM ${rolloutsOf} AND gap_count > 0) ARRAY JOIN JSONExtractArrayRaw(ifNull(gaps, '[]')) AS g GROUP BY code`,
      { run },
    );
    const latency = await this.quantiles(callsOf, ['latency_ms', 'ttft_ms'], PERCENTILES, run);
    const rolloutCols = ['shown_tokens_in', 'shown_tokens_out', 'shown_tokens_reasoning', 'shown_tokens_total', 'reward', 'tool_calls', 'tool_time'];
    const dist = await this.quantiles(rolloutsOf, rolloutCols, QUANTILES, run);
    const tasks = await this.arrays<[number, number, number | null, number | null]>(
      `SELECT task_index, count(), avg(shown_tokens_total), avg(reward) FROM ${rolloutsOf} AND task_index IS NOT NULL GROUP BY task_index ORDER BY task_index`,
      { run },
    );
    const distribution = (i: number): Distribution => ({ count: dist[i].count, mean: dist[i].count ? dist[i].sum / dist[i].count : null, quantiles: dist[i].quantiles });
    return {
      comparison: {
        totals,
        rollout_tokens: { tokens_in: distribution(0), tokens_out: distribution(1), tokens_reasoning: distribution(2), tokens_total: distribution(3) },
        reward: distribution(4),
        rollout_tool_calls: distribution(5),
        rollout_tool_time: distribution(6),
        gaps: Object.fromEntries(gaps.sort((a, b) => byName(a[0], b[0]))),
        calls: {
          servers: servers.sort((a, b) => b.calls - a.calls || byName(a.model_server, b.model_server)),
          error_categories: Object.fromEntries(categories.sort((a, b) => byName(a[0], b[0]))),
          latency_ms: latency[0].quantiles,
          ttft_ms: latency[1].quantiles,
        },
      },
      tasks: tasks.map(([t, n, tok, rew]) => ({ t, n, tok, rew })),
    };
  }

  /**
   * Count, sum and exact nearest-rank quantiles (compare.ts quantiles: the ceil(q·n)-th smallest) of each column's
   * non-null values: the counts first, then quantileExact at a level that lands on that rank (it takes the
   * floor(level·n)-th, 0-based).
   */
  private async quantiles(from: string, cols: string[], qs: readonly number[], run: string): Promise<{ count: number; sum: number; quantiles: (number | null)[] }[]> {
    const [counts] = await this.arrays<number[]>(`SELECT ${cols.map((c) => `count(${c}), ifNull(sum(toFloat64(${c})), 0)`).join(', ')} FROM ${from}`, { run });
    const parts = cols.map((c, i) => {
      const n = counts[2 * i];
      const levels = qs.map((q) => (Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1)) + 0.5) / n);
      return n ? `quantilesExact(${levels.join(', ')})(${c})` : 'CAST([], \'Array(Nullable(Float64))\')';
    });
    const [values] = await this.arrays<(number | null)[][]>(`SELECT ${parts.join(', ')} FROM ${from}`, { run });
    return cols.map((_, i) => {
      const n = counts[2 * i];
      return { count: n, sum: counts[2 * i + 1], quantiles: n ? values[i] : qs.map(() => null) };
    });
  }
}

export interface TaskMate {
  key: string;
  pk: number;
  rollout_index: number | null;
  attempt: number | null;
  failure_class: string | null;
  reward: number | null;
}

/** The other attempts at a row's task and rollout index (SQLite's order: attempt, then pk). */
export function attemptsOf(row: RolloutRow, mates: TaskMate[]): { key: string; attempt: number | null; failure_class: string | null; reward: number | null }[] {
  if (row.task_index === null || row.rollout_index === null) return [];
  return mates
    .filter((m) => m.rollout_index === row.rollout_index && m.pk !== row.pk)
    .sort((a, b) => (a.attempt ?? 0) - (b.attempt ?? 0) || a.pk - b.pk)
    .map((m) => ({ key: m.key, attempt: m.attempt, failure_class: m.failure_class, reward: m.reward }));
}

/** The line span of a rollout row read by `rollout` (kept beside the row, which answers only the API's columns). */
export const spans = new WeakMap<RolloutRow, { line_offset: number | null; line_length: number | null }>();

const CALL_SUMMARY_COLUMNS = `call_index, model_call_id, model_server, model, dialect, status_code, error_category, finish_reason, started_at,
  completed_at, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, cache_creation_tokens, cache_hit, latency_ms, ttft_ms, tool_calls`;

function sortExpression(sort: SortKey): string {
  return sort === 'rollout' ? 'order_key' : `ifNull(toFloat64(${SORT_COLUMNS[sort]}), -1e308)`;
}

/** queries/rollouts.ts filterSql, in ClickHouse SQL. */
function filterSql(f: RolloutFilters, p: Params): string {
  const where: string[] = [];
  const tag = (column: string, value: string) => where.push(`position(ifNull(${column}, ''), ${p.add(`|${value}|`, 'String')}) > 0`);
  if (f.q) {
    const q = p.add(f.q.toLowerCase(), 'String');
    where.push(`(position(ifNull(search, ''), ${q}) > 0 OR position(lower(key), ${q}) > 0)`);
  }
  if (f.model_server) tag('model_servers', f.model_server);
  if (f.dialect) tag('dialects', f.dialect);
  if (f.error_category) tag('error_categories', f.error_category);
  if (f.gap) where.push(`position(ifNull(gaps, ''), ${p.add(`"code":"${f.gap}"`, 'String')}) > 0`);
  if (f.tool_name) tag('tool_names', f.tool_name);
  if (f.tool_status) tag('tool_statuses', f.tool_status);
  if (f.trajectory_gap) where.push(`position(ifNull(trajectory_gaps, ''), ${p.add(`"code":"${f.trajectory_gap}"`, 'String')}) > 0`);
  if (f.attempt !== undefined) where.push(`ifNull(attempt, 0) = ${p.add(f.attempt, 'Int64')}`);
  if (f.reward_min !== undefined) where.push(`reward >= ${p.add(f.reward_min, 'Float64')}`);
  if (f.reward_max !== undefined) where.push(`reward <= ${p.add(f.reward_max, 'Float64')}`);
  if (f.has_errors !== undefined) where.push(f.has_errors ? 'errors > 0' : 'errors = 0');
  if (f.failed !== undefined) where.push(f.failed ? 'failure_class IS NOT NULL' : 'failure_class IS NULL');
  if (f.line_problem !== undefined) where.push(f.line_problem ? 'line_problem IS NOT NULL' : 'line_problem IS NULL');
  return where.length ? ' AND ' + where.join(' AND ') : '';
}
