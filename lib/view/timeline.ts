// The Gantt layout of a rollout's calls: one bar per call from its start to its end, packed into rows.
//
// Guarantees of `layoutTimeline`:
// - No overlap: two bars in the same row never overlap in time (a bar may start exactly where the previous
//   one ends, or `minGapMs` later when a gap is asked for).
// - Optimal and grouped: bars are packed per group (model server), groups stacked in order; within a group
//   the number of rows is the largest number of that group's calls in flight at one instant.
// - Top-first: a bar takes the lowest-numbered row that is free at its start.
// - Deterministic: the result depends only on the input; ties are broken by call index.
// - O(n log n): one sort and two binary heaps.
// Calls without a start are not placed (row -1) and counted; a call without an end is drawn with its latency,
// or as a zero-width mark.
import { MinHeap } from '../util/min-heap';

export interface TimelineInput {
  /** Start and end in ms (any origin); null (or NaN) when unknown. */
  start: ArrayLike<number | null>;
  end: ArrayLike<number | null>;
  latency: ArrayLike<number | null>;
  /** Group of each call (0-based, e.g. the model server); groups are laid out in ascending order. */
  group: ArrayLike<number>;
  /** Tie-breaker, normally the call index. */
  order: ArrayLike<number>;
}

export interface TimelineLayout {
  /** Row of each call, or -1 when the call has no start. */
  row: Int32Array;
  /** Start and end (ms) as drawn: end >= start. */
  x0: Float64Array;
  x1: Float64Array;
  rows: number;
  /** For each group present: its first row and number of rows. */
  groups: { group: number; firstRow: number; rows: number }[];
  /** The placed calls by group, then start: within one row, bars come left to right. */
  order: Int32Array;
  /** Time extent over the placed calls, or null when none is placed. */
  extent: [number, number] | null;
  unplaced: number;
}

export function layoutTimeline(input: TimelineInput, minGapMs = 0): TimelineLayout {
  const n = input.start.length;
  const row = new Int32Array(n).fill(-1);
  const x0 = new Float64Array(n);
  const x1 = new Float64Array(n);
  const placed: number[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const s = input.start[i];
    if (s === null || !Number.isFinite(s)) continue;
    const e = input.end[i];
    const lat = input.latency[i];
    const end = e !== null && Number.isFinite(e) ? e : lat !== null && Number.isFinite(lat) ? s + lat : s;
    x0[i] = s;
    x1[i] = Math.max(s, end);
    lo = Math.min(lo, s);
    hi = Math.max(hi, x1[i]);
    placed.push(i);
  }
  const { group: groupOf, order } = input;
  placed.sort((a, b) => groupOf[a] - groupOf[b] || x0[a] - x0[b] || x1[a] - x1[b] || order[a] - order[b] || a - b);

  const groups: TimelineLayout['groups'] = [];
  let next = 0;
  while (next < placed.length) {
    const group = groupOf[placed[next]];
    const firstRow = groups.length ? groups[groups.length - 1].firstRow + groups[groups.length - 1].rows : 0;
    const rowEnd = new Float64Array(placed.length - next);
    let rowCount = 0;
    // Busy rows by the time they free up (then by number), free rows by number.
    const busy = new MinHeap<number>((a, b) => rowEnd[a] < rowEnd[b] || (rowEnd[a] === rowEnd[b] && a < b));
    const free = new MinHeap<number>((a, b) => a < b);
    for (; next < placed.length && groupOf[placed[next]] === group; next++) {
      const i = placed[next];
      while (busy.size && rowEnd[busy.peek()!] + minGapMs <= x0[i]) free.push(busy.pop()!);
      const r = free.size ? free.pop()! : rowCount++;
      rowEnd[r] = x1[i];
      busy.push(r);
      row[i] = firstRow + r;
    }
    groups.push({ group, firstRow, rows: rowCount });
  }
  const rows = groups.length ? groups[groups.length - 1].firstRow + groups[groups.length - 1].rows : 0;
  return { row, x0, x1, rows, groups, order: Int32Array.from(placed), extent: placed.length ? [lo, hi] : null, unplaced: n - placed.length };
}

export type CallMark = 'ok' | 'error' | 'truncated';

/** How a call's bar is marked: a truncated or incomplete stream, any other error, or nothing. */
export function callMark(errorCategory: string | null): CallMark {
  if (errorCategory === null) return 'ok';
  return errorCategory === 'stream_truncated' || errorCategory === 'incomplete' ? 'truncated' : 'error';
}
