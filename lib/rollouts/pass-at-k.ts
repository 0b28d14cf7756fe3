// pass@k as NeMo Gym computes it (spec §5.6; upstream nemo_gym/reward_profile.py, compute_pass_majority_metrics,
// with its default score `accuracy` = reward and no answer key, so no majority@k). Exact to the bit, because users
// put callscope's figure beside the one their run printed:
// - Python's `sum` over floats is compensated since 3.12 (Neumaier; NeMo Gym requires 3.13): `pySum` is CPython's.
// - `math.comb(a, k) / math.comb(n, k)` divides two exact integers and rounds once: `combRatio` does the same with
//   BigInt (C(64, 32) is past 2^53, where a float quotient would round twice).
// Rewards are read as floats. Python keeps a reward written `1` as an int, which its `sum` adds uncompensated;
// NeMo Gym's verify responses declare `reward: float`, so their lines carry `1.0`.

import { neumaierSum } from '../capture/metrics';

/** A flat dict in upstream's key order: `pass@k/accuracy`, `pass@1[avg-of-k]/accuracy`, then the k ≥ 2 variance keys. */
export type PassMetrics = Record<string, number>;

/** CPython ≥ 3.12's `sum(floats)` (Neumaier's compensated summation, as in lib/capture/metrics.ts). */
export const pySum = neumaierSum;

const combCache = new Map<string, bigint>();

function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  const kk = Math.min(k, n - k);
  const key = `${n},${kk}`;
  const hit = combCache.get(key);
  if (hit !== undefined) return hit;
  let r = 1n;
  for (let i = 1; i <= kk; i++) r = (r * BigInt(n - kk + i)) / BigInt(i);
  if (combCache.size < 100_000) combCache.set(key, r);
  return r;
}

/** `a / b` for non-negative integers, rounded once to the nearest float (ties to even), as Python's `int / int`. */
export function bigRatio(a: bigint, b: bigint): number {
  if (a === 0n) return 0;
  // A quotient of at least 64 significant bits, plus a sticky bit for a non-zero remainder, converts to the
  // correctly rounded double (Number(bigint) rounds to nearest, ties to even).
  const shift = Math.max(0, 66 - (a.toString(2).length - b.toString(2).length));
  const scaled = a << BigInt(shift);
  let q = scaled / b;
  let s = shift;
  if (scaled % b !== 0n) {
    q = (q << 1n) | 1n;
    s += 1;
  }
  return Number(q) / 2 ** s;
}

const ratioCache = new Map<number, number>();

/** `math.comb(nIncorrect, k) / math.comb(n, k)`; group sizes are few, so each ratio is computed once. */
export function combRatio(nIncorrect: number, n: number, k: number): number {
  if (n > 0xffff || k > 0xff) return bigRatio(comb(nIncorrect, k), comb(n, k));
  const key = (nIncorrect * 0x10000 + n) * 0x100 + k;
  let r = ratioCache.get(key);
  if (r === undefined) {
    r = bigRatio(comb(nIncorrect, k), comb(n, k));
    if (ratioCache.size < 1_000_000) ratioCache.set(key, r);
  }
  return r;
}

const isBinary = (values: readonly number[]) => values.every((v) => v === 0 || v === 1);

/**
 * One task's pass@k (a fraction, 0–1) for every k from 1 to its size, its values in rollout order: binary rewards
 * 1 − C(incorrect, k) / C(n, k) (1 when fewer than k are incorrect), others the maximum of the first k. One pass over the
 * values for all k (a run of 12,500 tasks builds its groups without a pass per k); a task has no pass@k past its size.
 */
export function taskPassAtKs(values: readonly number[]): number[] {
  const n = values.length;
  const out = new Array<number>(n);
  if (isBinary(values)) {
    let incorrect = 0;
    for (const v of values) if (!v) incorrect++;
    for (let k = 1; k <= n; k++) out[k - 1] = incorrect < k ? 1.0 : 1.0 - combRatio(incorrect, n, k);
  } else {
    let max = -Infinity;
    for (let k = 1; k <= n; k++) out[k - 1] = max = Math.max(max, values[k - 1]);
  }
  return out;
}

/** `pySum(values.slice(0, k)) / k` for every k from 1 to the values' count (each prefix summed as pySum sums it). */
export function prefixMeans(values: readonly number[]): number[] {
  const out = new Array<number>(values.length);
  pySum(values, (k, sum) => (out[k - 1] = sum / k));
  return out;
}

/**
 * The metrics of tasks (each a list of rewards in rollout-index order), keyed as upstream keys them, without
 * `per_sample_aggregate` (a list, not a metric); `maxK` is the largest group. `passes`: each task's taskPassAtKs, when
 * the caller has them.
 */
export function passMajorityMetrics(tasks: readonly (readonly number[])[], passes: readonly (readonly number[])[] = tasks.map(taskPassAtKs)): { metrics: PassMetrics; maxK: number } {
  const metrics: PassMetrics = {};
  if (tasks.length === 0) return { metrics, maxK: 0 };
  let maxK = 0;
  for (const t of tasks) maxK = Math.max(maxK, t.length);
  const name = 'accuracy';
  const means = tasks.map(prefixMeans);
  for (let k = 1; k <= maxK; k++) {
    const passValues: number[] = [];
    for (let t = 0; t < tasks.length; t++) if (k <= tasks[t].length) passValues.push(passes[t][k - 1]);
    if (passValues.length) metrics[`pass@${k}/${name}`] = (100.0 * pySum(passValues)) / passValues.length;
    // The mean of a task's first k values (all of them when it has fewer).
    const avgValues: number[] = [];
    for (let t = 0; t < tasks.length; t++) if (tasks[t].length) avgValues.push(means[t][Math.min(k, tasks[t].length) - 1]);
    if (avgValues.length) metrics[`pass@1[avg-of-${k}]/${name}`] = (100.0 * pySum(avgValues)) / avgValues.length;
  }
  // per_sample_aggregate: the pass@1 of each rollout index over the tasks that have it.
  const perSample: number[] = [];
  for (let i = 0; i < maxK; i++) {
    const scores = tasks.filter((t) => i < t.length).map((t) => t[i]);
    if (scores.length) perSample.push((100.0 * pySum(scores)) / scores.length);
  }
  for (let k = 2; k <= maxK; k++) {
    const runAverages = perSample.slice(0, k);
    if (runAverages.length < 2) continue;
    const mean = pySum(runAverages) / runAverages.length;
    const variance = pySum(runAverages.map((x) => (x - mean) * (x - mean))) / (runAverages.length - 1);
    const stdDev = Math.sqrt(variance);
    metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = stdDev;
    metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = stdDev / Math.sqrt(runAverages.length);
  }
  return { metrics, maxK };
}
