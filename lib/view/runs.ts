// The runs page's table, prepared: which runs a search and an agent filter keep, in which order (the page has
// every run, so sorting and filtering happen here, not in the index), what every run shares (said once above
// the table instead of a chip on each row), and the calls and errors cells of runs whose rollouts have no
// capture evidence (unknown, never 0). Unknown values sort below every value, as in the rollouts table.
import { z } from 'zod';
import type { Run } from '../api/schemas';
import { formatCount } from './format';
import { shownTokens, TOKEN_FIELDS } from './table';

export const RUN_SORT_KEYS = ['run', 'rollouts', 'calls', ...TOKEN_FIELDS, 'errors', 'gaps', 'mean_reward', 'agents', 'model_servers'] as const;
export type RunSortKey = (typeof RUN_SORT_KEYS)[number];

export const RunsViewSchema = z.object({
  q: z.string().max(200).nullable().default(null),
  agent: z.string().max(200).nullable().default(null),
  sort: z.enum(RUN_SORT_KEYS).default('run'),
  order: z.enum(['asc', 'desc']).default('asc'),
});
export type RunsView = z.infer<typeof RunsViewSchema>;

/** The table's columns after the checkbox, in order; `list` columns are dropped when every run has the same list. */
export const RUN_COLUMNS: readonly { key: RunSortKey; label: string; title?: string; list?: true }[] = [
  { key: 'run', label: 'Run' },
  { key: 'rollouts', label: 'Rollouts', title: 'Rollouts, including failed attempts from the failures file' },
  { key: 'calls', label: 'Calls' },
  { key: 'tokens_in', label: 'Tokens in' },
  { key: 'tokens_out', label: 'Tokens out' },
  { key: 'tokens_reasoning', label: 'Reasoning', title: 'Reasoning tokens' },
  { key: 'cached_tokens', label: 'Cached', title: 'Cached input tokens' },
  { key: 'tokens_total', label: 'Total tokens' },
  { key: 'errors', label: 'Errors', title: 'Calls with an error category' },
  { key: 'gaps', label: 'Gaps', title: 'Gaps (missing evidence) over all rollouts' },
  { key: 'mean_reward', label: 'Mean reward' },
  { key: 'agents', label: 'Agents', title: "The rollouts' agent_ref.name", list: true },
  { key: 'model_servers', label: 'Model servers', list: true },
];

/** What a column header's click does: flip the order of the sorted column, or sort by another (names A→Z, numbers high first). */
export function nextRunSort(view: Pick<RunsView, 'sort' | 'order'>, key: RunSortKey): Pick<RunsView, 'sort' | 'order'> {
  if (view.sort === key) return { sort: key, order: view.order === 'asc' ? 'desc' : 'asc' };
  return { sort: key, order: key === 'run' || key === 'agents' || key === 'model_servers' ? 'asc' : 'desc' };
}

/** Calls and errors are unknown for a run none of whose rollouts has capture evidence. */
const allUncaptured = (r: Run) => r.totals.rollouts > 0 && r.totals.uncaptured === r.totals.rollouts;

export function runSortValue(r: Run, key: RunSortKey): number | string | null {
  const t = r.totals;
  switch (key) {
    case 'run':
      return r.id;
    case 'agents':
    case 'model_servers':
      return t[key].length ? t[key].join(', ') : null;
    case 'calls':
    case 'errors':
      return allUncaptured(r) ? null : t[key];
    case 'rollouts':
    case 'gaps':
    case 'mean_reward':
      return t[key];
    default:
      return shownTokens(t, t.calls, key).value;
  }
}

function compareValues(a: number | string | null, b: number | string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

/** Every word of the search in the run's id or one of its agents (case-insensitive), and the agent filter's agent. */
export function matchesRun(r: Run, view: Pick<RunsView, 'q' | 'agent'>): boolean {
  if (view.agent !== null && !r.totals.agents.includes(view.agent)) return false;
  const words = (view.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const hay = [r.id, ...r.totals.agents].join('\n').toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** The runs the view keeps, sorted by its column (ties by run id, ascending, numbers in names by value). */
export function selectRuns(runs: Run[], view: RunsView): Run[] {
  const dir = view.order === 'asc' ? 1 : -1;
  return runs
    .filter((r) => matchesRun(r, view))
    .map((r) => ({ r, v: runSortValue(r, view.sort) }))
    .sort((a, b) => dir * compareValues(a.v, b.v) || compareValues(a.r.id, b.r.id))
    .map(({ r }) => r);
}

/** The distinct agents of the runs, each with how many runs have it, by name. */
export function agentOptions(runs: Run[]): { agent: string; runs: number }[] {
  const counts = new Map<string, number>();
  for (const r of runs) for (const a of r.totals.agents) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([agent, n]) => ({ agent, runs: n }));
}

export interface SharedFacts {
  /** The model servers every run has, when they are the same list for all (empty: none recorded); null when they differ. */
  model_servers: string[] | null;
  agents: string[] | null;
  /**
   * How many runs lack a capture dir, when that is most of them (then said once above the table, and the others
   * marked as captured instead); 0 when it is not.
   */
  rollouts_only: number;
  /** Every run lacks a rollouts file. */
  capture_only: boolean;
  /** The start of every run id up to a `-`, `_` or `.` (drawn muted), or ''. */
  id_prefix: string;
}

const sameList = (lists: string[][]): string[] | null => {
  const first = lists[0]?.join('\n');
  return first !== undefined && lists.every((l) => l.join('\n') === first) ? lists[0] : null;
};

/** What all the runs (or most) have in common: said once above the table, not as the same chip on every row. */
export function sharedFacts(runs: Run[]): SharedFacts {
  const several = runs.length > 1;
  const uncapturedRuns = runs.filter((r) => !r.capture_dir).length;
  return {
    model_servers: several ? sameList(runs.map((r) => r.totals.model_servers)) : null,
    agents: several ? sameList(runs.map((r) => r.totals.agents)) : null,
    rollouts_only: several && uncapturedRuns * 2 > runs.length ? uncapturedRuns : 0,
    capture_only: several && runs.every((r) => !r.rollouts_file),
    id_prefix: several ? commonIdPrefix(runs.map((r) => r.id)) : '',
  };
}

/** The longest common start of the ids that ends at a separator and leaves every id something after it. */
export function commonIdPrefix(ids: string[]): string {
  if (ids.length < 2) return '';
  let n = 0;
  const first = ids[0];
  while (n < first.length && ids.every((id) => id[n] === first[n])) n++;
  let cut = n;
  while (cut > 0 && !/[-_.]/.test(first[cut - 1])) cut--;
  return ids.every((id) => id.length > cut) ? first.slice(0, cut) : '';
}

/** A calls or errors cell: the count, "unknown" when no rollout has capture evidence, or the count and how many rollouts are unknown. */
export function capturedCount(n: number, r: Run, what: 'calls' | 'errors'): { text: string; title: string; unknown: boolean } {
  const { rollouts, uncaptured } = r.totals;
  if (allUncaptured(r)) {
    return { text: 'unknown', title: `${what} unknown: none of the ${formatCount(rollouts)} rollouts has capture evidence`, unknown: true };
  }
  if (uncaptured === 0) return { text: formatCount(n), title: `${formatCount(n)} ${what}`, unknown: false };
  return {
    text: `${formatCount(n)} (+${formatCount(uncaptured)} unknown)`,
    title: `${formatCount(n)} ${what} in the ${formatCount(rollouts - uncaptured)} rollouts with capture evidence; the ${what} of the other ${formatCount(uncaptured)} rollouts are unknown`,
    unknown: false,
  };
}
