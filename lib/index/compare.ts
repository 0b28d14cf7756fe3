// Cross-run comparison: totals, per-model-server usage, per-rollout token distributions, latency and TTFT
// percentiles, error categories, gaps, reward, and a per-task pairing where runs share task indices.
// A run's figures (its rollouts' distributions and per-task means, its calls' sums and exact percentiles) are
// computed on the first compare after the run changed and kept in memory and in `run_stats`, which ingest clears
// whenever the run changes; so a compare over an unchanged 1M-call run, even in a fresh process, reads one row.
// The call figures are also kept per batch of rollouts in memory, so that after a change only the batches of
// the changed rollouts are read again (see CompareCache).
import type Database from 'better-sqlite3';
import { runTotals, type RunTotals } from './queries';

export const QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95] as const;
const PERCENTILES = [0.5, 0.9, 0.99] as const;

/** Nearest-rank quantiles of a sorted array; null when empty. */
export function quantiles(sorted: number[], qs: readonly number[]): (number | null)[] {
  return qs.map((q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : null));
}

export interface Distribution {
  count: number;
  mean: number | null;
  quantiles: (number | null)[];
}

function distribution(sorted: number[]): Distribution {
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null;
  return { count: sorted.length, mean, quantiles: quantiles(sorted, QUANTILES) };
}

export interface RunCallStats {
  servers: { model_server: string | null; calls: number; tokens_in: number | null; tokens_out: number | null; tokens_reasoning: number | null; tokens_total: number | null; cached_tokens: number | null; errors: number }[];
  error_categories: Record<string, number>;
  latency_ms: (number | null)[];
  ttft_ms: (number | null)[];
}

export interface RunComparison {
  run: string;
  totals: RunTotals;
  rollout_tokens: Record<'tokens_in' | 'tokens_out' | 'tokens_reasoning' | 'tokens_total', Distribution>;
  reward: Distribution;
  gaps: Record<string, number>;
  calls: RunCallStats;
}

export interface TaskPair {
  task_index: number;
  runs: { rollouts: number; mean_tokens_total: number | null; mean_reward: number | null }[];
  delta_tokens_total: number | null;
  delta_reward: number | null;
}

export interface Comparison {
  quantiles: readonly number[];
  percentiles: readonly number[];
  runs: RunComparison[];
  tasks: TaskPair[];
}

interface TaskMeans {
  t: number;
  n: number;
  tok: number | null;
  rew: number | null;
}

interface RunFigures {
  comparison: Omit<RunComparison, 'run'>;
  tasks: TaskMeans[];
}

/** Rollout pks per call batch: a change to a rollout recomputes the call figures of its batch only. */
export const BATCH_SHIFT = 10;

type ServerRow = RunCallStats['servers'][number];

/** The call figures of one run's rollouts with pk in [b << BATCH_SHIFT, (b + 1) << BATCH_SHIFT). */
interface CallBatch {
  servers: Map<string | null, ServerRow>;
  categories: Map<string, number>;
  latency: Float64Array; // sorted
  ttft: Float64Array; // sorted
}

const addNullable = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);

/**
 * The figures of each run: whole (`figures`, also stored in `run_stats` for other processes) and, for the calls,
 * per batch of rollouts (`batches`, in memory). A change to a run drops its whole figures and the batches of
 * the rollouts that changed; the next compare recomputes those batches and merges (sums, and exact order
 * statistics over the batches' sorted values). Other runs keep everything.
 */
export class CompareCache {
  private readonly cache = new Map<number, RunFigures>();
  private readonly batches = new Map<number, Map<number, CallBatch>>();

  /** `changed`: the pks of the rollouts that changed; without it, every figure of the run is dropped. */
  invalidate(runNo: number, changed?: Iterable<number>): void {
    this.cache.delete(runNo);
    const batches = this.batches.get(runNo);
    if (!batches) return;
    if (!changed) {
      this.batches.delete(runNo);
      return;
    }
    for (const pk of changed) batches.delete(pk >> BATCH_SHIFT);
  }

  figures(db: Database.Database, runNo: number): RunFigures {
    const hit = this.cache.get(runNo);
    if (hit) return hit;
    const stored = db.prepare('SELECT stats FROM run_stats WHERE run_no = ?').pluck().get(runNo) as string | undefined;
    const figures = stored ? (JSON.parse(stored) as RunFigures) : computeFigures(db, runNo, this.callStats(db, runNo));
    if (!stored) db.prepare('INSERT OR REPLACE INTO run_stats (run_no, stats) VALUES (?, ?)').run(runNo, JSON.stringify(figures));
    this.cache.set(runNo, figures);
    return figures;
  }

  private callStats(db: Database.Database, runNo: number): RunCallStats {
    let batches = this.batches.get(runNo);
    if (!batches) {
      batches = readBatches(db, runNo, null);
      this.batches.set(runNo, batches);
    } else {
      // Batches of the run now: the kept ones plus any a new rollout opened.
      const all = db.prepare(`SELECT DISTINCT pk >> ${BATCH_SHIFT} FROM rollouts WHERE run_no = ?`).pluck().all(runNo) as number[];
      const missing = all.filter((b) => !batches!.has(b));
      for (const b of [...batches.keys()]) if (!all.includes(b)) batches.delete(b);
      if (missing.length) for (const [b, batch] of readBatches(db, runNo, missing)) batches.set(b, batch);
    }
    return mergeBatches([...batches.values()]);
  }
}

/** Ingest calls this whenever a run changed. */
export function dropRunStats(db: Database.Database, runNo: number): void {
  db.prepare('DELETE FROM run_stats WHERE run_no = ?').run(runNo);
}

const CALL_COLUMNS = `c.rollout_pk, c.model_server, c.tokens_in, c.tokens_out, c.tokens_reasoning, c.tokens_total, c.cached_tokens, c.error_category,
  c.latency_ms, c.ttft_ms`;

/** The call batches of a run: all of them (one pass over its calls) or the listed ones (by pk range). */
function readBatches(db: Database.Database, runNo: number, only: number[] | null): Map<number, CallBatch> {
  type Acc = { servers: Map<string | null, ServerRow>; categories: Map<string, number>; latency: number[]; ttft: number[] };
  const acc = new Map<number, Acc>();
  const rows = (sql: string, ...params: unknown[]) => db.prepare(sql).raw().iterate(...params) as IterableIterator<unknown[]>;
  const sources: IterableIterator<unknown[]>[] = [];
  if (only === null) {
    sources.push(rows(`SELECT ${CALL_COLUMNS} FROM rollouts r JOIN calls c ON c.rollout_pk = r.pk WHERE r.run_no = ?`, runNo));
    for (const b of db.prepare(`SELECT DISTINCT pk >> ${BATCH_SHIFT} FROM rollouts WHERE run_no = ?`).pluck().all(runNo) as number[]) {
      acc.set(b, { servers: new Map(), categories: new Map(), latency: [], ttft: [] });
    }
  } else {
    for (const b of only) {
      acc.set(b, { servers: new Map(), categories: new Map(), latency: [], ttft: [] });
      sources.push(
        rows(
          `SELECT ${CALL_COLUMNS} FROM rollouts r JOIN calls c ON c.rollout_pk = r.pk WHERE r.pk >= ? AND r.pk < ? AND r.run_no = ?`,
          b << BATCH_SHIFT,
          (b + 1) << BATCH_SHIFT,
          runNo,
        ),
      );
    }
  }
  for (const source of sources) {
    for (const row of source) {
      const [pk, server, tin, tout, treason, ttotal, cached, category, latency, ttft] = row as [
        number, string | null, number | null, number | null, number | null, number | null, number | null, string | null, number | null, number | null,
      ];
      let a = acc.get(pk >> BATCH_SHIFT);
      if (!a) acc.set(pk >> BATCH_SHIFT, (a = { servers: new Map(), categories: new Map(), latency: [], ttft: [] }));
      let s = a.servers.get(server);
      if (!s) {
        s = { model_server: server, calls: 0, tokens_in: null, tokens_out: null, tokens_reasoning: null, tokens_total: null, cached_tokens: null, errors: 0 };
        a.servers.set(server, s);
      }
      s.calls++;
      s.tokens_in = addNullable(s.tokens_in, tin);
      s.tokens_out = addNullable(s.tokens_out, tout);
      s.tokens_reasoning = addNullable(s.tokens_reasoning, treason);
      s.tokens_total = addNullable(s.tokens_total, ttotal);
      s.cached_tokens = addNullable(s.cached_tokens, cached);
      if (category !== null) {
        s.errors++;
        a.categories.set(category, (a.categories.get(category) ?? 0) + 1);
      }
      if (latency !== null) a.latency.push(latency);
      if (ttft !== null) a.ttft.push(ttft);
    }
  }
  const out = new Map<number, CallBatch>();
  for (const [b, a] of acc) {
    out.set(b, { servers: a.servers, categories: a.categories, latency: Float64Array.from(a.latency).sort(), ttft: Float64Array.from(a.ttft).sort() });
  }
  return out;
}

/** Count of values <= x in a sorted array. */
function countLE(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The value of rank `k` (0-based) in the union of sorted arrays: the smallest v with count(<= v) > k. */
export function kthOfSorted(arrays: Float64Array[], k: number): number {
  const countAll = (x: number) => arrays.reduce((n, a) => n + countLE(a, x), 0);
  let best = Infinity;
  for (const a of arrays) {
    if (a.length === 0 || a[0] >= best) continue;
    // The first element of `a` whose overall count exceeds k (and is below the best so far).
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (countAll(a[mid]) > k) hi = mid;
      else lo = mid + 1;
    }
    if (lo < a.length && a[lo] < best) best = a[lo];
  }
  return best;
}

/** Nearest-rank percentiles over the union of sorted arrays, as `quantiles` gives for their concatenation. */
export function percentilesOfSorted(arrays: Float64Array[], qs: readonly number[]): (number | null)[] {
  const n = arrays.reduce((s, a) => s + a.length, 0);
  return qs.map((q) => (n ? kthOfSorted(arrays, Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))) : null));
}

function mergeBatches(batches: CallBatch[]): RunCallStats {
  const servers = new Map<string | null, ServerRow>();
  const categories = new Map<string, number>();
  for (const b of batches) {
    for (const [name, s] of b.servers) {
      const t = servers.get(name);
      if (!t) servers.set(name, { ...s });
      else {
        t.calls += s.calls;
        t.tokens_in = addNullable(t.tokens_in, s.tokens_in);
        t.tokens_out = addNullable(t.tokens_out, s.tokens_out);
        t.tokens_reasoning = addNullable(t.tokens_reasoning, s.tokens_reasoning);
        t.tokens_total = addNullable(t.tokens_total, s.tokens_total);
        t.cached_tokens = addNullable(t.cached_tokens, s.cached_tokens);
        t.errors += s.errors;
      }
    }
    for (const [c, n] of b.categories) categories.set(c, (categories.get(c) ?? 0) + n);
  }
  const byName = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
  return {
    servers: [...servers.values()].sort((a, b) => b.calls - a.calls || byName(a.model_server, b.model_server)),
    error_categories: Object.fromEntries([...categories].sort((a, b) => byName(a[0], b[0]))),
    latency_ms: percentilesOfSorted(
      batches.map((b) => b.latency),
      PERCENTILES,
    ),
    ttft_ms: percentilesOfSorted(
      batches.map((b) => b.ttft),
      PERCENTILES,
    ),
  };
}

/** The rollouts' token totals and rewards, each sorted: one pass over the covering index rollouts_filter. */
function sortedColumns(db: Database.Database, runNo: number) {
  const names = ['tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total', 'reward'] as const;
  const values: number[][] = names.map(() => []);
  for (const row of db.prepare(`SELECT ${names.join(', ')} FROM rollouts INDEXED BY rollouts_filter WHERE run_no = ?`).raw().iterate(runNo)) {
    const r = row as (number | null)[];
    for (let i = 0; i < names.length; i++) if (r[i] !== null) values[i].push(r[i]!);
  }
  const sorted = values.map((v) => Array.from(Float64Array.from(v).sort()));
  return Object.fromEntries(names.map((n, i) => [n, sorted[i]])) as Record<(typeof names)[number], number[]>;
}

function computeFigures(db: Database.Database, runNo: number, calls: RunCallStats): RunFigures {
  const gaps: Record<string, number> = {};
  for (const text of db.prepare('SELECT gaps FROM rollouts WHERE run_no = ? AND gap_count > 0').pluck().all(runNo) as string[]) {
    for (const g of JSON.parse(text) as { code: string }[]) gaps[g.code] = (gaps[g.code] ?? 0) + 1;
  }
  const tasks = db
    .prepare(
      `SELECT task_index AS t, count(*) AS n, avg(tokens_total) AS tok, avg(reward) AS rew FROM rollouts
       WHERE run_no = ? AND task_index IS NOT NULL GROUP BY task_index`,
    )
    .all(runNo) as TaskMeans[];
  const sorted = sortedColumns(db, runNo);
  return {
    comparison: {
      totals: runTotals(db, runNo),
      rollout_tokens: {
        tokens_in: distribution(sorted.tokens_in),
        tokens_out: distribution(sorted.tokens_out),
        tokens_reasoning: distribution(sorted.tokens_reasoning),
        tokens_total: distribution(sorted.tokens_total),
      },
      reward: distribution(sorted.reward),
      gaps,
      calls,
    },
    tasks,
  };
}

export function compareRuns(db: Database.Database, runs: { id: string; no: number }[], cache: CompareCache): Comparison {
  const figures = runs.map((run) => cache.figures(db, run.no));
  return {
    quantiles: QUANTILES,
    percentiles: PERCENTILES,
    runs: runs.map((run, i) => ({ run: run.id, ...figures[i].comparison })),
    tasks: pairTasks(figures.map((f) => f.tasks)),
  };
}

function pairTasks(runs: TaskMeans[][]): TaskPair[] {
  if (runs.length < 2) return [];
  const perRun = runs.map((tasks) => new Map(tasks.map((r) => [r.t, r])));
  const shared = [...perRun[0].keys()].filter((t) => perRun.every((m) => m.has(t))).sort((a, b) => a - b);
  return shared.map((t) => {
    const rows = perRun.map((m) => m.get(t)!);
    const first = rows[0];
    const last = rows[rows.length - 1];
    return {
      task_index: t,
      runs: rows.map((r) => ({ rollouts: r.n, mean_tokens_total: r.tok, mean_reward: r.rew })),
      delta_tokens_total: first.tok !== null && last.tok !== null ? last.tok - first.tok : null,
      delta_reward: first.rew !== null && last.rew !== null ? last.rew - first.rew : null,
    };
  });
}
