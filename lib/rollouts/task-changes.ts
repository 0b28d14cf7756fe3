// What regressed between two runs over the same tasks (checkpoints, models): each task's pass@1 (NeMo Gym's
// definition, pass-at-k.ts) in run A and run B, paired by task index or by what names the task, the tasks whose
// pass@1 changed sorted by the change, and which crossed between solved (some reward above 0) and unsolved.
import { bestFirst, type AgentTasks, type TaskGroup } from './task-groups';

export type PairBy = 'index' | 'task';

export interface TaskSide {
  task_index: number;
  pass_at_1: number;
  rewards: number[];
  /** The key of its best rollout (task-groups.ts bestFirst): what a diff opens. */
  best: string;
}

export interface TaskChange {
  task: string | null;
  a: TaskSide;
  b: TaskSide;
  /** b's pass@1 − a's, percentage points. */
  delta: number;
  kind: 'newly_unsolved' | 'newly_solved' | 'fell' | 'rose';
}

export interface TaskChanges {
  pair_by: PairBy;
  /** Tasks found in both runs. */
  paired: number;
  unchanged: number;
  only_a: number;
  only_b: number;
  /** Tasks of either run with no pairing key (no name, when pairing by name), or a name several tasks share. */
  unpairable: number;
  changes: TaskChange[];
}

function side(t: TaskGroup): TaskSide {
  return { task_index: t.task_index, pass_at_1: t['pass@k']['1'], rewards: t.rewards, best: bestFirst(t)[0] };
}

/** Tasks by their pairing key; a key two tasks share cannot pair (counted as unpairable). */
function keyed(tasks: TaskGroup[], by: PairBy): { byKey: Map<string, TaskGroup>; unpairable: number } {
  const byKey = new Map<string, TaskGroup>();
  const dup = new Set<string>();
  let unpairable = 0;
  for (const t of tasks) {
    const key = by === 'index' ? String(t.task_index) : t.task;
    if (key === null) {
      unpairable++;
      continue;
    }
    if (byKey.has(key)) dup.add(key);
    byKey.set(key, t);
  }
  for (const key of dup) byKey.delete(key);
  for (const t of tasks) if (by === 'task' && t.task !== null && dup.has(t.task)) unpairable++;
  return { byKey, unpairable };
}

const solved = (t: TaskGroup) => t.solved !== 'never';

/** The tasks of agent groups `a` and `b` whose pass@1 changed, largest fall first, then largest rise. */
export function taskChanges(a: AgentTasks, b: AgentTasks, by: PairBy): TaskChanges {
  const ka = keyed(a.tasks, by);
  const kb = keyed(b.tasks, by);
  const changes: TaskChange[] = [];
  let paired = 0;
  for (const [key, ta] of ka.byKey) {
    const tb = kb.byKey.get(key);
    if (!tb) continue;
    paired++;
    const delta = tb['pass@k']['1'] - ta['pass@k']['1'];
    if (delta === 0) continue;
    const kind = solved(ta) && !solved(tb) ? 'newly_unsolved' : !solved(ta) && solved(tb) ? 'newly_solved' : delta < 0 ? 'fell' : 'rose';
    changes.push({ task: ta.task ?? tb.task, a: side(ta), b: side(tb), delta, kind });
  }
  // Deltas equal but for float noise (1/3 of two groups) sort as equal, by task index.
  const rounded = (d: number) => Math.round(d * 1e9);
  changes.sort((x, y) => rounded(x.delta) - rounded(y.delta) || x.a.task_index - y.a.task_index);
  return {
    pair_by: by,
    paired,
    unchanged: paired - changes.length,
    only_a: ka.byKey.size - paired,
    only_b: kb.byKey.size - paired,
    unpairable: ka.unpairable + kb.unpairable,
    changes,
  };
}
