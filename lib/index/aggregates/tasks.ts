// The task groups of a run, read from the index (lib/rollouts/task-groups.ts forms them). A run's groups are built
// from one ordered scan of its rollout rows (the rollouts_by_task index gives the order) and kept until the run
// changes, so that every sort, filter and page of the Tasks view is a pass over tasks in memory, not over rollouts.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { taskGroups, type AgentTasks, type Solved, type TaskGroup, type TaskRolloutRow } from '../../rollouts/task-groups';
import type { TaskPage, TaskSortKey } from '../../api/task-schemas';

export interface TaskPageQuery {
  agent?: string;
  sort: TaskSortKey;
  order: 'asc' | 'desc';
  limit: number;
  cursor?: string;
  zero_variance?: boolean;
  solved?: Solved;
  partial?: boolean;
  failed?: boolean;
  q?: string;
}

export class TaskCursorError extends Error {
  override name = 'CursorError';
}

const COLUMNS = `r.key, r.agent, r.task_index, r.rollout_index, r.reward, IFNULL(r.task, substr(r.prompt, 1, 200)) AS task,
  r.shown_tokens_total AS tokens_total, r.latency_sum AS latency_ms, f.kind AS kind, r.line_no, r.pk`;
const FROM = `FROM rollouts r JOIN files f ON f.id = r.line_file WHERE r.run_no = ? AND r.line_problem IS NULL`;
const ORDER = 'ORDER BY r.task_index, r.rollout_index, r.line_no, r.pk';
/**
 * Rows without indices first (NULL sorts first), then keyset chunks of the indexed ones: every row in ORDER's order, so
 * that the agents come in the order of their first row, as ClickHouse's read of the same rows gives them (clickhouse/reads.ts).
 */
const UNINDEXED = `SELECT ${COLUMNS} ${FROM} AND (r.task_index IS NULL OR r.rollout_index IS NULL) ${ORDER}`;
const CHUNK = `SELECT ${COLUMNS} ${FROM} AND r.task_index IS NOT NULL AND r.rollout_index IS NOT NULL
  AND (r.task_index, r.rollout_index, r.line_no, r.pk) > (?, ?, ?, ?) ${ORDER} LIMIT ?`;
const CHUNK_ROWS = 10_000;

type Row = TaskRolloutRow & { kind: string; line_no: number; pk: number };

/** The task groups of rows in task order (failures-file rows count as failed attempts). */
function groupsOf(rows: Row[]): AgentTasks[] {
  const lines: TaskRolloutRow[] = [];
  const failures: { agent: string | null; task_index: number | null }[] = [];
  for (const r of rows) {
    if (r.kind === 'failures') failures.push({ agent: r.agent, task_index: r.task_index });
    else if (r.kind === 'rollouts') lines.push(r);
  }
  return taskGroups(lines, failures);
}

/**
 * A run's rows in task order, a chunk at a time (each chunk its own statement, none left open between them), so
 * that the background build can yield to the event loop between chunks: a 100k-rollout run never holds the
 * server for the whole read.
 */
function* rowChunks(db: Database.Database, runNo: number): Generator<Row[]> {
  yield db.prepare(UNINDEXED).all(runNo) as Row[];
  const chunk = db.prepare(CHUNK);
  let after: [number, number, number, number] = [-1e308, -1e308, -1e308, -1e308];
  for (;;) {
    const part = chunk.all(runNo, ...after, CHUNK_ROWS) as Row[];
    yield part;
    if (part.length < CHUNK_ROWS) return;
    const last = part[part.length - 1];
    after = [last.task_index!, last.rollout_index!, last.line_no, last.pk];
  }
}

/** A run's task groups, from its rows in the index, read at once (a request that finds none built). */
export function readTaskGroups(db: Database.Database, runNo: number): AgentTasks[] {
  return groupsOf([...rowChunks(db, runNo)].flat());
}

/** The same, yielding to the event loop between chunks; null when `stale()` says the read is no longer wanted. */
export async function readTaskGroupsInBackground(db: Database.Database, runNo: number, stale: () => boolean): Promise<AgentTasks[] | null> {
  const rows: Row[] = [];
  for (const part of rowChunks(db, runNo)) {
    for (const r of part) rows.push(r);
    await yieldToLoop();
    if (stale()) return null;
  }
  return groupsOf(rows);
}

/**
 * Keeps each run's groups until the run's version moves (the index bumps it on every change). A null version (a
 * pass over the run is under way) builds the groups and keeps nothing: the caller holds them for its request.
 */
export class TaskCache {
  private readonly runs = new Map<number, { version: string; agents: AgentTasks[] }>();

  groups(db: Database.Database, runNo: number, version: string | null): AgentTasks[] {
    if (version === null) return readTaskGroups(db, runNo);
    const kept = this.runs.get(runNo);
    if (kept && kept.version === version) return kept.agents;
    const agents = readTaskGroups(db, runNo);
    this.runs.set(runNo, { version, agents });
    return agents;
  }

  /** The run's groups when they are built for this version, else null (nothing is read). */
  peek(runNo: number, version: string): AgentTasks[] | null {
    const kept = this.runs.get(runNo);
    return kept && kept.version === version ? kept.agents : null;
  }

  /**
   * Builds a run's groups in the background (after a pass), so that the first Tasks page after ingest finds them:
   * over 100k rollouts the build takes most of a second. `current()` is the run's version as it is now.
   */
  async prebuild(db: Database.Database, runNo: number, current: () => string | null): Promise<void> {
    const version = current();
    if (version === null || this.runs.get(runNo)?.version === version) return;
    const agents = await readTaskGroupsInBackground(db, runNo, () => !db.open || current() !== version);
    if (agents && current() === version) this.runs.set(runNo, { version, agents });
  }
}

function sortValue(t: TaskGroup, key: TaskSortKey, maxK: number): number | null {
  switch (key) {
    case 'task': return t.task_index;
    case 'rollouts': return t.rollouts;
    case 'reward_mean': return t.reward_mean;
    case 'reward_std': return t.reward_std;
    case 'reward_min': return t.reward_min;
    case 'reward_max': return t.reward_max;
    case 'pass@1': return t['pass@k']['1'] ?? null;
    case 'pass@k': return t['pass@k'][String(maxK)] ?? null;
    case 'tokens': return t.tokens.mean;
    case 'latency': return t.latency_ms.mean;
    case 'failed': return t.failed_attempts;
  }
}

function matches(t: TaskGroup, q: TaskPageQuery): boolean {
  if (q.zero_variance !== undefined && t.zero_variance !== q.zero_variance) return false;
  if (q.solved !== undefined && t.solved !== q.solved) return false;
  if (q.partial !== undefined && t.partial !== q.partial) return false;
  if (q.failed !== undefined && t.failed_attempts > 0 !== q.failed) return false;
  if (q.q) {
    const needle = q.q.toLowerCase();
    if (!(t.task ?? '').toLowerCase().includes(needle) && String(t.task_index) !== q.q) return false;
  }
  return true;
}

/** Sorted with unknown (null) values last in both directions, ties by task index. */
function sorted(tasks: TaskGroup[], key: TaskSortKey, order: 'asc' | 'desc', maxK: number): TaskGroup[] {
  const dir = order === 'asc' ? 1 : -1;
  return tasks
    .map((t) => ({ t, v: sortValue(t, key, maxK) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.t.task_index - b.t.task_index : a.v === null ? 1 : -1;
      return a.v !== b.v ? (a.v - b.v) * dir : (a.t.task_index - b.t.task_index) * dir;
    })
    .map((x) => x.t);
}

function decodeCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  const n = /^o(\d{1,9})$/.exec(cursor);
  if (!n) throw new TaskCursorError(`'${cursor}' is not a cursor of this list`);
  return Number(n[1]);
}

const chosenAgents = (agents: AgentTasks[], q: TaskPageQuery) => (q.agent === undefined ? agents : agents.filter((a) => (a.agent ?? '') === q.agent));

/** Each chosen agent's tasks, filtered and sorted. */
function orderedLists(agents: AgentTasks[], q: TaskPageQuery): TaskGroup[][] {
  return agents.map((a) => sorted(a.tasks.filter((t) => matches(t, q)), q.sort, q.order, a.max_k));
}

/**
 * The last few sorted and filtered orders of a run's groups, kept with the groups themselves: over 100k tasks a sort
 * costs more than the page it serves. Groups the cache keeps keep their orders; groups built for one request (during
 * a pass) take theirs with them.
 */
const orders = new WeakMap<AgentTasks[], Map<string, TaskGroup[][]>>();

function orderedListsOf(agents: AgentTasks[], q: TaskPageQuery): TaskGroup[][] {
  let kept = orders.get(agents);
  if (!kept) orders.set(agents, (kept = new Map()));
  const { limit: _limit, cursor: _cursor, ...order } = q;
  const key = JSON.stringify(order);
  let lists = kept.get(key);
  if (!lists) {
    lists = orderedLists(chosenAgents(agents, q), q);
    if (kept.size >= 8) kept.delete(kept.keys().next().value as string);
    kept.set(key, lists);
  }
  return lists;
}

/**
 * One page of task rows: the agents (one, with `agent`; '' names the agent-less lines) in order, each with its
 * headline metrics and the counts of its tasks; the page takes `limit` tasks from the agents' sorted, filtered lists
 * one after the other.
 */
export function taskPage(agents: AgentTasks[], q: TaskPageQuery): TaskPage {
  const chosen = chosenAgents(agents, q);
  const ordered = orderedListsOf(agents, q);
  let skip = decodeCursor(q.cursor);
  let room = q.limit;
  let seen = 0;
  let more = false;
  const out = chosen.map((a, i) => {
    const list = ordered[i];
    const from = Math.min(skip, list.length);
    skip -= from;
    const page = list.slice(from, from + room);
    room -= page.length;
    seen += from + page.length;
    if (from + page.length < list.length) more = true;
    return { ...a, tasks: page, total_tasks: a.tasks.length, matching_tasks: list.length };
  });
  return { agents: out, next_cursor: more ? `o${seen}` : null };
}
