// Hover hit-testing for the timeline: an R-tree (flatbush) over the bars in data units (x in ms, y in rows),
// so finding the bar under the pointer costs microseconds even with 30,000 bars.
import Flatbush from 'flatbush';
import type { TimelineLayout } from '@/lib/view/timeline';

/** What hit-testing reads of a layout: each item's row and drawn interval (the call and trajectory timelines both). */
export type PlacedItems = Pick<TimelineLayout, 'row' | 'x0' | 'x1' | 'rows'>;

export interface HitIndex {
  tree: Flatbush | null;
  /** Call position of each tree item. */
  ids: Int32Array;
}

export function buildHitIndex(layout: PlacedItems): HitIndex {
  const placed: number[] = [];
  for (let i = 0; i < layout.row.length; i++) if (layout.row[i] >= 0) placed.push(i);
  if (!placed.length) return { tree: null, ids: new Int32Array(0) };
  const tree = new Flatbush(placed.length);
  for (const i of placed) tree.add(layout.x0[i], layout.row[i], layout.x1[i], layout.row[i] + 1);
  tree.finish();
  return { tree, ids: Int32Array.from(placed) };
}

/** The call whose bar in `row` is nearest to time `x` within `toleranceMs`, or -1. */
export function hitTest(index: HitIndex, layout: PlacedItems, x: number, row: number, toleranceMs: number): number {
  if (!index.tree || row < 0 || row >= layout.rows) return -1;
  let best = -1;
  let bestDistance = Infinity;
  for (const item of index.tree.search(x - toleranceMs, row + 0.25, x + toleranceMs, row + 0.75)) {
    const i = index.ids[item];
    const d = x < layout.x0[i] ? layout.x0[i] - x : x > layout.x1[i] ? x - layout.x1[i] : 0;
    if (d < bestDistance || (d === bestDistance && i < best)) {
      best = i;
      bestDistance = d;
    }
  }
  return best;
}
