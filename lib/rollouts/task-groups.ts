// Task groups (a GRPO group: one task's rollouts) as NeMo Gym's aggregation forms them (spec §5.6; upstream
// rollout_collection.py `_call_aggregate_metrics` and reward_profile.py `_group_by_task`): the persisted rollouts of
// the main rollouts file (sidecar failures are counted beside a task, never in it), sorted by task then rollout index
// (ties keep file order, as Python's stable sort does), split by `agent_ref.name` in order of first appearance, then
// grouped by `_ng_task_index`. The run's headline metrics are pass-at-k.ts's, over those groups.
// Where upstream would not aggregate a line at all, it is left out and counted: a line without a numeric reward
// (upstream's score function raises), or without task or rollout index (its sort raises). A file without agent_ref
// names gets one group of agent null (upstream skips such rows; their tasks are still worth seeing).
import { z } from 'zod';
import { passMajorityMetrics, pySum, taskPassAtKs } from './pass-at-k';

/** A persisted rollout as the task view reads it. `tokens_total` and `latency_ms` are null when unknown. */
export interface TaskRolloutRow {
  key: string;
  agent: string | null;
  task_index: number | null;
  rollout_index: number | null;
  reward: number | null;
  /** What names the task (a prompt or task id; lib/rollouts/rollout-line.ts), when the line has one. */
  task: string | null;
  tokens_total: number | null;
  latency_ms: number | null;
}

export const SOLVED = ['never', 'some', 'always'] as const;

const SpreadSchema = z
  .object({ min: z.number().nullable(), max: z.number().nullable(), mean: z.number().nullable(), unknown: z.number().int() })
  .describe("a per-rollout figure's spread over the task's rollouts whose figure is known; `unknown` counts the others (no capture and no usage on the line)");

export const TaskGroupSchema = z.object({
  agent: z.string().nullable(),
  task_index: z.number().int(),
  task: z.string().nullable().describe('what names the task (a task id or the prompt), when its lines have one'),
  rollouts: z.number().int(),
  rewards: z.array(z.number()).describe('in rollout-index order'),
  rollout_ids: z.array(z.string()).describe('the rollout keys, in rollout-index order'),
  reward_mean: z.number(),
  reward_std: z.number().describe("the sample standard deviation (n − 1), 0 for one rollout, as NeMo Gym's reward profiler reports it"),
  reward_min: z.number(),
  reward_max: z.number(),
  zero_variance: z.boolean().describe('two or more rollouts and a single reward value: no learning signal for GRPO'),
  'pass@k': z.record(z.string(), z.number()).describe("pass@k for k = 1 … rollouts, percentages (upstream's definition over this task)"),
  solved: z.enum(SOLVED).describe('`never`: no reward above 0; `always`: every reward 1 or more'),
  partial: z.boolean().describe("fewer rollouts than the agent's largest group"),
  tokens: SpreadSchema,
  latency_ms: SpreadSchema,
  failed_attempts: z.number().int().describe("the sidecar's failure rows of this task and agent (not counted in its figures)"),
});
export type TaskGroup = z.infer<typeof TaskGroupSchema>;
export type Spread = z.infer<typeof SpreadSchema>;
export type Solved = (typeof SOLVED)[number];

export const AgentTasksSchema = z.object({
  agent: z.string().nullable().describe('`agent_ref.name`; null for lines without one (NeMo Gym does not aggregate them)'),
  max_k: z.number().int(),
  metrics: z
    .record(z.string(), z.number())
    .describe("exactly NeMo Gym's compute_pass_majority_metrics for score accuracy = reward, without per_sample_aggregate (percentages)"),
  tasks: z.array(TaskGroupSchema),
  task_prefix: z
    .string()
    .describe("the text every task's name starts with (a shared instruction, cut at a word), '' when none: views show the names without it"),
  counts: z
    .object({ zero_variance: z.number().int(), never: z.number().int(), some: z.number().int(), always: z.number().int(), partial: z.number().int(), failed: z.number().int(), rollouts: z.number().int() })
    .describe("the agent's tasks by kind (all of them, whatever the filters); rollouts: those in its groups"),
  left_out: z
    .object({ no_reward: z.number().int(), no_index: z.number().int() })
    .describe("this agent's lines NeMo Gym's aggregation would not take: no numeric reward, no task or rollout index"),
});
export type AgentTasks = z.infer<typeof AgentTasksSchema>;

/** A figure's spread over a task's rollouts (null: unknown), in one pass with no list of the known values but for their sum. */
function spread(values: readonly (number | null)[]): Spread {
  const known: number[] = [];
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v === null) continue;
    known.push(v);
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  if (!known.length) return { min: null, max: null, mean: null, unknown: values.length };
  return { min, max, mean: pySum(known) / known.length, unknown: values.length - known.length };
}

/** Sample standard deviation, two-pass; 0 for fewer than two values. */
export function sampleStd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = pySum(values) / values.length;
  return Math.sqrt(pySum(values.map((v) => (v - mean) * (v - mean))) / (values.length - 1));
}

/** One task's rollouts as its group takes them, in order: each figure a list, and the task's name. */
interface TaskLists {
  keys: string[];
  rewards: number[];
  tokens: (number | null)[];
  latency: (number | null)[];
  task: string | null;
}

/** An agent's rollouts as grouping reads them: its tasks' lists by task index, and the rows it leaves out. */
interface AgentLists {
  tasks: Map<number, TaskLists>;
  noReward: number;
  noIndex: number;
}

/**
 * One task's group, with its pass@k fractions for the run's metrics; `partial` is set once the agent's largest group is
 * known (the key stays last).
 */
function group(agent: string | null, taskIndex: number, lists: TaskLists, failed: number): { group: TaskGroup; passes: number[] } {
  const { rewards, keys } = lists;
  const n = rewards.length;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    min = Math.min(min, rewards[i]);
    max = Math.max(max, rewards[i]);
  }
  const passes = taskPassAtKs(rewards);
  const passAtK: Record<string, number> = {};
  for (let k = 1; k <= n; k++) passAtK[k] = 100.0 * passes[k - 1];
  const group: TaskGroup = {
    agent,
    task_index: taskIndex,
    task: lists.task,
    rollouts: n,
    rewards,
    rollout_ids: keys,
    reward_mean: pySum(rewards) / n,
    reward_std: sampleStd(rewards),
    reward_min: min,
    reward_max: max,
    zero_variance: n >= 2 && min === max,
    'pass@k': passAtK,
    solved: max <= 0 ? 'never' : min >= 1 ? 'always' : 'some',
    tokens: spread(lists.tokens),
    latency_ms: spread(lists.latency),
    failed_attempts: failed,
    partial: false,
  };
  return { group, passes };
}

/** The words every name starts with, when there are two names or more and they share at least 24 characters. */
export function sharedPrefix(names: (string | null)[]): string {
  if (names.length < 2 || names.some((n) => n === null)) return '';
  let prefix = names[0]!;
  for (const n of names) {
    let i = 0;
    while (i < prefix.length && i < n!.length && prefix.charCodeAt(i) === n!.charCodeAt(i)) i++;
    prefix = prefix.slice(0, i);
    if (prefix.length < 24) return '';
  }
  const cut = prefix.search(/\s\S*$/); // back to the last whitespace: never half a word
  return cut >= 24 ? prefix.slice(0, cut + 1) : '';
}

/**
 * A rollout as "best" ranks it: `failed` for a failure row of the sidecar, `order` its place in rollout order (the
 * rollout index, or its position in a group's rollout_ids), `attempt` 0 when the line has none.
 */
export interface RolloutRank {
  key: string;
  reward: number | null;
  failed: boolean;
  order: number;
  attempt: number;
}

/**
 * What "best" means for a task's rollouts, everywhere (a task's rollouts best first, the rollout page's "diff with
 * the best of its task", a changed task's link): the highest reward (unknown last), a persisted rollout before a failed
 * attempt, the earliest in rollout order, the latest attempt, then the key.
 */
export function byBest(a: RolloutRank, b: RolloutRank): number {
  if (a.reward !== b.reward) {
    if (a.reward === null) return 1;
    if (b.reward === null) return -1;
    return b.reward - a.reward;
  }
  if (a.failed !== b.failed) return a.failed ? 1 : -1;
  return a.order - b.order || b.attempt - a.attempt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** The best of some rollouts (byBest); null for none. */
export function bestOf<T extends RolloutRank>(rollouts: T[]): T | null {
  let best: T | null = null;
  for (const r of rollouts) if (best === null || byBest(r, best) < 0) best = r;
  return best;
}

/** A group's rollout keys, best first (byBest over its rewards and rollout order). */
export function bestFirst(t: TaskGroup): string[] {
  return t.rollout_ids
    .map((key, i): RolloutRank => ({ key, reward: t.rewards[i], failed: false, order: i, attempt: 0 }))
    .sort(byBest)
    .map((r) => r.key);
}

const failureKey = (agent: string | null, task: number | null) => `${agent ?? ''}\u0000${task ?? ''}`;

/**
 * The task groups of a run: `rows` are the main rollouts file's persisted rollouts in (task, rollout, line) order;
 * `failures` the sidecar's rows (agent and task index only).
 */
export function taskGroups(rows: Iterable<TaskRolloutRow>, failures: Iterable<{ agent: string | null; task_index: number | null }> = []): AgentTasks[] {
  const c: TaskRolloutColumns = { key: [], agent: [], task_index: [], rollout_index: [], reward: [], tokens_total: [], latency_ms: [] };
  const names: TaskName[] = [];
  for (const r of rows) {
    c.key.push(r.key);
    c.agent.push(r.agent);
    c.task_index.push(r.task_index);
    c.rollout_index.push(r.rollout_index);
    c.reward.push(r.reward);
    c.tokens_total.push(r.tokens_total);
    c.latency_ms.push(r.latency_ms);
    // A row the group takes names it, unless a row before it did.
    if (r.task !== null && r.task_index !== null && r.rollout_index !== null && r.reward !== null) names.push([r.agent, r.task_index, r.task]);
  }
  return taskGroupsOfColumns(c, names, failures);
}

/** A run's rows as columns (one array per figure, the rows in taskGroups' order), as a database returns them. */
export interface TaskRolloutColumns {
  key: string[];
  agent: (string | null)[];
  task_index: (number | null)[];
  rollout_index: (number | null)[];
  reward: (number | null)[];
  tokens_total: (number | null)[];
  latency_ms: (number | null)[];
}

/** A task's name: its agent, its index, the name (null: none). */
export type TaskName = readonly [agent: string | null, taskIndex: number, name: string | null];

/**
 * taskGroups over rows given as columns (no object per row). A task is named by the first of `names` that names it (a
 * database gives one per task: that of the first row the group takes that has one).
 */
export function taskGroupsOfColumns(c: TaskRolloutColumns, names: Iterable<TaskName>, failures: Iterable<{ agent: string | null; task_index: number | null }> = []): AgentTasks[] {
  const nameOf = new Map<string | null, Map<number, string | null>>();
  for (const [agent, taskIndex, name] of names) {
    let byTask = nameOf.get(agent);
    if (!byTask) nameOf.set(agent, (byTask = new Map()));
    if (!byTask.has(taskIndex)) byTask.set(taskIndex, name);
  }
  const agents = new Map<string | null, AgentLists>();
  const n = c.key.length;
  for (let i = 0; i < n; i++) {
    const agent = c.agent[i];
    let a = agents.get(agent);
    if (!a) agents.set(agent, (a = { tasks: new Map(), noReward: 0, noIndex: 0 }));
    const taskIndex = c.task_index[i];
    const reward = c.reward[i];
    if (taskIndex === null || c.rollout_index[i] === null) a.noIndex++;
    else if (reward === null) a.noReward++;
    else {
      let t = a.tasks.get(taskIndex);
      if (!t) a.tasks.set(taskIndex, (t = { keys: [], rewards: [], tokens: [], latency: [], task: nameOf.get(agent)?.get(taskIndex) ?? null }));
      t.keys.push(c.key[i]);
      t.rewards.push(reward);
      t.tokens.push(c.tokens_total[i]);
      t.latency.push(c.latency_ms[i]);
    }
  }
  return finish(agents, failures);
}

/** Each agent's groups from its lists, in order of the agents' first appearance, tasks by index. */
function finish(agents: Map<string | null, AgentLists>, failures: Iterable<{ agent: string | null; task_index: number | null }>): AgentTasks[] {
  const failed = new Map<string, number>();
  for (const f of failures) failed.set(failureKey(f.agent, f.task_index), (failed.get(failureKey(f.agent, f.task_index)) ?? 0) + 1);
  return [...agents].map(([agent, a]) => {
    const built = [...a.tasks].sort(([x], [y]) => x - y).map(([taskIndex, lists]) => group(agent, taskIndex, lists, failed.get(failureKey(agent, taskIndex)) ?? 0));
    const groups = built.map((b) => b.group);
    const { metrics, maxK } = passMajorityMetrics(groups.map((t) => t.rewards), built.map((b) => b.passes));
    let zeroVariance = 0;
    let partial = 0;
    let failedTasks = 0;
    let rollouts = 0;
    const solved = { never: 0, some: 0, always: 0 };
    for (const t of groups) {
      t.partial = t.rollouts < maxK;
      if (t.zero_variance) zeroVariance++;
      if (t.partial) partial++;
      if (t.failed_attempts > 0) failedTasks++;
      solved[t.solved]++;
      rollouts += t.rollouts;
    }
    return {
      agent,
      max_k: maxK,
      metrics,
      tasks: groups,
      task_prefix: sharedPrefix(groups.map((t) => t.task)),
      counts: { zero_variance: zeroVariance, never: solved.never, some: solved.some, always: solved.always, partial, failed: failedTasks, rollouts },
      left_out: { no_reward: a.noReward, no_index: a.noIndex },
    };
  });
}
