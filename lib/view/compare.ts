// Preparers for the compare page: the comparison as tables of typed cells (drawn by the page and written as
// CSV from the same rows), box-plot geometry from the index's quantiles, and run colors. Unknown values stay
// null: a null quantile gives no box, a null total an empty cell.
import { scaleLinear, scaleLog } from 'd3-scale';
import type { Compare, Distribution, Points, TaskPair } from '../api/compare-schemas';
import { formatMs, formatReward, formatTokens, groupDigits } from './format';

export const RUN_COLORS = ['#3b82f6', '#f97316', '#10b981', '#a855f7', '#ef4444', '#14b8a6', '#eab308', '#ec4899'] as const;
export const runColor = (i: number): string => RUN_COLORS[i % RUN_COLORS.length];

export type CellKind = 'text' | 'count' | 'tokens' | 'ms' | 'reward' | 'ratio' | 'delta_tokens' | 'delta_reward';
export interface Cell {
  value: string | number | null;
  kind: CellKind;
  /** Relative change against the first run's value, for side-by-side totals. */
  change?: number | null;
}
export interface CompareTable {
  id: string;
  title: string;
  headers: string[];
  rows: Cell[][];
}

const text = (value: string | null): Cell => ({ value, kind: 'text' });
const cell = (value: number | null | undefined, kind: CellKind): Cell => ({ value: value ?? null, kind });

/** (b - a) / a; null when either is unknown or a is 0. */
export function relativeChange(a: number | null, b: number | null): number | null {
  if (a === null || b === null || a === 0) return null;
  return (b - a) / Math.abs(a);
}

/** What the tables read of GET /api/compare's answer (not its task groups' parts). */
export type Comparison = Omit<Compare, 'pass_at_k' | 'task_changes'>;
type RunOf = Comparison['runs'][number];

/**
 * A count over the captured rollouts: unknown (null) for a run none of whose rollouts has capture evidence, since
 * then nothing recorded its calls (the rows say how many rollouts are unknown when only some are).
 */
const captured = (r: RunOf, n: number): number | null => (r.totals.rollouts > 0 && r.totals.uncaptured >= r.totals.rollouts ? null : n);

export function totalsTable(c: Comparison): CompareTable {
  const metrics: [string, CellKind, (r: RunOf) => number | null][] = [
    ['rollouts', 'count', (r) => r.totals.rollouts],
    ['failed rollouts', 'count', (r) => r.totals.failed],
    ['calls', 'count', (r) => captured(r, r.totals.calls)],
    ['calls per captured rollout', 'ratio', (r) => (r.totals.rollouts - r.totals.uncaptured > 0 ? r.totals.calls / (r.totals.rollouts - r.totals.uncaptured) : null)],
    ['tokens in', 'tokens', (r) => r.totals.tokens_in],
    ['tokens out', 'tokens', (r) => r.totals.tokens_out],
    ['tokens reasoning', 'tokens', (r) => r.totals.tokens_reasoning],
    ['tokens cached', 'tokens', (r) => r.totals.cached_tokens],
    ['tokens total', 'tokens', (r) => r.totals.tokens_total],
    ['mean tokens per rollout', 'tokens', (r) => r.rollout_tokens.tokens_total.mean],
    ['latency sum', 'ms', (r) => r.totals.latency_sum],
    ['call errors', 'count', (r) => captured(r, r.totals.errors)],
    ['gaps', 'count', (r) => r.totals.gaps],
    ['mean reward', 'reward', (r) => r.totals.mean_reward],
  ];
  if (c.runs.some((r) => r.totals.line_problems)) metrics.splice(2, 0, ['unreadable rollout lines', 'count', (r) => r.totals.line_problems]);
  // Rollouts without capture evidence: their calls, tokens and errors are unknown, left out of the sums below.
  if (c.runs.some((r) => r.totals.uncaptured)) metrics.splice(2, 0, ['rollouts with calls unknown (no capture)', 'count', (r) => r.totals.uncaptured]);
  // The rollout lines' own response.usage, summed (what agents report; the rows above are the captured calls').
  if (c.runs.some((r) => r.totals.response_usage)) {
    metrics.push(
      ['response.usage tokens in', 'tokens', (r) => r.totals.response_usage?.tokens_in ?? null],
      ['response.usage tokens out', 'tokens', (r) => r.totals.response_usage?.tokens_out ?? null],
      ['response.usage tokens total', 'tokens', (r) => r.totals.response_usage?.tokens_total ?? null],
    );
  }
  return {
    id: 'totals',
    title: 'Totals',
    headers: ['metric', ...c.runs.map((r) => r.run)],
    rows: metrics.map(([name, kind, get]) => {
      const first = c.runs.length ? get(c.runs[0]) : null;
      return [text(name), ...c.runs.map((r, i) => ({ ...cell(get(r), kind), change: i === 0 ? undefined : relativeChange(first, get(r)) }))];
    }),
  };
}

export const TOKEN_KINDS = [
  ['tokens_in', 'tokens in'],
  ['tokens_out', 'tokens out'],
  ['tokens_reasoning', 'tokens reasoning'],
  ['tokens_total', 'tokens total'],
] as const;

export function distributionsTable(c: Comparison): CompareTable {
  const rows: Cell[][] = [];
  const add = (name: string, run: string, d: Distribution, kind: CellKind) =>
    rows.push([text(name), text(run), cell(d.count, 'count'), cell(d.mean, kind), ...d.quantiles.map((q) => cell(q, kind))]);
  for (const [key, name] of TOKEN_KINDS) for (const r of c.runs) add(`${name} per rollout`, r.run, r.rollout_tokens[key], 'tokens');
  for (const r of c.runs) add('reward', r.run, r.reward, 'reward');
  // Only runs with trajectories have tool calls; a run without any shows no rows rather than zeros.
  if (c.runs.some((r) => r.rollout_tool_calls.count > 0)) {
    for (const r of c.runs) add('tool calls per rollout', r.run, r.rollout_tool_calls, 'count');
    for (const r of c.runs) add('measured tool time per rollout', r.run, r.rollout_tool_time, 'ms');
  }
  // A rollout without calls counts with its line's response.usage (as the rollouts table shows it), one without either
  // is left out: the rollouts column says how many each distribution is over.
  const usage = c.runs.some((r) => r.totals.uncaptured > 0 || (r.totals.response_usage && r.totals.calls === 0));
  const title = usage ? "Per-rollout distributions (tokens: the captured calls' sums, or the line's response.usage for a rollout without calls; unknown ones left out)" : 'Per-rollout distributions';
  return { id: 'distributions', title, headers: ['metric', 'run', 'rollouts', 'mean', ...c.quantiles.map((q) => `p${Math.round(q * 100)}`)], rows };
}

export function serversTable(c: Comparison): CompareTable {
  const servers = [...new Set(c.runs.flatMap((r) => r.calls.servers.map((s) => s.model_server ?? '')))].sort();
  const rows: Cell[][] = [];
  for (const name of servers) {
    for (const r of c.runs) {
      const s = r.calls.servers.find((x) => (x.model_server ?? '') === name);
      if (!s) continue;
      rows.push([text(name || null), text(r.run), cell(s.calls, 'count'), cell(s.tokens_in, 'tokens'), cell(s.tokens_out, 'tokens'), cell(s.tokens_reasoning, 'tokens'), cell(s.cached_tokens, 'tokens'), cell(s.tokens_total, 'tokens'), cell(s.errors, 'count')]);
    }
  }
  return { id: 'servers', title: 'Usage per model server', headers: ['model server', 'run', 'calls', 'tokens in', 'tokens out', 'tokens reasoning', 'tokens cached', 'tokens total', 'errors'], rows };
}

export function latencyTable(c: Comparison): CompareTable {
  const ps = c.percentiles.map((p) => `p${Math.round(p * 100)}`);
  return {
    id: 'latency',
    title: 'Call latency and time to first token',
    headers: ['run', ...ps.map((p) => `latency ${p}`), ...ps.map((p) => `TTFT ${p}`)],
    rows: c.runs.map((r) => [text(r.run), ...r.calls.latency_ms.map((v) => cell(v, 'ms')), ...r.calls.ttft_ms.map((v) => cell(v, 'ms'))]),
  };
}

/** Counts by name (error categories, gap codes), one column per run; a run without the name has 0. */
export function countsTable(c: Comparison, id: string, title: string, label: string, get: (r: Comparison['runs'][number]) => Record<string, number>): CompareTable {
  const names = [...new Set(c.runs.flatMap((r) => Object.keys(get(r))))].sort();
  return { id, title, headers: [label, ...c.runs.map((r) => r.run)], rows: names.map((n) => [text(n), ...c.runs.map((r) => cell(get(r)[n] ?? 0, 'count'))]) };
}

export const TASK_SORTS = ['task', 'delta_tokens', 'delta_reward'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/** Tasks by index, or by the size of their change (largest first, unknown changes last). */
export function sortTasks(tasks: TaskPair[], sort: TaskSort): TaskPair[] {
  if (sort === 'task') return [...tasks].sort((a, b) => a.task_index - b.task_index);
  const key = (t: TaskPair) => (sort === 'delta_tokens' ? t.delta_tokens_total : t.delta_reward);
  return [...tasks].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null) return x === null ? (y === null ? a.task_index - b.task_index : 1) : -1;
    return Math.abs(y) - Math.abs(x) || a.task_index - b.task_index;
  });
}

export function tasksTable(c: Comparison, sort: TaskSort): CompareTable {
  const runs = c.runs.map((r) => r.run);
  return {
    id: 'tasks',
    title: 'Paired by task',
    headers: ['task', ...runs.flatMap((r) => [`${r} rollouts`, `${r} mean tokens`, `${r} mean reward`]), 'change in tokens (last − first)', 'change in reward (last − first)'],
    rows: sortTasks(c.tasks, sort).map((t) => [
      cell(t.task_index, 'count'),
      ...t.runs.flatMap((r) => [cell(r.rollouts, 'count'), cell(r.mean_tokens_total, 'tokens'), cell(r.mean_reward, 'reward')]),
      cell(t.delta_tokens_total, 'delta_tokens'),
      cell(t.delta_reward, 'delta_reward'),
    ]),
  };
}

/** The shared axis of one metric's box plots: from 0 (or the lowest p5 when negative) to the highest p95. */
export function boxDomain(dists: Distribution[], fromZero = true): [number, number] | null {
  const qs = dists.flatMap((d) => [d.quantiles[0], d.quantiles[d.quantiles.length - 1]]).filter((q): q is number => q !== null);
  if (!qs.length) return null;
  let lo = Math.min(...qs);
  let hi = Math.max(...qs);
  if (fromZero) lo = Math.min(0, lo);
  if (hi === lo) {
    hi = lo + (lo === 0 ? 1 : Math.abs(lo));
  }
  return [lo, hi];
}

export interface BoxGeometry {
  /** Percent of the track width: whiskers p5..p95, box p25..p75, the median and the mean. */
  whisker: [number, number];
  box: [number, number];
  median: number;
  mean: number | null;
}

/** Box geometry of five quantiles (p5, p25, p50, p75, p95) on a domain; null when a quantile is unknown. */
export function boxGeometry(d: Distribution, domain: [number, number] | null): BoxGeometry | null {
  if (!domain || d.quantiles.length < 5 || d.quantiles.some((q) => q === null)) return null;
  const [lo, hi] = domain;
  const pct = (v: number) => Math.min(100, Math.max(0, ((v - lo) / (hi - lo)) * 100));
  const [p5, p25, p50, p75, p95] = d.quantiles as number[];
  return { whisker: [pct(p5), pct(p95)], box: [pct(p25), pct(p75)], median: pct(p50), mean: d.mean === null ? null : pct(d.mean) };
}

/** GET /api/compare/points: per run, columns of rollout key, tokens_total and reward (capped per run). */
export type PointsRun = Points['runs'][number];

export interface ScatterLayout {
  /** Pixel positions of the drawn points, the run (index) and rollout key of each. */
  xs: Float64Array;
  ys: Float64Array;
  run: Uint8Array;
  /** Where each point sits in its run's columns. */
  at: Uint32Array;
  keys: string[];
  xTicks: { label: number; px: number }[];
  yTicks: { label: number; px: number }[];
  /** Rollouts per run without a drawable position (unknown tokens or reward; tokens ≤ 0 on a log axis). */
  skipped: number[];
  jittered: boolean;
  plot: { left: number; top: number; right: number; bottom: number };
}

export const SCATTER_MARGIN = { left: 56, right: 28, top: 10, bottom: 34 };

/** A stable value in [-1, 1] from a rollout key, so points do not move between renders. */
export function keyJitter(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return ((h >>> 0) / 0xffffffff) * 2 - 1;
}

/**
 * Reward (y) against tokens_total (x) in pixels. Rewards with few distinct values (0/1 graders) are spread
 * vertically by a stable per-key jitter so that stacked points stay visible.
 */
export function scatterLayout(runs: PointsRun[], width: number, height: number, logX: boolean): ScatterLayout {
  const m = SCATTER_MARGIN;
  const plot = { left: m.left, top: m.top, right: Math.max(m.left + 1, width - m.right), bottom: Math.max(m.top + 1, height - m.bottom) };
  const keep = (x: number | null, y: number | null): boolean => x !== null && y !== null && Number.isFinite(x) && Number.isFinite(y) && (!logX || x > 0);
  const skipped = runs.map((r) => r.keys.filter((_, i) => !keep(r.tokens_total[i], r.reward[i])).length);
  let xMin = Infinity;
  let xMax = -Infinity;
  let yLo = Infinity;
  let yHi = -Infinity;
  const rewards = new Set<number>();
  for (const r of runs) {
    r.keys.forEach((_, i) => {
      const x = r.tokens_total[i];
      const y = r.reward[i];
      if (!keep(x, y)) return;
      xMin = Math.min(xMin, x!);
      xMax = Math.max(xMax, x!);
      yLo = Math.min(yLo, y!);
      yHi = Math.max(yHi, y!);
      if (rewards.size <= 12) rewards.add(y!);
    });
  }
  const n = runs.reduce((a, r, i) => a + r.keys.length - skipped[i], 0);
  if (!n) return { xs: new Float64Array(), ys: new Float64Array(), run: new Uint8Array(), at: new Uint32Array(), keys: [], xTicks: [], yTicks: [], skipped, jittered: false, plot };
  const x: AxisScale = logX
    ? scaleLog().domain([xMin, Math.max(xMax, xMin * 10)]).range([plot.left, plot.right]).nice()
    : scaleLinear().domain([Math.min(0, xMin), xMax || 1]).range([plot.left, plot.right]).nice();
  const jittered = rewards.size <= 12;
  const band = jittered ? Math.min(10, (0.3 * (plot.bottom - plot.top)) / Math.max(1, rewards.size - 1)) : 0;
  const y: AxisScale = scaleLinear().domain(yLo === yHi ? [yLo - 1, yHi + 1] : [yLo, yHi]).range([plot.bottom - band, plot.top + band]).nice();
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  const run = new Uint8Array(n);
  const at = new Uint32Array(n);
  const keys: string[] = [];
  let k = 0;
  runs.forEach((r, ri) => {
    r.keys.forEach((key, i) => {
      if (!keep(r.tokens_total[i], r.reward[i])) return;
      xs[k] = x(r.tokens_total[i]!);
      ys[k] = y(r.reward[i]!) + band * keyJitter(key);
      run[k] = ri;
      at[k] = i;
      keys.push(key);
      k++;
    });
  });
  const ticks = (s: AxisScale, count: number) => s.ticks(count).map((v) => ({ label: v, px: s(v) }));
  const decade = (v: number) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
  const xTicks = ticks(x, 6).filter((t) => !logX || decade(t.label));
  return { xs, ys, run, at, keys, xTicks, yTicks: ticks(y, 5), skipped, jittered, plot };
}

interface AxisScale {
  (v: number): number;
  ticks(count: number): number[];
}

const signed = (n: number, text: string) => (n > 0 ? `+${text}` : text);

/** A cell as text, with its unit where the kind has one; unknown is an em dash. */
export function cellText(c: Cell): string {
  const v = c.value;
  if (v === null) return '—';
  if (typeof v === 'string') return v;
  switch (c.kind) {
    case 'count':
      return groupDigits(v);
    case 'tokens':
      return formatTokens(Math.round(v));
    case 'ms':
      return formatMs(v);
    case 'reward':
      return formatReward(v);
    case 'ratio':
      return v.toFixed(2);
    case 'delta_tokens':
      return signed(v, formatTokens(Math.round(v)));
    case 'delta_reward':
      return signed(v, v.toFixed(3));
    default:
      return String(v);
  }
}

/** A relative change, short: "+12%", "−3.4%", or a factor from double on ("×2.5"); empty when unknown. */
export function changeText(change: number | null | undefined): string {
  if (change === null || change === undefined) return '';
  if (change >= 1) return `×${(1 + change).toFixed(1)}`;
  const pct = change * 100;
  const digits = Math.abs(pct) < 10 ? 1 : 0;
  if (Math.abs(pct) < 0.05) return '±0%';
  return `${pct > 0 ? '+' : '−'}${Math.abs(pct).toFixed(digits)}%`;
}
