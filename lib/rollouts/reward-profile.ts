// A reader of `gym eval profile`'s per-task profile, `X_reward_profiling.jsonl` (spec §5.6; upstream
// nemo_gym/reward_profile.py, RewardProfiler.write_to_disk): one orjson line per task with `_ng_task_index`, the
// profiler's `mean/…`, `max/…`, `min/…`, `median/…`, `std/…` of every numeric field of the task's rollouts (`reward`
// among them; a column that was null everywhere is left out), `num_rollouts`, `expected_num_rollouts`,
// `missing_num_rollouts`, `reward_profile_completion_pct`, `sample` (the input row) and `rollout_infos`. The file is
// read as it is, never recomputed: the figures shown are the file's. A run page reads it per request.
import { promises as fsp } from 'node:fs';
import { readLines } from '../capture/store';

/** The profile's figures of one task; null where the line has none. */
export interface TaskProfileRow {
  line: number;
  task_index: number | null;
  /** What names the task in the profile's `sample` (task_id, instance_id, problem_id or question), when it has one. */
  task: string | null;
  rollouts: number | null;
  expected_rollouts: number | null;
  reward: { mean: number | null; std: number | null; min: number | null; max: number | null; median: number | null };
  /** Numeric `pass@…` keys of the line (a resources server's per-task scores), when there are any, in file order. */
  pass_at: { key: string; value: number }[];
}

export interface TaskProfile {
  file: string;
  rows: TaskProfileRow[];
  /** Task lines in the file (rows holds the first `limit`). */
  tasks: number;
  /** Lines that are not a JSON object, by line number. */
  problems: { line: number; message: string }[];
}

const TASK_FIELDS = ['task_id', 'instance_id', 'problem_id', 'question'];

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** One line of the profile as its figures, or null when it is not a JSON object. */
export function parseTaskProfileLine(text: string, line: number): TaskProfileRow | null {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return null;
  const o = row as Record<string, unknown>;
  const sample = typeof o.sample === 'object' && o.sample !== null && !Array.isArray(o.sample) ? (o.sample as Record<string, unknown>) : {};
  const task = TASK_FIELDS.map((k) => sample[k]).find((v): v is string => typeof v === 'string') ?? null;
  return {
    line,
    task_index: num(o._ng_task_index),
    task: task ? task.slice(0, 200) : null,
    rollouts: num(o.num_rollouts),
    expected_rollouts: num(o.expected_num_rollouts),
    reward: { mean: num(o['mean/reward']), std: num(o['std/reward']), min: num(o['min/reward']), max: num(o['max/reward']), median: num(o['median/reward']) },
    pass_at: Object.entries(o)
      .filter(([k, v]) => /(^|\/)pass@/.test(k) && num(v) !== null)
      .map(([key, value]) => ({ key, value: value as number })),
  };
}

/**
 * The profile's first `limit` task rows (in file order), the count of all, and the lines it cannot read; null when
 * the file cannot be read. Read a line at a time: each line carries its task's input row as `sample`.
 */
export async function readTaskProfile(file: string, limit = 1000): Promise<TaskProfile | null> {
  const handle = await fsp.open(file, 'r').catch(() => null);
  if (!handle) return null;
  const profile: TaskProfile = { file, rows: [], tasks: 0, problems: [] };
  try {
    for await (const raw of readLines(handle)) {
      const text = raw.bytes.toString('utf8');
      if (text.trim() === '') continue;
      const row = parseTaskProfileLine(text, raw.lineNumber);
      if (!row) {
        // An unterminated last line that is not yet a whole object is the profiler still writing: pending.
        if (!raw.terminated) break;
        profile.problems.push({ line: raw.lineNumber, message: 'not a JSON object' });
        continue;
      }
      profile.tasks++;
      if (profile.rows.length < limit) profile.rows.push(row);
    }
  } catch {
    return null;
  } finally {
    await handle.close();
  }
  return profile;
}
