import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callMark, layoutTimeline, type TimelineInput } from '../../../lib/view/timeline';
import { minRows } from '../../support/interval-rows';

function input(bars: { s: number | null; e: number | null; g?: number; lat?: number | null }[]): TimelineInput {
  return {
    start: bars.map((b) => b.s),
    end: bars.map((b) => b.e),
    latency: bars.map((b) => b.lat ?? null),
    group: bars.map((b) => b.g ?? 0),
    order: bars.map((_, i) => i),
  };
}

describe('layoutTimeline', () => {
  it('draws one call as one bar in one row', () => {
    const l = layoutTimeline(input([{ s: 10, e: 20 }]));
    expect([...l.row]).toEqual([0]);
    expect(l.rows).toBe(1);
    expect(l.extent).toEqual([10, 20]);
  });

  it('puts sequential calls in one row and concurrent ones in the lowest free row', () => {
    const l = layoutTimeline(input([{ s: 0, e: 10 }, { s: 10, e: 20 }, { s: 5, e: 15 }, { s: 16, e: 30 }, { s: 21, e: 22 }]));
    expect([...l.row]).toEqual([0, 0, 1, 1, 0]);
    expect(l.rows).toBe(2);
  });

  it('packs each group in its own band of rows, groups in ascending order', () => {
    const l = layoutTimeline(input([{ s: 0, e: 10, g: 1 }, { s: 0, e: 10, g: 0 }, { s: 5, e: 8, g: 1 }]));
    expect([...l.row]).toEqual([1, 0, 2]);
    expect(l.groups).toEqual([
      { group: 0, firstRow: 0, rows: 1 },
      { group: 1, firstRow: 1, rows: 2 },
    ]);
  });

  it('leaves calls without a start unplaced and draws a missing end from the latency, or as a mark', () => {
    const l = layoutTimeline(input([{ s: null, e: 5 }, { s: 0, e: null, lat: 7 }, { s: 3, e: null }, { s: 4, e: 2 }]));
    expect(l.row[0]).toBe(-1);
    expect(l.unplaced).toBe(1);
    expect([l.x0[1], l.x1[1]]).toEqual([0, 7]);
    expect([l.x0[2], l.x1[2]]).toEqual([3, 3]);
    expect([l.x0[3], l.x1[3]]).toEqual([4, 4]); // an end before the start is drawn as a mark
  });

  it('keeps a minimum gap between bars of a row when asked', () => {
    expect([...layoutTimeline(input([{ s: 0, e: 10 }, { s: 10, e: 20 }]), 1).row]).toEqual([0, 1]);
    expect([...layoutTimeline(input([{ s: 0, e: 10 }, { s: 11, e: 20 }]), 1).row]).toEqual([0, 0]);
  });

  it('returns an empty layout for no calls', () => {
    const l = layoutTimeline(input([]));
    expect(l).toMatchObject({ rows: 0, groups: [], extent: null, unplaced: 0 });
  });

  const bars = fc.array(
    fc.record({ s: fc.integer({ min: 0, max: 1000 }), d: fc.integer({ min: 0, max: 200 }), g: fc.integer({ min: 0, max: 2 }) }),
    { maxLength: 200 },
  );

  it('never overlaps two bars of a row, and uses exactly as many rows as the peak concurrency per group', () => {
    // Includes the shrunk case of zero-width marks touching bars: [{ s: 6, d: 1 }, { s: 6, d: 0 }] fits in one row.
    fc.assert(
      fc.property(bars, (bs) => {
        const l = layoutTimeline(input(bs.map((b) => ({ s: b.s, e: b.s + b.d, g: b.g }))));
        const byRow = new Map<number, number[]>();
        bs.forEach((_, i) => byRow.set(l.row[i], [...(byRow.get(l.row[i]) ?? []), i]));
        for (const members of byRow.values()) {
          const sorted = members.sort((a, b) => l.x0[a] - l.x0[b]);
          for (let a = 0; a < sorted.length; a++) {
            for (let b = a + 1; b < sorted.length; b++) if (l.x0[sorted[a]] < l.x1[sorted[b]] && l.x0[sorted[b]] < l.x1[sorted[a]]) return false;
          }
          if (new Set(members.map((i) => bs[i].g)).size !== 1) return false;
        }
        for (const g of l.groups) {
          const idx = bs.map((_, i) => i).filter((i) => bs[i].g === g.group);
          if (g.rows !== minRows(idx.map((i) => l.x0[i]), idx.map((i) => l.x1[i]))) return false;
          if (idx.some((i) => l.row[i] < g.firstRow || l.row[i] >= g.firstRow + g.rows)) return false;
        }
        return true;
      }),
      { numRuns: 500, examples: [[[{ s: 6, d: 1, g: 0 }, { s: 6, d: 0, g: 0 }]]] },
    );
  });

  it('is deterministic: the same calls in any input order get the same rows', () => {
    fc.assert(
      fc.property(bars, fc.integer(), (bs, seed) => {
        const calls = bs.map((b, i) => ({ ...b, i }));
        const shuffled = [...calls].sort((a, b) => ((a.i * 7919 + seed) % 101) - ((b.i * 7919 + seed) % 101) || a.i - b.i);
        const rowsOf = (list: typeof calls) => {
          const l = layoutTimeline({ ...input(list.map((b) => ({ s: b.s, e: b.s + b.d, g: b.g }))), order: list.map((b) => b.i) });
          return new Map(list.map((b, k) => [b.i, l.row[k]]));
        };
        const a = rowsOf(calls);
        const b = rowsOf(shuffled);
        return calls.every((c) => a.get(c.i) === b.get(c.i));
      }),
    );
  });

  it('lays out 30,000 overlapping calls: every call placed, no two bars of a row overlap', () => {
    const n = 30_000;
    const s = Array.from({ length: n }, (_, i) => (i * 997) % 100_000);
    const end = s.map((v, i) => v + 200 + (i % 50) * 40);
    const l = layoutTimeline({ start: s, end, latency: s.map(() => null), group: s.map((_, i) => i % 3), order: s.map((_, i) => i) });
    expect(l.unplaced).toBe(0);
    const byRow = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      expect(l.row[i]).toBeGreaterThanOrEqual(0);
      byRow.set(l.row[i], [...(byRow.get(l.row[i]) ?? []), i]);
    }
    for (const calls of byRow.values()) {
      calls.sort((a, b) => l.x0[a] - l.x0[b]);
      for (let k = 1; k < calls.length; k++) expect(l.x0[calls[k]]).toBeGreaterThanOrEqual(l.x1[calls[k - 1]]);
    }
  });
});

describe('callMark', () => {
  it('marks truncated and incomplete streams apart from other errors', () => {
    expect(callMark(null)).toBe('ok');
    expect(callMark('stream_truncated')).toBe('truncated');
    expect(callMark('incomplete')).toBe('truncated');
    expect(callMark('rate_limit')).toBe('error');
  });
});
