// A rollout's calls as compact columns (what crosses to the browser: a 30,000-call rollout is a few MB of
// plain JSON instead of 30,000 objects), and the chart series derived from them. Strings are dictionary
// coded (-1 is null); times are milliseconds after the rollout's first start. Every series keeps null as
// null: a call whose tokens are unknown is a gap in the chart, never a zero bar.
import type { CallColumns, CallSummary } from '../api/call-schemas';

/**
 * The columns the rollout page fetches in parallel parts of about the same size (ids; times and codes;
 * tokens), so that no single task receives and parses all of them. Together they are every array column.
 */
export const CALL_COLUMN_PARTS: readonly (readonly (keyof CallColumns)[])[] = [
  ['call_index', 'model_call_id', 'model_server', 'model', 'dialect', 'status_code'],
  ['start_ms', 'end_ms', 'latency_ms', 'ttft_ms', 'error_category', 'finish_reason'],
  ['tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total', 'cached_tokens', 'cache_creation_tokens', 'cache_hit', 'tool_calls'],
];

const round3 = (v: number) => Math.round(v * 1000) / 1000;

export function toCallColumns(rows: readonly CallSummary[]): CallColumns {
  const n = rows.length;
  const strings: string[] = [];
  const codes = new Map<string, number>();
  const code = (s: string | null) => {
    if (s === null) return -1;
    let c = codes.get(s);
    if (c === undefined) {
      c = strings.length;
      strings.push(s);
      codes.set(s, c);
    }
    return c;
  };
  let t0: number | null = null;
  for (const r of rows) if (r.started_at !== null && (t0 === null || r.started_at < t0)) t0 = r.started_at;
  const rel = (s: number | null) => (s === null || t0 === null ? null : round3((s - t0) * 1000));
  const servers = new Set<string>();
  const c: CallColumns = {
    n,
    strings,
    call_index: new Array(n),
    model_call_id: new Array(n),
    model_server: new Array(n),
    model: new Array(n),
    dialect: new Array(n),
    error_category: new Array(n),
    finish_reason: new Array(n),
    status_code: new Array(n),
    t0,
    start_ms: new Array(n),
    end_ms: new Array(n),
    tokens_in: new Array(n),
    tokens_out: new Array(n),
    tokens_reasoning: new Array(n),
    tokens_total: new Array(n),
    cached_tokens: new Array(n),
    cache_creation_tokens: new Array(n),
    cache_hit: new Array(n),
    latency_ms: new Array(n),
    ttft_ms: new Array(n),
    tool_calls: new Array(n),
    servers: [],
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    if (r.model_server !== null && !servers.has(r.model_server)) {
      servers.add(r.model_server);
      c.servers.push(r.model_server);
    }
    c.call_index[i] = r.call_index;
    c.model_call_id[i] = r.model_call_id;
    c.model_server[i] = code(r.model_server);
    c.model[i] = code(r.model);
    c.dialect[i] = code(r.dialect);
    c.error_category[i] = code(r.error_category);
    c.finish_reason[i] = code(r.finish_reason);
    c.status_code[i] = r.status_code;
    c.start_ms[i] = rel(r.started_at);
    c.end_ms[i] = rel(r.completed_at);
    c.tokens_in[i] = r.tokens_in;
    c.tokens_out[i] = r.tokens_out;
    c.tokens_reasoning[i] = r.tokens_reasoning;
    c.tokens_total[i] = r.tokens_total;
    c.cached_tokens[i] = r.cached_tokens;
    c.cache_creation_tokens[i] = r.cache_creation_tokens;
    c.cache_hit[i] = r.cache_hit === null ? null : r.cache_hit !== 0;
    c.latency_ms[i] = r.latency_ms;
    c.ttft_ms[i] = r.ttft_ms;
    c.tool_calls[i] = r.tool_calls ?? 0;
  }
  return c;
}

export const stringAt = (c: CallColumns, code: number): string | null => (code < 0 ? null : c.strings[code] ?? null);

/** How a call is addressed in URLs: its model_call_id, or `i<call_index>` for a line without one. */
export const callRef = (c: CallColumns, i: number): string => c.model_call_id[i] ?? `i${c.call_index[i]}`;

/** The server group of call i (its index in `servers`), or `servers.length` for calls without a server. */
export function serverGroup(c: CallColumns, i: number): number {
  const name = stringAt(c, c.model_server[i]);
  return name === null ? c.servers.length : c.servers.indexOf(name);
}

export interface SeriesLayer {
  key: string;
  label: string;
  /** Bars of one chart stack on each other; dots mark a value without a bar. */
  kind: 'bar' | 'dot';
  values: (number | null)[];
  /** For per-server layers: the server group, so the chart colours it like the timeline. */
  group?: number;
}

export interface ChartSeries {
  /** The call index of each position. */
  x: number[];
  layers: SeriesLayer[];
  unit: 'tokens' | 'ms';
  /** Calls where every layer is null: drawn as gaps, counted so the chart can say so. */
  unknown: number;
}

function countUnknown(n: number, layers: SeriesLayer[]): number {
  let unknown = 0;
  for (let i = 0; i < n; i++) if (layers.every((l) => l.values[i] === null)) unknown++;
  return unknown;
}

/**
 * Tokens per call as one stack: input (uncached), input (cached), output without reasoning, reasoning. The
 * parts add up to tokens_in + tokens_out; a part whose source is unknown is null, not 0.
 */
export function tokenSeries(c: CallColumns): ChartSeries {
  const inUncached: (number | null)[] = [];
  const inCached: (number | null)[] = [];
  const out: (number | null)[] = [];
  const reasoning: (number | null)[] = [];
  for (let i = 0; i < c.n; i++) {
    const tin = c.tokens_in[i];
    const cached = c.cached_tokens[i];
    const tout = c.tokens_out[i];
    const r = c.tokens_reasoning[i];
    inCached.push(tin !== null && cached !== null ? Math.min(cached, tin) : null);
    inUncached.push(tin !== null ? Math.max(0, tin - (cached ?? 0)) : null);
    reasoning.push(r !== null ? (tout !== null ? Math.min(r, tout) : r) : null);
    out.push(tout !== null ? Math.max(0, tout - (r ?? 0)) : null);
  }
  const layers: SeriesLayer[] = [
    { key: 'in_uncached', label: 'input', kind: 'bar', values: inUncached },
    { key: 'in_cached', label: 'input, cached', kind: 'bar', values: inCached },
    { key: 'out', label: 'output', kind: 'bar', values: out },
    { key: 'reasoning', label: 'reasoning', kind: 'bar', values: reasoning },
  ];
  return { x: c.call_index, layers, unit: 'tokens', unknown: countUnknown(c.n, layers) };
}

/** Latency per call as a bar, with the time to first token as a dot on it. */
export function latencySeries(c: CallColumns): ChartSeries {
  const layers: SeriesLayer[] = [
    { key: 'latency', label: 'latency', kind: 'bar', values: c.latency_ms },
    { key: 'ttft', label: 'time to first token', kind: 'dot', values: c.ttft_ms },
  ];
  return { x: c.call_index, layers, unit: 'ms', unknown: countUnknown(c.n, layers) };
}

/**
 * Context growth: tokens_in per call, one dot layer per model server (agents resend the conversation, so a
 * server's dots climb turn by turn; a judge's calls form their own band instead of a zig-zag).
 */
export function contextSeries(c: CallColumns): ChartSeries {
  const groups = [...c.servers, '(no server)'];
  const layers: SeriesLayer[] = groups.map((name, g) => ({ key: `server:${g}`, label: name, kind: 'dot', values: new Array<number | null>(c.n).fill(null), group: g }));
  for (let i = 0; i < c.n; i++) layers[serverGroup(c, i)].values[i] = c.tokens_in[i];
  const used = layers.filter((l) => l.values.some((v) => v !== null));
  const unknown = c.tokens_in.filter((v) => v === null).length;
  return { x: c.call_index, layers: used, unit: 'tokens', unknown };
}

/** The series as one object per call, the shape recharts draws (null stays null, so a bar or dot is absent). */
export function chartRows(s: ChartSeries): Record<string, number | null>[] {
  return s.x.map((x, i) => {
    const row: Record<string, number | null> = { x };
    for (const l of s.layers) row[l.key] = l.values[i];
    return row;
  });
}

/** The top of the y axis: the tallest stack of bars or the highest dot. */
export function seriesMax(s: ChartSeries): number {
  let max = 0;
  for (let i = 0; i < s.x.length; i++) {
    let stack = 0;
    for (const l of s.layers) {
      const v = l.values[i];
      if (v === null) continue;
      if (l.kind === 'bar') stack += v;
      else max = Math.max(max, v);
    }
    max = Math.max(max, stack);
  }
  return max;
}

/** Position of the x value nearest to `value` in ascending `xs` (binary search), or -1 when empty. */
export function nearestIndex(xs: readonly number[], value: number): number {
  if (xs.length === 0) return -1;
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(xs[lo - 1] - value) <= Math.abs(xs[lo] - value)) return lo - 1;
  return lo;
}
