// The interval a trajectory entry was measured over, from what it records: started_at / completed_at (Unix seconds)
// and duration_ms. Two of the three fix the interval; one end alone fixes an instant; a duration alone or nothing
// fixes no position at all. Nothing is guessed: what the entry does not record stays unknown.

/** How an item's position on the time axis is known. */
export const Timing = {
  /** Both ends measured (or one end and the duration). */
  measured: 0,
  /** One end measured, the other not: drawn as a mark at the known instant. */
  partial: 1,
  /** Not measured: drawn between the calls it sits between (a tool call: its requesting call and the next). */
  between: 2,
  /** Not measured and nothing to place it by: listed, not drawn. */
  unplaced: 3,
  /** A sandbox drawn over the measured intervals of the tool calls that ran in it. */
  toolExtent: 4,
  /** A sandbox whose time nothing records: drawn across the run in its own lane, hatched. */
  unpositioned: 5,
} as const;
export type Timing = (typeof Timing)[keyof typeof Timing];

export interface Measured {
  /** Seconds (the record's clock); null when unknown. */
  start: number | null;
  end: number | null;
  timing: Timing;
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

export function measuredInterval(startedAt: number | null, completedAt: number | null, durationMs: number | null): Measured {
  const s = finite(startedAt) ? startedAt : null;
  const e = finite(completedAt) ? completedAt : null;
  const d = finite(durationMs) && durationMs >= 0 ? durationMs / 1000 : null;
  if (s !== null && e !== null) return e >= s ? { start: s, end: e, timing: Timing.measured } : { start: s, end: null, timing: Timing.partial };
  if (s !== null && d !== null) return { start: s, end: s + d, timing: Timing.measured };
  if (e !== null && d !== null) return { start: e - d, end: e, timing: Timing.measured };
  if (s !== null) return { start: s, end: null, timing: Timing.partial };
  if (e !== null) return { start: null, end: e, timing: Timing.partial };
  return { start: null, end: null, timing: Timing.unplaced };
}

/** Where a mark or bar starts and ends, in seconds: a partial interval is its known instant. */
export function drawnSpan(m: Measured): [number, number] | null {
  if (m.timing === Timing.measured) return [m.start!, m.end!];
  if (m.timing === Timing.partial) {
    const at = (m.start ?? m.end)!;
    return [at, at];
  }
  return null;
}

export interface DrawnSpans {
  /** Seconds; NaN where the entry has no position. A partial interval is its known instant. */
  start: Float64Array;
  end: Float64Array;
  timing: Uint8Array;
}

/** The drawn spans of a list of entries (model calls or tool calls), in flat arrays. */
export function drawnSpans(entries: readonly { started_at: number | null; completed_at: number | null; duration_ms: number | null }[]): DrawnSpans {
  const n = entries.length;
  const out = { start: new Float64Array(n).fill(Number.NaN), end: new Float64Array(n).fill(Number.NaN), timing: new Uint8Array(n) };
  for (let i = 0; i < n; i++) {
    const m = measuredInterval(entries[i].started_at, entries[i].completed_at, entries[i].duration_ms);
    out.timing[i] = m.timing;
    if (m.timing === Timing.measured) [out.start[i], out.end[i]] = [m.start!, m.end!];
    else if (m.timing === Timing.partial) out.start[i] = out.end[i] = (m.start ?? m.end)!;
  }
  return out;
}
