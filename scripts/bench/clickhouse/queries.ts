// The queries bench:clickhouse times, the same for both backends: each goes through the index's reader (reader.ts),
// the interface every API route and page calls, so a figure is what a route costs the index. Cursors at depth come
// from the backend's own SQL (walking a million rows page by page to get there is not what is measured).
import type { IndexReader } from '../../../lib/index/reader';
import { encodeCursor, type RolloutPageQuery } from '../../../lib/index/queries/rollouts';
import type { SortKey } from '../../../lib/index/schema';
import type { TaskPageQuery } from '../../../lib/index/aggregates/tasks';
import { median, round, summary } from '../stats';
import { now } from '../time';

/** The row at `depth` (0-based) of a run's list in this order, as [sort value, pk]; null past the end. */
export type RowAt = (run: string, sort: SortKey, order: 'asc' | 'desc', depth: number) => Promise<[number | string, number] | null>;

export interface QueryPlan {
  runs: [string, string];
  /** Rollouts in the first run (the depths are fractions of it). */
  rollouts: number;
  reps: number;
  rowAt: RowAt;
  /** Keys of the first run, for the rollout detail. */
  keys: string[];
  /**
   * Runs whose task groups nobody has built (the cold Tasks page: each run's first request builds them), the first run's
   * being built (or not) by the reader itself. The figure is their median: a single first request moves with the machine.
   */
  coldRuns: string[];
  /** Runs whose task groups an ingest built and stored in the database, which this reader has not read yet (the median of their first requests). */
  storedRuns?: string[];
}

const LIST_ORDERS: { sort: SortKey; order: 'asc' | 'desc' }[] = [
  { sort: 'rollout', order: 'asc' },
  { sort: 'reward', order: 'desc' },
  { sort: 'tokens_total', order: 'desc' },
  { sort: 'latency_sum', order: 'asc' },
  { sort: 'started_at', order: 'desc' },
];
const LIMIT = 50;

async function time<T>(f: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t = now();
  const value = await f();
  return { ms: now() - t, value };
}

async function sample(reps: number, f: (rep: number) => Promise<unknown> | unknown): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) ms.push((await time(() => f(i))).ms);
  return ms;
}

/** List pages (first, middle, last of each order, and two filters), a task page cold and warm, compare cold and warm, rollout details. */
export async function measureQueries(index: IndexReader, plan: QueryPlan) {
  const [a, b] = plan.runs;
  const list: Record<string, { depth: number; rows: number; ms: ReturnType<typeof summary> }> = {};
  const all: number[] = [];
  for (const { sort, order } of LIST_ORDERS) {
    for (const [name, frac] of [['first', 0], ['middle', 0.5], ['last', 1]] as const) {
      const depth = Math.max(0, Math.min(plan.rollouts - LIMIT, Math.floor(plan.rollouts * frac)));
      const at = depth === 0 ? null : await plan.rowAt(a, sort, order, depth - 1);
      const query: RolloutPageQuery = { sort, order, limit: LIMIT, ...(at ? { cursor: encodeCursor(at[0], at[1]) } : {}) };
      let rows = 0;
      const ms = await sample(plan.reps, async () => {
        rows = (await index.listRollouts(a, query))!.rollouts.length;
      });
      all.push(...ms);
      list[`${sort}_${order}_${name}`] = { depth, rows, ms: summary(ms) };
    }
  }
  const filters: Record<string, Partial<RolloutPageQuery>> = { search: { q: 'problem 4217' }, errors: { has_errors: true }, reward_band: { reward_min: 0.5, reward_max: 1 } };
  for (const [name, f] of Object.entries(filters)) {
    let total = 0;
    const ms = await sample(plan.reps, async () => {
      total = (await index.listRollouts(a, { sort: 'tokens_total', order: 'desc', limit: LIMIT, ...f }))!.total;
    });
    all.push(...ms);
    list[`filter_${name}`] = { depth: 0, rows: total, ms: summary(ms) };
  }

  // Task page: a run's first (its task groups built by this request), the first run's first once the reader has
  // built its groups (in the background after start or a change, as both indexes do), then other orders and depths.
  const taskQuery = (q: Partial<TaskPageQuery>): TaskPageQuery => ({ sort: 'task', order: 'asc', limit: LIMIT, ...q });
  const firstPages = async (runs: readonly string[]) => {
    const ms: number[] = [];
    for (const run of runs) ms.push((await time(() => index.tasks(run, taskQuery({})))).ms);
    return ms;
  };
  const taskStored = plan.storedRuns?.length ? await firstPages(plan.storedRuns) : null;
  const taskCold = await firstPages(plan.coldRuns);
  await index.taskGroups(a);
  const taskBuilt = await time(() => index.tasks(a, taskQuery({ sort: 'reward_mean', order: 'desc' })));
  const taskOrders: Partial<TaskPageQuery>[] = [{}, { sort: 'pass@k', order: 'desc' }, { sort: 'reward_std', order: 'desc', cursor: `o${Math.floor(plan.rollouts / 16)}` }, { solved: 'never' }, { q: 'divisible by 7' }];
  const taskWarm = await sample(plan.reps * taskOrders.length, (i) => index.tasks(a, taskQuery(taskOrders[i % taskOrders.length])));
  const tasksInRun = (await index.taskGroups(a))?.reduce((n, ag) => n + ag.tasks.length, 0) ?? null;
  const taskDetail = await sample(plan.reps, async (i) => {
    const groups = await index.taskGroups(a);
    const agent = groups?.[0];
    const t = agent?.tasks[(i * 7919) % agent.tasks.length];
    if (t) await index.task(a, agent.agent ?? '', t.task_index, groups);
  });

  // Compare of two runs: the first (nothing kept), then warm.
  const compareCold = await time(() => index.compare([a, b]));
  const compareWarm = await sample(plan.reps, () => index.compare([a, b]));
  const pending = compareCold.value?.pass_at_k.map((p) => p.pending) ?? [];

  // Rollout detail: what the rollout page asks the index for (its row and attempts, its calls, the task's best rollout).
  const detail = await sample(plan.reps, async (i) => {
    const key = plan.keys[i % plan.keys.length];
    await index.rolloutDetail(a, key);
    await index.rolloutCalls(a, key);
    await index.bestOfTask(a, key);
  });

  return {
    list,
    list_all: summary(all),
    task_page_stored_ms: taskStored && round(median(taskStored)),
    task_page_stored_all_ms: taskStored && taskStored.map((x) => round(x)),
    task_page_stored_runs: plan.storedRuns ?? null,
    task_page_cold_ms: round(median(taskCold)),
    task_page_cold_all_ms: taskCold.map((x) => round(x)),
    task_page_cold_runs: plan.coldRuns,
    task_page_first_built_ms: round(taskBuilt.ms),
    task_page_warm: summary(taskWarm),
    task_detail: summary(taskDetail),
    tasks_in_run: tasksInRun,
    compare_first_ms: round(compareCold.ms),
    compare_first_pending: pending,
    compare_warm: summary(compareWarm),
    rollout_detail: summary(detail),
  };
}
