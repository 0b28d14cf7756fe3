// Which call of rollout a stands beside which call of rollout b. Calls are compared within each model server (a
// policy call is never paired with a judge call): by the longest common subsequence of their signatures (what the
// request ended with and what tool calls the response asked for, diff-shape.ts), and where the two sequences differ,
// by position (the k-th differing call of a beside the k-th of b, as the same turn taken differently). Servers
// interleave differently from run to run, so pairs of different servers can cross; the longest crossing-free set is
// kept and the calls of the others stand alone. Guarantee: every call of each side appears exactly once, and each
// side's calls appear in their own order.
import { diffSequences } from './diff-sequence';

export interface AlignCall {
  server: string | null;
  signature: string;
}

export interface AlignedPair {
  /** Positions in the sides' call lists (not call_index), or null for a call the other side has no match for. */
  a: number | null;
  b: number | null;
}

export function alignCalls(a: readonly AlignCall[], b: readonly AlignCall[]): AlignedPair[] {
  const byServer = (calls: readonly AlignCall[]) => {
    const m = new Map<string, number[]>();
    calls.forEach((c, i) => {
      const k = c.server ?? '';
      const list = m.get(k);
      if (list) list.push(i);
      else m.set(k, [i]);
    });
    return m;
  };
  const sa = byServer(a);
  const sb = byServer(b);
  const matched: [number, number][] = [];
  for (const [server, pa] of sa) {
    const pb = sb.get(server);
    if (!pb) continue;
    const runs = diffSequences(pa.length, pb.length, (i, j) => a[pa[i]].signature === b[pb[j]].signature);
    for (let r = 0; r < runs.length; ) {
      if (runs[r].op === 'same') {
        for (let i = 0; i < runs[r].count; i++) matched.push([pa[runs[r].a + i], pb[runs[r].b + i]]);
        r++;
        continue;
      }
      // A stretch where the signatures differ: paired by position, the longer side's rest left alone.
      const from = r;
      let removed = 0;
      let added = 0;
      for (; r < runs.length && runs[r].op !== 'same'; r++) {
        if (runs[r].op === 'removed') removed += runs[r].count;
        else added += runs[r].count;
      }
      const ai = runs[from].a;
      const bi = runs[from].b;
      for (let i = 0; i < Math.min(removed, added); i++) matched.push([pa[ai + i], pb[bi + i]]);
    }
  }
  matched.sort((x, y) => x[0] - y[0]);
  const kept = longestIncreasing(matched.map((m) => m[1])).map((i) => matched[i]);
  const out: AlignedPair[] = [];
  let ai = 0;
  let bi = 0;
  const until = (an: number, bn: number) => {
    for (; ai < an; ai++) out.push({ a: ai, b: null });
    for (; bi < bn; bi++) out.push({ a: null, b: bi });
  };
  for (const [pa, pb] of kept) {
    until(pa, pb);
    out.push({ a: pa, b: pb });
    ai = pa + 1;
    bi = pb + 1;
  }
  until(a.length, b.length);
  return out;
}

/** Indices of a longest strictly increasing subsequence of xs (patience sorting; the earliest on ties). */
function longestIncreasing(xs: number[]): number[] {
  const tails: number[] = []; // index into xs of the smallest tail of each length
  const prev = new Int32Array(xs.length).fill(-1);
  for (let i = 0; i < xs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tails[mid]] < xs[i]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const out: number[] = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) out.push(i);
  return out.reverse();
}
