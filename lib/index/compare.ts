// Cross-run comparison: totals, per-model-server usage, per-rollout token distributions, latency and TTFT
// percentiles, error categories, gaps, reward, and a per-task pairing where runs share task indices.
// A run's figures (its calls scanned once, its rollouts' distributions and per-task means) are computed on the
// first compare after the run changed and kept in memory and in `run_stats`, which ingest clears whenever the
// run changes; so a compare over an unchanged 1M-call run, even in a fresh process, reads one row.
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

export class CompareCache {
  private readonly cache = new Map<number, RunFigures>();

  invalidate(runNo: number): void {
    this.cache.delete(runNo);
  }

  figures(db: Database.Database, runNo: number): RunFigures {
    const hit = this.cache.get(runNo);
    if (hit) return hit;
    const stored = db.prepare('SELECT stats FROM run_stats WHERE run_no = ?').pluck().get(runNo) as string | undefined;
    const figures = stored ? (JSON.parse(stored) as RunFigures) : computeFigures(db, runNo);
    if (!stored) db.prepare('INSERT OR REPLACE INTO run_stats (run_no, stats) VALUES (?, ?)').run(runNo, JSON.stringify(figures));
    this.cache.set(runNo, figures);
    return figures;
  }
}

/** Ingest calls this whenever a run changed. */
export function dropRunStats(db: Database.Database, runNo: number): void {
  db.prepare('DELETE FROM run_stats WHERE run_no = ?').run(runNo);
}

const CALLS_OF_RUN = 'FROM calls WHERE rollout_pk IN (SELECT pk FROM rollouts WHERE run_no = ?)';

function callStats(db: Database.Database, runNo: number): RunCallStats {
  const servers = db
    .prepare(
      `SELECT model_server, count(*) AS calls, sum(tokens_in) AS tokens_in, sum(tokens_out) AS tokens_out, sum(tokens_reasoning) AS tokens_reasoning,
        sum(tokens_total) AS tokens_total, sum(cached_tokens) AS cached_tokens, count(error_category) AS errors
        ${CALLS_OF_RUN} GROUP BY model_server ORDER BY calls DESC`,
    )
    .all(runNo) as RunCallStats['servers'];
  const categories = db
    .prepare(`SELECT error_category AS c, count(*) AS n ${CALLS_OF_RUN} AND error_category IS NOT NULL GROUP BY error_category`)
    .all(runNo) as { c: string; n: number }[];
  const column = (name: string) =>
    Float64Array.from(db.prepare(`SELECT ${name} ${CALLS_OF_RUN} AND ${name} IS NOT NULL`).pluck().all(runNo) as number[]).sort();
  return {
    servers,
    error_categories: Object.fromEntries(categories.map((r) => [r.c, r.n])),
    latency_ms: quantiles(Array.from(column('latency_ms')), PERCENTILES),
    ttft_ms: quantiles(Array.from(column('ttft_ms')), PERCENTILES),
  };
}

function sortedColumn(db: Database.Database, runNo: number, column: string): number[] {
  return db.prepare(`SELECT ${column} FROM rollouts WHERE run_no = ? AND ${column} IS NOT NULL ORDER BY IFNULL(${column}, -1e308)`).pluck().all(runNo) as number[];
}

function computeFigures(db: Database.Database, runNo: number): RunFigures {
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
  return {
    comparison: {
      totals: runTotals(db, runNo),
      rollout_tokens: {
        tokens_in: distribution(sortedColumn(db, runNo, 'tokens_in')),
        tokens_out: distribution(sortedColumn(db, runNo, 'tokens_out')),
        tokens_reasoning: distribution(sortedColumn(db, runNo, 'tokens_reasoning')),
        tokens_total: distribution(sortedColumn(db, runNo, 'tokens_total')),
      },
      reward: distribution(sortedColumn(db, runNo, 'reward')),
      gaps,
      calls: callStats(db, runNo),
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
