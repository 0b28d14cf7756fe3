// Cross-run comparison: totals, per-model-server usage, per-rollout token distributions, latency and TTFT
// percentiles, error categories, gaps, reward, and a per-task pairing where the runs are over the same tasks.
//
// Tasks are paired only when the runs are over the same tasks (task-relation.ts).
//
// A run's figures are kept whole (in memory and in run_stats), so a compare over an unchanged 1M-call run, even
// in a fresh process, reads one row. Under them, every figure but the totals is kept per batch of the run's
// rollouts (pk >> BATCH_SHIFT): sums and counts, and sorted values from which exact order statistics are taken
// across batches, in memory and, in compact binary form (batch-codec.ts), in compare_batches; so a change to a
// rollout recomputes its batch only and merges it with the others. Ingest drops the batches it touched (CompareCache.invalidate); after a large pass the index
// computes the missing batches in the background (CompareCache.fill), so the first compare need not.
import type Database from 'better-sqlite3';
import { addTotalsParts, finishTotals, totalsParts, type RunTotals, type TotalsParts } from '../queries/rollouts';
import { ByteReader, ByteWriter } from './batch-codec';
import { taskRelation, type CompareRun } from './task-relation';
import type { Compare, Distribution, TaskPair } from '../../api/compare-schemas';

export type { CompareRun, TaskRelation } from './task-relation';

export const QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95] as const;
export const PERCENTILES = [0.5, 0.9, 0.99] as const;

/** Nearest-rank quantiles of a sorted array; null when empty. */
export function quantiles(sorted: number[], qs: readonly number[]): (number | null)[] {
  return qs.map((q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : null));
}

/** The comparison as GET /api/compare answers it, without the task groups' parts (the facade adds pass_at_k and task_changes). */
export type Comparison = Omit<Compare, 'pass_at_k' | 'task_changes'>;
export type RunComparison = Comparison['runs'][number];
type RunCallStats = RunComparison['calls'];

export interface TaskMeans {
  t: number;
  n: number;
  tok: number | null;
  rew: number | null;
}

export interface RunFigures {
  comparison: Omit<RunComparison, 'run'>;
  tasks: TaskMeans[];
}

/** Rollout pks per batch: a change to a rollout recomputes the figures of its batch only. */
export const BATCH_SHIFT = 9;
/** Whole figures that needed this many batches read from their rows are stored for other processes at once; */
const STORE_AFTER_READS = 3;
/** others once the run has been quiet this long (a live run would rewrite them on every compare). */
const STORE_DELAY_MS = 2_000;

function storeFigures(db: Database.Database, runNo: number, figures: RunFigures): void {
  db.prepare('INSERT OR REPLACE INTO run_stats (run_no, stats) VALUES (?, ?)').run(runNo, JSON.stringify(figures));
}

type ServerRow = RunCallStats['servers'][number];
const TOKEN_KEYS = ['tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total'] as const;

/** Per task of a batch: rollouts, and the sums and counts of their non-null token totals and rewards. */
interface TaskSums {
  t: number;
  n: number;
  tokSum: number;
  tokN: number;
  rewSum: number;
  rewN: number;
}

/** The figures of one run's rollouts with pk in [b << BATCH_SHIFT, (b + 1) << BATCH_SHIFT). */
export interface Batch {
  servers: ServerRow[];
  categories: [string, number][];
  gaps: [string, number][];
  tasks: TaskSums[]; // by t
  latency: Float64Array; // the calls' values, sorted
  ttft: Float64Array;
  tokens: Record<(typeof TOKEN_KEYS)[number], Float64Array>; // the rollouts' values, sorted
  reward: Float64Array;
  toolCalls: Float64Array;
  toolTime: Float64Array;
}

const addNullable = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);
const sortedOf = (values: number[]) => Float64Array.from(values).sort();

/**
 * A run's figures, whole (in memory) and per batch (in memory and in compare_batches). A change drops the run's
 * whole figures and the batches of the rollouts that changed; the next compare recomputes those batches (or
 * `fill` does, in the background) and merges them with the others. Other runs keep everything.
 */
export class CompareCache {
  private readonly whole = new Map<number, RunFigures>();
  private readonly batches = new Map<number, Map<number, Batch>>();
  /** The run totals' parts per batch (in memory only, read from the rows when first needed), and their sum. */
  private readonly parts = new Map<number, Map<number, TotalsParts>>();
  private readonly totals = new Map<number, RunTotals>();
  /** Batches computed from their rows so far (figures() stores the whole figures after several). */
  private rowReads = 0;
  private readonly pending = new Map<number, ReturnType<typeof setTimeout>>();

  /** `shift`: rollout pks per batch as a power of two (tests use small batches). */
  constructor(readonly shift = BATCH_SHIFT) {}

  /** `changed`: the pks of the rollouts that changed; without it, every figure of the run is dropped. */
  invalidate(db: Database.Database, runNo: number, changed?: Iterable<number>): void {
    this.whole.delete(runNo);
    this.totals.delete(runNo);
    db.prepare('DELETE FROM run_stats WHERE run_no = ?').run(runNo);
    const batches = this.batches.get(runNo);
    const parts = this.parts.get(runNo);
    if (!changed) {
      this.batches.delete(runNo);
      this.parts.delete(runNo);
      db.prepare('DELETE FROM compare_batches WHERE run_no = ?').run(runNo);
      return;
    }
    const dropped = new Set<number>();
    for (const pk of changed) dropped.add(pk >> this.shift);
    const drop = db.prepare('DELETE FROM compare_batches WHERE run_no = ? AND batch = ?');
    db.transaction(() => {
      for (const b of dropped) {
        batches?.delete(b);
        parts?.delete(b);
        drop.run(runNo, b);
      }
    })();
  }

  /**
   * `store`: keep the whole figures in run_stats for other processes now. They are also kept at once whenever
   * computing them read several batches from their rows; after a small change (a batch or two read again),
   * only once the run has been quiet for STORE_DELAY_MS, so that a live run does not rewrite them on every compare.
   */
  figures(db: Database.Database, runNo: number, store = false): RunFigures {
    let figures = this.whole.get(runNo);
    if (figures && !store) return figures;
    const stored = db.prepare('SELECT stats FROM run_stats WHERE run_no = ?').pluck().get(runNo) as string | undefined;
    if (stored) figures ??= JSON.parse(stored) as RunFigures;
    else {
      const read = this.rowReads;
      if (!figures) {
        const ids = batchIds(db, runNo, this.shift);
        figures = mergeFigures(this.runTotals(db, runNo, ids), ids.map((b) => this.batch(db, runNo, b)));
      }
      if (store || this.rowReads - read >= STORE_AFTER_READS) storeFigures(db, runNo, figures);
      else this.storeLater(db, runNo, figures);
    }
    this.whole.set(runNo, figures);
    return figures;
  }

  /**
   * The run's totals (the runs page, every run header and compare ask for them), summed from each batch's parts,
   * which are kept until a rollout of the batch changes: after a change to one rollout, one batch's rows are read
   * again instead of every row of the run, and the other runs read nothing. Added in batch order, so that the same
   * batches give the same floating-point sums.
   */
  runTotals(db: Database.Database, runNo: number, batches?: number[]): RunTotals {
    let totals = this.totals.get(runNo);
    if (totals) return totals;
    // A fresh process: the totals stored with the whole figures (dropped with them by any change), if any.
    const stored = db.prepare("SELECT json_extract(stats, '$.comparison.totals') FROM run_stats WHERE run_no = ?").pluck().get(runNo) as string | null | undefined;
    if (stored) {
      this.totals.set(runNo, (totals = JSON.parse(stored) as RunTotals));
      return totals;
    }
    const ids = batches ?? batchIds(db, runNo, this.shift);
    let kept = this.parts.get(runNo);
    if (!kept) this.parts.set(runNo, (kept = new Map()));
    const parts = ids.map((b) => {
      let p = kept.get(b);
      if (!p) kept.set(b, (p = totalsParts(db, runNo, [b << this.shift, (b + 1) << this.shift])));
      return p;
    });
    this.totals.set(runNo, (totals = finishTotals(addTotalsParts(parts))));
    return totals;
  }

  /**
   * Drops a run's stored whole figures, in the transaction of a pass's first write to the run: the figures are
   * stored again once the pass is over (fill), and a process stopped in between does not leave figures behind that
   * no longer match the rows (the next pass over the same files changes nothing, and would keep them).
   */
  dropStored(db: Database.Database, runNo: number): void {
    db.prepare('DELETE FROM run_stats WHERE run_no = ?').run(runNo);
  }

  /** Drops every run's kept totals and parts (the index was written by another connection). */
  dropTotals(): void {
    this.parts.clear();
    this.totals.clear();
  }

  /** Stores the whole figures still waiting for a quiet run (the index is closing). */
  flush(db: Database.Database): void {
    for (const [runNo, timer] of this.pending) {
      clearTimeout(timer);
      const figures = this.whole.get(runNo);
      if (figures && db.open) storeFigures(db, runNo, figures);
    }
    this.pending.clear();
  }

  /** Stores the whole figures once the run has been quiet for a while, unless they changed by then. */
  private storeLater(db: Database.Database, runNo: number, figures: RunFigures): void {
    clearTimeout(this.pending.get(runNo));
    const timer = setTimeout(() => {
      this.pending.delete(runNo);
      if (!db.open || this.whole.get(runNo) !== figures) return;
      try {
        storeFigures(db, runNo, figures);
      } catch {
        // a busy or closing index: the next process merges the stored batches instead
      }
    }, STORE_DELAY_MS);
    timer.unref();
    this.pending.set(runNo, timer);
  }

  /** The batches of the run not yet computed (nor stored). */
  missing(db: Database.Database, runNo: number): number[] {
    const kept = this.batches.get(runNo);
    const stored = new Set(db.prepare('SELECT batch FROM compare_batches WHERE run_no = ?').pluck().all(runNo) as number[]);
    return batchIds(db, runNo, this.shift).filter((b) => !kept?.has(b) && !stored.has(b));
  }

  /** Computes and stores one batch (the background fill after a large ingest pass does one per turn). */
  fill(db: Database.Database, runNo: number, b: number): void {
    this.batch(db, runNo, b);
  }

  private batch(db: Database.Database, runNo: number, b: number): Batch {
    let kept = this.batches.get(runNo);
    if (!kept) this.batches.set(runNo, (kept = new Map()));
    let batch = kept.get(b);
    if (batch) return batch;
    const stored = db.prepare('SELECT data FROM compare_batches WHERE run_no = ? AND batch = ?').pluck().get(runNo, b) as Buffer | undefined;
    if (stored) {
      try {
        batch = decodeBatch(stored, this.shift);
      } catch {
        batch = undefined; // unreadable, or of another batch size: recompute it
      }
    }
    if (!batch) {
      batch = readBatch(db, runNo, b, this.shift);
      this.rowReads++;
      db.prepare('INSERT OR REPLACE INTO compare_batches (run_no, batch, data) VALUES (?, ?, ?)').run(runNo, b, encodeBatch(batch, this.shift));
    }
    kept.set(b, batch);
    return batch;
  }
}

/**
 * The batches that hold the run's rollouts: from one pk to the next batch's first pk of the run, seeking in the
 * table itself (a run's rollouts mostly have neighbouring pks), instead of reading every rollout of the run.
 */
function batchIds(db: Database.Database, runNo: number, shift: number): number[] {
  const next = db.prepare('SELECT min(pk) FROM rollouts WHERE pk >= ? AND +run_no = ?').pluck();
  const ids: number[] = [];
  for (let pk = next.get(-Infinity, runNo) as number | null; pk !== null; pk = next.get(((pk >> shift) + 1) << shift, runNo) as number | null) {
    ids.push(pk >> shift);
  }
  return ids;
}

/** One batch's figures from its rows: its calls (by the calls primary key) and its rollouts. */
export function readBatch(db: Database.Database, runNo: number, b: number, shift = BATCH_SHIFT): Batch {
  const lo = b << shift;
  const hi = (b + 1) << shift;
  const servers = new Map<string | null, ServerRow>();
  const categories = new Map<string, number>();
  const latency: number[] = [];
  const ttft: number[] = [];
  const calls = db.prepare(
    `SELECT c.model_server, c.tokens_in, c.tokens_out, c.tokens_reasoning, c.tokens_total, c.cached_tokens, c.error_category, c.latency_ms, c.ttft_ms
     FROM calls c WHERE c.rollout_pk >= ? AND c.rollout_pk < ? AND c.rollout_pk IN (SELECT pk FROM rollouts WHERE pk >= ? AND pk < ? AND +run_no = ?)`,
  );
  for (const row of calls.raw().iterate(lo, hi, lo, hi, runNo)) {
    const [server, tin, tout, treason, ttotal, cached, category, lat, tt] = row as [
      string | null, number | null, number | null, number | null, number | null, number | null, string | null, number | null, number | null,
    ];
    let s = servers.get(server);
    if (!s) {
      s = { model_server: server, calls: 0, tokens_in: null, tokens_out: null, tokens_reasoning: null, tokens_total: null, cached_tokens: null, errors: 0 };
      servers.set(server, s);
    }
    s.calls++;
    s.tokens_in = addNullable(s.tokens_in, tin);
    s.tokens_out = addNullable(s.tokens_out, tout);
    s.tokens_reasoning = addNullable(s.tokens_reasoning, treason);
    s.tokens_total = addNullable(s.tokens_total, ttotal);
    s.cached_tokens = addNullable(s.cached_tokens, cached);
    if (category !== null) {
      s.errors++;
      categories.set(category, (categories.get(category) ?? 0) + 1);
    }
    if (lat !== null) latency.push(lat);
    if (tt !== null) ttft.push(tt);
  }
  const gaps = new Map<string, number>();
  const tasks = new Map<number, TaskSums>();
  const columns: number[][] = [[], [], [], [], [], [], []];
  // Per-rollout token counts as the views show them (schema.ts, shown_*): a call-less rollout counts its line's usage.
  const rollouts = db.prepare(
    `SELECT shown_tokens_in, shown_tokens_out, shown_tokens_reasoning, shown_tokens_total, reward, tool_calls, tool_time, task_index,
     CASE WHEN gap_count > 0 THEN gaps END FROM rollouts WHERE pk >= ? AND pk < ? AND +run_no = ?`, // by the pk range, not an index on run_no
  );
  for (const row of rollouts.raw().iterate(lo, hi, runNo)) {
    const r = row as [number | null, number | null, number | null, number | null, number | null, number | null, number | null, number | null, string | null];
    for (let i = 0; i < 7; i++) if (r[i] !== null) columns[i].push(r[i] as number);
    const [, , , tok, rew, , , t, gapText] = r;
    if (t !== null) {
      let sums = tasks.get(t);
      if (!sums) tasks.set(t, (sums = { t, n: 0, tokSum: 0, tokN: 0, rewSum: 0, rewN: 0 }));
      sums.n++;
      if (tok !== null) {
        sums.tokSum += tok;
        sums.tokN++;
      }
      if (rew !== null) {
        sums.rewSum += rew;
        sums.rewN++;
      }
    }
    if (gapText) for (const g of JSON.parse(gapText) as { code: string }[]) gaps.set(g.code, (gaps.get(g.code) ?? 0) + 1);
  }
  return {
    servers: [...servers.values()],
    categories: [...categories],
    gaps: [...gaps],
    tasks: [...tasks.values()].sort((a, b) => a.t - b.t),
    latency: sortedOf(latency),
    ttft: sortedOf(ttft),
    tokens: { tokens_in: sortedOf(columns[0]), tokens_out: sortedOf(columns[1]), tokens_reasoning: sortedOf(columns[2]), tokens_total: sortedOf(columns[3]) },
    reward: sortedOf(columns[4]),
    toolCalls: sortedOf(columns[5]),
    toolTime: sortedOf(columns[6]),
  };
}

// 2: the rollouts' tool calls and tool time.
const BATCH_FORMAT = 2;

export function encodeBatch(batch: Batch, shift = BATCH_SHIFT): Buffer {
  const w = new ByteWriter();
  w.uint(BATCH_FORMAT);
  w.uint(shift);
  // The small maps (a few model servers, error categories and gap codes) as JSON.
  w.text(JSON.stringify({ servers: batch.servers, categories: batch.categories, gaps: batch.gaps }));
  w.uint(batch.tasks.length);
  let prev = 0;
  for (const t of batch.tasks) {
    w.int(t.t - prev);
    prev = t.t;
    w.uint(t.n);
    w.uint(t.tokN);
    w.float(t.tokSum);
    w.uint(t.rewN);
    w.float(t.rewSum);
  }
  for (const a of [batch.latency, batch.ttft, ...TOKEN_KEYS.map((k) => batch.tokens[k]), batch.reward, batch.toolCalls, batch.toolTime]) w.sorted(a);
  return w.bytes();
}

export function decodeBatch(data: Uint8Array, shift = BATCH_SHIFT): Batch {
  const r = new ByteReader(data);
  const format = r.uint();
  if (format !== BATCH_FORMAT) throw new RangeError(`batch figures: format ${format}`);
  if (r.uint() !== shift) throw new RangeError('batch figures: another batch size');
  const small = JSON.parse(r.text()) as Pick<Batch, 'servers' | 'categories' | 'gaps'>;
  const tasks: TaskSums[] = new Array(r.uint());
  let prev = 0;
  for (let i = 0; i < tasks.length; i++) {
    const t = (prev += r.int());
    tasks[i] = { t, n: r.uint(), tokN: r.uint(), tokSum: r.float(), rewN: r.uint(), rewSum: r.float() };
  }
  const latency = r.sorted();
  const ttft = r.sorted();
  const tokens = { tokens_in: r.sorted(), tokens_out: r.sorted(), tokens_reasoning: r.sorted(), tokens_total: r.sorted() };
  const reward = r.sorted();
  const toolCalls = r.sorted();
  const toolTime = r.sorted();
  if (!r.done) throw new RangeError('batch figures: trailing bytes');
  return { ...small, tasks, latency, ttft, tokens, reward, toolCalls, toolTime };
}

/** The first index in a[lo, hi) whose value is > x (`strict`: >= x). */
function bound(a: Float64Array, x: number, lo: number, hi: number, strict: boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strict ? a[mid] < x : a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Below this many candidates left, kthOfSorted sorts them. */
const SELECT_DIRECT = 16;

/**
 * The value of rank `k` (0-based) in the union of sorted arrays, without merging them: each round takes as pivot
 * the weighted median of the middles of the arrays' remaining windows, counts the values below and at it in
 * each window, and keeps the side holding rank k. At least a quarter of what remains goes each round, so a
 * percentile over a hundred batches of 10,000 values costs a few thousand binary-search steps.
 */
export function kthOfSorted(arrays: Float64Array[], k: number): number {
  const live = arrays.filter((a) => a.length > 0);
  const lo = live.map(() => 0);
  const hi = live.map((a) => a.length);
  const below = new Array<number>(live.length);
  const upTo = new Array<number>(live.length);
  for (;;) {
    let total = 0;
    for (let i = 0; i < live.length; i++) total += hi[i] - lo[i];
    if (k < 0 || k >= total) throw new RangeError(`rank ${k} outside the ${total} values`);
    if (total <= SELECT_DIRECT) {
      const rest: number[] = [];
      for (let i = 0; i < live.length; i++) for (let j = lo[i]; j < hi[i]; j++) rest.push(live[i][j]);
      return rest.sort((x, y) => x - y)[k];
    }
    const middles: { v: number; w: number }[] = [];
    for (let i = 0; i < live.length; i++) if (hi[i] > lo[i]) middles.push({ v: live[i][(lo[i] + hi[i]) >> 1], w: hi[i] - lo[i] });
    middles.sort((x, y) => x.v - y.v);
    let pivot = middles[middles.length - 1].v;
    for (let i = 0, acc = 0; i < middles.length; i++) {
      acc += middles[i].w;
      if (2 * acc >= total) {
        pivot = middles[i].v;
        break;
      }
    }
    let lt = 0;
    let le = 0;
    for (let i = 0; i < live.length; i++) {
      below[i] = bound(live[i], pivot, lo[i], hi[i], true);
      upTo[i] = bound(live[i], pivot, below[i], hi[i], false);
      lt += below[i] - lo[i];
      le += upTo[i] - lo[i];
    }
    if (k < lt) for (let i = 0; i < live.length; i++) hi[i] = below[i];
    else if (k < le) return pivot;
    else {
      k -= le;
      for (let i = 0; i < live.length; i++) lo[i] = upTo[i];
    }
  }
}

/** Nearest-rank percentiles over the union of sorted arrays, as `quantiles` gives for their concatenation. */
export function percentilesOfSorted(arrays: Float64Array[], qs: readonly number[]): (number | null)[] {
  const n = arrays.reduce((s, a) => s + a.length, 0);
  return qs.map((q) => (n ? kthOfSorted(arrays, Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))) : null));
}

/** Count, mean and quantiles over the union of sorted arrays (the mean sums each array in order, then the sums). */
function distributionOfSorted(arrays: Float64Array[]): Distribution {
  let count = 0;
  let sum = 0;
  for (const a of arrays) {
    count += a.length;
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i];
    sum += s;
  }
  return { count, mean: count ? sum / count : null, quantiles: percentilesOfSorted(arrays, QUANTILES) };
}

export const byName = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

function addCounts(into: Map<string, number>, from: [string, number][]): void {
  for (const [k, n] of from) into.set(k, (into.get(k) ?? 0) + n);
}

/** A run's figures from its batches, in batch order. */
function mergeFigures(totals: RunTotals, batches: Batch[]): RunFigures {
  const servers = new Map<string | null, ServerRow>();
  const categories = new Map<string, number>();
  const gaps = new Map<string, number>();
  const tasks = new Map<number, TaskSums>();
  for (const b of batches) {
    for (const s of b.servers) {
      const t = servers.get(s.model_server);
      if (!t) servers.set(s.model_server, { ...s });
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
    addCounts(categories, b.categories);
    addCounts(gaps, b.gaps);
    for (const s of b.tasks) {
      const t = tasks.get(s.t);
      if (!t) tasks.set(s.t, { ...s });
      else {
        t.n += s.n;
        t.tokSum += s.tokSum;
        t.tokN += s.tokN;
        t.rewSum += s.rewSum;
        t.rewN += s.rewN;
      }
    }
  }
  const tokens = (k: (typeof TOKEN_KEYS)[number]) => distributionOfSorted(batches.map((b) => b.tokens[k]));
  return {
    comparison: {
      totals,
      rollout_tokens: { tokens_in: tokens('tokens_in'), tokens_out: tokens('tokens_out'), tokens_reasoning: tokens('tokens_reasoning'), tokens_total: tokens('tokens_total') },
      reward: distributionOfSorted(batches.map((b) => b.reward)),
      rollout_tool_calls: distributionOfSorted(batches.map((b) => b.toolCalls)),
      rollout_tool_time: distributionOfSorted(batches.map((b) => b.toolTime)),
      gaps: Object.fromEntries([...gaps].sort((a, b) => byName(a[0], b[0]))),
      calls: {
        servers: [...servers.values()].sort((a, b) => b.calls - a.calls || byName(a.model_server, b.model_server)),
        error_categories: Object.fromEntries([...categories].sort((a, b) => byName(a[0], b[0]))),
        latency_ms: percentilesOfSorted(batches.map((b) => b.latency), PERCENTILES),
        ttft_ms: percentilesOfSorted(batches.map((b) => b.ttft), PERCENTILES),
      },
    },
    tasks: [...tasks.values()]
      .sort((a, b) => a.t - b.t)
      .map((s) => ({ t: s.t, n: s.n, tok: s.tokN ? s.tokSum / s.tokN : null, rew: s.rewN ? s.rewSum / s.rewN : null })),
  };
}

export function compareRuns(db: Database.Database, runs: CompareRun[], cache: CompareCache): Comparison {
  const figures = runs.map((run) => cache.figures(db, run.no));
  const shared = sharedTasks(figures.map((f) => f.tasks));
  return comparisonOf(runs, figures, shared, taskRelation(db, runs, shared));
}

/** The comparison from each run's figures, their shared task indices (sharedTasks) and the runs' task relation. */
export function comparisonOf(runs: CompareRun[], figures: RunFigures[], shared: number[], relation: Comparison['task_relation']): Comparison {
  return {
    quantiles: [...QUANTILES],
    percentiles: [...PERCENTILES],
    runs: runs.map((run, i) => ({ run: run.id, ...figures[i].comparison })),
    task_relation: relation,
    tasks: relation.same ? pairTasks(figures.map((f) => f.tasks), shared) : [],
  };
}

/** The task indices every run has, in the first run's order, ascending. */
export function sharedTasks(runs: TaskMeans[][]): number[] {
  if (runs.length < 2) return [];
  const sets = runs.map((tasks) => new Set(tasks.map((r) => r.t)));
  return runs[0].map((r) => r.t).filter((t) => sets.every((s) => s.has(t))).sort((a, b) => a - b);
}

function pairTasks(runs: TaskMeans[][], shared: number[]): TaskPair[] {
  const perRun = runs.map((tasks) => new Map(tasks.map((r) => [r.t, r])));
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
