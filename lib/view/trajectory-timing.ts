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
