// NeMo Gym's own `X_aggregate_metrics.json` (spec §5.6, §8.1; upstream rollout_collection.py
// `_call_aggregate_metrics`): a JSON array with one entry per agent, `{agent_ref: {name}, agent_metrics, key_metrics,
// group_level_metrics}`. Read as the file has it and set beside callscope's figures for the same keys, so a user sees
// where they agree and where they do not (the file is written once at the end of a collection: rollouts appended
// after it, or a resumed run, make it stale). The file is read by lib/index/aggregates/metrics-file.ts; this module
// only parses its text and compares.
import { pySum } from './pass-at-k';
import type { AgentTasks } from './task-groups';

export interface AggregateTask {
  task_index: number;
  num_rollouts: number | null;
  mean_reward: number | null;
}

export interface AggregateAgent {
  agent: string | null;
  key_metrics: Record<string, number | string | boolean | null>;
  /** The numeric agent metrics (`mean/reward`, `pass@k/accuracy`, …) as the file has them. */
  agent_metrics: Record<string, number>;
  tasks: AggregateTask[];
}

export type AggregateFile =
  | { ok: true; file: string; mtimeMs: number; agents: AggregateAgent[] }
  | { ok: false; file: string; problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The file's agents from its text, or why they cannot be read (the problem names the file and what is wrong). */
export function parseAggregateMetrics(text: string, file: string, mtimeMs: number): AggregateFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, file, problem: `${file}: not JSON (${(err as Error).message})` };
  }
  if (!Array.isArray(data)) return { ok: false, file, problem: `${file}: not a JSON array of agents` };
  const agents: AggregateAgent[] = [];
  for (const [i, entry] of data.entries()) {
    if (!isObject(entry)) return { ok: false, file, problem: `${file}: entry ${i} is not an object` };
    const name = isObject(entry.agent_ref) && typeof entry.agent_ref.name === 'string' ? entry.agent_ref.name : null;
    const keyMetrics = isObject(entry.key_metrics) ? entry.key_metrics : {};
    const agentMetrics = isObject(entry.agent_metrics) ? entry.agent_metrics : {};
    const groups = Array.isArray(entry.group_level_metrics) ? entry.group_level_metrics : [];
    agents.push({
      agent: name,
      key_metrics: Object.fromEntries(Object.entries(keyMetrics).filter(([, v]) => v === null || ['number', 'string', 'boolean'].includes(typeof v))) as AggregateAgent['key_metrics'],
      agent_metrics: Object.fromEntries(Object.entries(agentMetrics).flatMap(([k, v]) => (num(v) === null ? [] : [[k, v as number]]))),
      tasks: groups.filter(isObject).flatMap((g) => {
        const t = num(g._ng_task_index);
        return t === null ? [] : [{ task_index: t, num_rollouts: num(g.num_rollouts), mean_reward: num(g['mean/reward']) }];
      }),
    });
  }
  return { ok: true, file, mtimeMs, agents };
}

/** One figure of the file beside callscope's for the same key (null where callscope computes no such key). */
export interface FigureCheck {
  key: string;
  file: number | string | boolean | null;
  callscope: number | null;
  agrees: boolean | null;
}

export interface AgreementReport {
  agent: string | null;
  figures: FigureCheck[];
  tasks: { file: number; callscope: number; differing: { task_index: number; file: AggregateTask | null; callscope: { rollouts: number; mean_reward: number } | null }[] };
}

const close = (a: number, b: number) => a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** The file's key metrics and pass@k figures beside callscope's, and the tasks whose count or mean reward differ. */
export function agreement(file: AggregateAgent, ours: AgentTasks | undefined): AgreementReport {
  const rewards = ours ? ours.tasks.flatMap((t) => t.rewards) : [];
  const computed = (key: string): number | null => {
    if (!ours) return null;
    if (key === 'mean/reward') return rewards.length ? pySum(rewards) / rewards.length : null;
    return key in ours.metrics ? ours.metrics[key] : null;
  };
  const keys = [...new Set([...Object.keys(file.key_metrics), ...Object.keys(file.agent_metrics).filter((k) => /^pass@|^mean\/reward$/.test(k))])];
  const figures = keys.map((key) => {
    const value = key in file.key_metrics ? file.key_metrics[key] : file.agent_metrics[key];
    const mine = computed(key);
    return { key, file: value, callscope: mine, agrees: mine === null || typeof value !== 'number' ? null : close(value, mine) };
  });
  const byTask = new Map((ours?.tasks ?? []).map((t) => [t.task_index, t]));
  const fileTasks = new Map(file.tasks.map((t) => [t.task_index, t]));
  const differing: AgreementReport['tasks']['differing'] = [];
  for (const index of [...new Set([...fileTasks.keys(), ...byTask.keys()])].sort((a, b) => a - b)) {
    const f = fileTasks.get(index) ?? null;
    const o = byTask.get(index);
    const mine = o ? { rollouts: o.rollouts, mean_reward: o.reward_mean } : null;
    const same = f && mine && f.num_rollouts === mine.rollouts && (f.mean_reward === null || close(f.mean_reward, mine.mean_reward));
    if (!same) differing.push({ task_index: index, file: f, callscope: mine });
  }
  return { agent: file.agent, figures, tasks: { file: file.tasks.length, callscope: ours?.tasks.length ?? 0, differing } };
}
