// The Tasks view's state (sort, filters, page, the open task) as query parameters, and the figures its header
// shows, picked from NeMo Gym's metric keys. Every view is a URL: equal views give equal query strings.
import { TaskQuerySchema, type TaskQuery } from '../api/task-schemas';
import type { AgentTasks } from '../rollouts/task-groups';

type SearchParams = Record<string, string | string[] | undefined>;

export type TaskView = Omit<TaskQuery, 'limit'>;
export const TASK_PAGE = 100;
export const DEFAULT_TASK_VIEW: TaskView = { sort: 'task', order: 'asc' };

/** The open task: `?open=<task_index>` (with `agent` when the file mixes agents). */
export interface OpenTask {
  task: number;
  agent: string | null;
}

/** The view in the query string; parameters that do not parse are dropped and named. */
export function parseTaskView(params: SearchParams): { view: TaskView; open: number | null; ignored: string[] } {
  const input: Record<string, string> = {};
  let open: number | null = null;
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (value === undefined || (value === '' && k !== 'agent') || k === 'limit') continue;
    if (k === 'open') {
      if (/^\d{1,15}$/.test(value)) open = Number(value);
      else ignored.push(k);
      continue;
    }
    input[k] = value;
  }
  for (;;) {
    const parsed = TaskQuerySchema.safeParse(input);
    if (parsed.success) {
      const { limit: _limit, ...view } = parsed.data;
      return { view, open, ignored };
    }
    const issue = parsed.error.issues[0];
    const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : String(issue.path[0] ?? '');
    if (!(key in input)) return { view: { ...DEFAULT_TASK_VIEW }, open, ignored: [...ignored, ...Object.keys(input)] };
    ignored.push(key);
    delete input[key];
  }
}

/** `/runs/{run}/tasks` with this view (defaults left out, keys in a stable order). */
export function taskViewHref(run: string, view: Partial<TaskView>, open?: number | null): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(TaskQuerySchema.shape).sort()) {
    const value = view[key as keyof TaskView];
    if (value === undefined || value === null || (value === '' && key !== 'agent')) continue;
    if (key === 'limit' || (key === 'sort' && value === DEFAULT_TASK_VIEW.sort) || (key === 'order' && value === DEFAULT_TASK_VIEW.order)) continue;
    params.set(key, String(value));
  }
  if (open !== undefined && open !== null) params.set('open', String(open));
  const qs = params.toString();
  return `/runs/${encodeURIComponent(run)}/tasks${qs ? `?${qs}` : ''}`;
}

/** A NeMo Gym percentage as shown: two places, `—` for none. */
export const formatPercent = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : `${v.toFixed(2)} %`);

/** The agent's headline figures as NeMo Gym names them, at k = 1 and at its largest group size. */
export function headline(a: AgentTasks) {
  const k = a.max_k;
  const m = a.metrics;
  const at = (key: string) => (key in m ? m[key] : null);
  return {
    k,
    passAt1: at('pass@1/accuracy'),
    passAtK: at(`pass@${k}/accuracy`),
    avgOfK: at(`pass@1[avg-of-${k}]/accuracy`),
    stdDev: at(`pass@1[avg-of-${k}]/accuracy/std_dev_across_runs`),
    stdErr: at(`pass@1[avg-of-${k}]/accuracy/std_err_across_runs`),
    /** Every `pass@k/accuracy` and `pass@1[avg-of-k]/accuracy` for k = 1 … max, for the table under the headline. */
    byK: Array.from({ length: k }, (_, i) => ({ k: i + 1, passAtK: at(`pass@${i + 1}/accuracy`), avgOfK: at(`pass@1[avg-of-${i + 1}]/accuracy`) })),
  };
}

/** The colour class of one rollout's mark in a task's strip: by reward, 0 and below bad, 1 and above good. */
export function rewardMarkClass(reward: number): string {
  if (reward <= 0) return 'bg-bad';
  if (reward >= 1) return 'bg-good';
  return reward >= 0.5 ? 'bg-good/60' : 'bg-warn';
}
