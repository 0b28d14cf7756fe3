// Preparers for the rollouts table: the view's query (parsed tolerantly from a page URL, written back as an
// API query string), header sort toggling, inline token bars relative to the page's maximum (null is no
// bar, not an empty one), and the CSV columns of an export.
import { ROLLOUT_SORT_COLUMNS, RolloutQuerySchema, type RolloutItem, type RolloutQuery } from '../api/schemas';
import type { CsvColumn } from './csv';
import { utcIso } from './format';

/** What a rollouts view is: sort, order, search and filters (the page size and cursor are not part of it). */
export type RolloutView = Omit<RolloutQuery, 'limit' | 'cursor'>;
export type SortKey = RolloutView['sort'];
export type SortOrder = RolloutView['order'];
export const SORT_KEYS: SortKey[] = ['rollout', ...ROLLOUT_SORT_COLUMNS];
export const DEFAULT_VIEW: RolloutView = { sort: 'rollout', order: 'asc' };

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * The view a page URL asks for. Parameters the API schema rejects are dropped one by one (and named in
 * `ignored`) so that a stale or hand-edited link still opens the run instead of failing.
 */
export function parseRolloutView(params: SearchParams): { view: RolloutView; ignored: string[] } {
  const input: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined && value !== '' && k !== 'limit' && k !== 'cursor') input[k] = value;
  }
  const ignored: string[] = [];
  for (;;) {
    const parsed = RolloutQuerySchema.safeParse(input);
    if (parsed.success) {
      const { limit: _limit, cursor: _cursor, ...view } = parsed.data;
      return { view, ignored };
    }
    const issue = parsed.error.issues[0];
    const key = issue.code === 'unrecognized_keys' ? issue.keys[0] : String(issue.path[0] ?? '');
    if (!(key in input)) return { view: { ...DEFAULT_VIEW }, ignored: [...ignored, ...Object.keys(input)] };
    ignored.push(key);
    delete input[key];
  }
}

/** The view as query parameters, defaults left out, in a stable order (so equal views give equal strings). */
export function viewParams(view: Partial<RolloutView>): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of Object.keys(RolloutQuerySchema.shape).sort()) {
    const value = view[key as keyof RolloutView];
    if (value === undefined || value === null || value === '') continue;
    if (key === 'sort' && value === DEFAULT_VIEW.sort) continue;
    if (key === 'order' && value === DEFAULT_VIEW.order) continue;
    params.set(key, String(value));
  }
  return params;
}

/** The API URL of one page of a view. */
export function rolloutsApiUrl(run: string, view: RolloutView, limit: number, cursor?: string | null): string {
  const params = viewParams(view);
  params.set('limit', String(limit));
  if (cursor) params.set('cursor', cursor);
  return `/api/runs/${encodeURIComponent(run)}/rollouts?${params}`;
}

/** How many filters (not sort) narrow the view. */
export function activeFilters(view: RolloutView): number {
  return [...viewParams(view).keys()].filter((k) => k !== 'sort' && k !== 'order').length;
}

/** Clicking a header: the same column flips the order; another column starts high-to-low (ids start a-z). */
export function nextSort(current: { sort: SortKey; order: SortOrder }, column: SortKey): { sort: SortKey; order: SortOrder } {
  if (current.sort === column) return { sort: column, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { sort: column, order: column === 'rollout' ? 'asc' : 'desc' };
}

export const TOKEN_FIELDS = ['tokens_in', 'tokens_out', 'tokens_reasoning', 'cached_tokens', 'tokens_total'] as const;
export type TokenField = (typeof TOKEN_FIELDS)[number];

/** What a token count shown from a rollout line's response.usage (shownTokens) says of itself on hover. */
export const USAGE_NOTE = "from the rollout line's response.usage: no captured calls";

/** Token counts, from the captured calls or from a rollout line's own response.usage. */
type TokenCounts = Record<TokenField, number | null>;

/**
 * The token count a view shows: the captured calls' sum, or, when there are no calls at all, what the rollout
 * line's own response.usage says (`fromUsage`, to be marked as such: it is the agent's report, not a sum of calls).
 */
export function shownTokens(
  t: TokenCounts & { response_usage: TokenCounts | null },
  calls: number,
  field: TokenField,
): { value: number | null; fromUsage: boolean } {
  const usage = usageShown(t, calls);
  if (usage) return { value: usage[field], fromUsage: true };
  return { value: t[field], fromUsage: false };
}

/** The response.usage a view shows in place of the captured sums (there are no calls), or null. */
export function usageShown<U>(t: { response_usage: U | null }, calls: number): U | null {
  return calls === 0 ? t.response_usage : null;
}

/** The token counts each row shows (shownTokens), for the page maxima of the bars. */
export function shownTokenRows(rows: RolloutItem[]): TokenCounts[] {
  return rows.map((r) => {
    const out = {} as TokenCounts;
    for (const f of TOKEN_FIELDS) out[f] = shownTokens(r, r.num_calls, f).value;
    return out;
  });
}

/** The largest known value of each field on the page; null when no row knows it. */
export function pageMaxima<F extends string>(rows: Partial<Record<F, number | null>>[], fields: readonly F[]): Record<F, number | null> {
  const out = {} as Record<F, number | null>;
  for (const f of fields) {
    let max: number | null = null;
    for (const r of rows) {
      const v = r[f];
      if (typeof v === 'number' && Number.isFinite(v) && (max === null || v > max)) max = v;
    }
    out[f] = max;
  }
  return out;
}

/** The CSS variable that holds a field's maximum over the rows loaded (barScale), read by its bars. */
export const barMaxVar = (field: string) => `--bar-max-${field}`;

/** The class of a field's bars, which the table's scale rules (barScaleCss) set the variable on. */
export const barClass = (field: string) => `bar-${field}`;

/**
 * The scale as rules of a style element, one per field, on that field's bars inside `scope` (a class): when a page
 * raises a maximum, the browser restyles those bars only. Set on the table as inherited variables, every element
 * of the table in sight was restyled: a long style recalculation, a long frame while scrolling.
 */
export function barScaleCss(scope: string, scale: Record<string, number>): string {
  return Object.entries(scale)
    .map(([variable, max]) => `.${scope} .${barClass(variable.slice('--bar-max-'.length))}{${variable}:${max}}`)
    .join('\n');
}

/**
 * The rollouts table's bar scale as CSS variables, one per field: its maximum, or 1 when it has none or it is 0
 * (every bar of that field is then empty). A bar's width is `clamp(0, value / max, 1)` of its cell (TokenCell).
 */
export function barScale(maxima: Record<string, number | null>): Record<string, number> {
  return Object.fromEntries(Object.entries(maxima).map(([field, max]) => [barMaxVar(field), max !== null && Number.isFinite(max) && max > 0 ? max : 1]));
}

const list = (xs: string[]) => xs.join(';');

export const ROLLOUT_CSV_COLUMNS: CsvColumn<RolloutItem>[] = [
  { header: 'key', value: (r) => r.key },
  { header: 'rollout_id', value: (r) => r.rollout_id },
  { header: 'line_no', value: (r) => r.line_no },
  { header: 'failure_class', value: (r) => r.failure_class },
  { header: 'reward', value: (r) => r.reward },
  { header: 'task_index', value: (r) => r.task_index },
  { header: 'rollout_index', value: (r) => r.rollout_index },
  { header: 'attempt', value: (r) => r.attempt },
  { header: 'agent', value: (r) => r.agent },
  { header: 'num_calls', value: (r) => r.num_calls },
  { header: 'tokens_in', value: (r) => r.tokens_in },
  { header: 'tokens_out', value: (r) => r.tokens_out },
  { header: 'tokens_reasoning', value: (r) => r.tokens_reasoning },
  { header: 'cached_tokens', value: (r) => r.cached_tokens },
  { header: 'tokens_total', value: (r) => r.tokens_total },
  { header: 'response_usage_tokens_in', value: (r) => r.response_usage?.tokens_in ?? null },
  { header: 'response_usage_tokens_out', value: (r) => r.response_usage?.tokens_out ?? null },
  { header: 'response_usage_tokens_reasoning', value: (r) => r.response_usage?.tokens_reasoning ?? null },
  { header: 'response_usage_cached_tokens', value: (r) => r.response_usage?.cached_tokens ?? null },
  { header: 'response_usage_tokens_total', value: (r) => r.response_usage?.tokens_total ?? null },
  { header: 'latency_sum_ms', value: (r) => r.latency_sum },
  { header: 'latency_max_ms', value: (r) => r.latency_max },
  { header: 'ttft_p50_ms', value: (r) => r.ttft_p50 },
  { header: 'errors', value: (r) => r.errors },
  { header: 'error_categories', value: (r) => list(r.error_categories) },
  { header: 'gaps', value: (r) => list(r.gaps.map((g) => (g.detail ? `${g.code}(${g.detail})` : g.code))) },
  { header: 'model_servers', value: (r) => list(r.model_servers) },
  { header: 'dialects', value: (r) => list(r.dialects) },
  { header: 'started_at_utc', value: (r) => (r.started_at === null ? null : utcIso(r.started_at)) },
  { header: 'completed_at_utc', value: (r) => (r.completed_at === null ? null : utcIso(r.completed_at)) },
  { header: 'incomplete', value: (r) => r.incomplete },
  { header: 'unreadable_lines', value: (r) => r.unreadable },
  { header: 'source', value: (r) => r.source },
  { header: 'trajectory_source', value: (r) => r.trajectory?.source ?? null },
  { header: 'invocations', value: (r) => r.trajectory?.invocations ?? null },
  { header: 'subagent_depth', value: (r) => r.trajectory?.subagent_depth ?? null },
  { header: 'turns', value: (r) => r.trajectory?.turns ?? null },
  { header: 'tool_calls', value: (r) => r.trajectory?.tool_calls ?? null },
  { header: 'tool_failed', value: (r) => r.trajectory?.tool_failed ?? null },
  { header: 'tool_unmeasured', value: (r) => r.trajectory?.tool_unmeasured ?? null },
  { header: 'tool_time_ms', value: (r) => r.trajectory?.tool_time_ms ?? null },
  { header: 'tool_time_max_ms', value: (r) => r.trajectory?.tool_time_max_ms ?? null },
  { header: 'compactions', value: (r) => r.trajectory?.compactions ?? null },
  { header: 'sandboxes', value: (r) => r.trajectory?.sandboxes ?? null },
  { header: 'tool_names', value: (r) => (r.trajectory ? list(r.trajectory.tool_names) : null) },
  { header: 'trajectory_gaps', value: (r) => (r.trajectory ? list(r.trajectory.gaps.map((g) => (g.detail ? `${g.code}(${g.detail})` : g.code))) : null) },
  { header: 'line_problem', value: (r) => r.line_problem },
];
