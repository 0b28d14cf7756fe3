// The trajectory's timeline layout: the one function that turns a rollout's trajectory into what the rollout page
// draws and lists. Items are compactions, model calls, tool calls and sandbox runs, in flat typed arrays.
//
// Guarantees of `layoutTrajectory`:
// - Lane groups: one band per visible group (lib/view/trajectory-groups.ts), depth first, each subagent under the
//   invocation that spawned it, siblings by the start of their spawning tool call (else their first item); groups of
//   calls without an owner and of unplaced sandboxes come last. A collapsed group is one row holding its own and its
//   descendants' items; its descendants have no band.
// - Within a band: model-call rows, then tool-call rows, then sandbox rows, each kind packed as lib/view/timeline.ts
//   packs calls (no overlap in a row, the fewest rows, top first), so parallel tool calls stack as rows.
// - No invented times: an item is drawn over what was measured (lib/view/trajectory-timing.ts). A tool call without
//   measured times sits between the call that requested it and the next call of that invocation (`Timing.between`),
//   else it is listed only; a compaction sits at observed_at, else between its before and after calls; a sandbox
//   spans its tool calls' measured intervals, else the whole run in a hatched lane.
// - Deterministic, O(n log n) in the number of items: sorts, maps and the packing's heaps.
import { layoutTimeline } from './timeline';
import { collectGroups, parentsOf, type LaneGroup } from './trajectory-groups';
import { placeCompactions, placeSandboxes } from './trajectory-marks';
import { toolNeighbourFinder } from './trajectory-neighbours';
import type { TrajectoryParts } from './trajectory-read';
import { callOwners, callRefIndex } from './trajectory-refs';
import { drawnSpans, Timing, type DrawnSpans } from './trajectory-timing';
import { groupTree } from './trajectory-tree';

export const ItemKind = { compaction: 0, modelCall: 1, toolCall: 2, sandbox: 3 } as const;
export type ItemKind = (typeof ItemKind)[keyof typeof ItemKind];

export interface Band {
  group: number;
  firstRow: number;
  rows: number;
  collapsed: boolean;
  /** Rows of each lane kind inside the band (0 when collapsed). */
  modelRows: number;
  toolRows: number;
  sandboxRows: number;
}

export interface TrajectoryLayout {
  /** The time origin, in the record's seconds; null when nothing is measured. Item times are ms after it. */
  t0: number | null;
  groups: LaneGroup[];
  /** Groups depth first. */
  groupOrder: Int32Array;
  /** Number of groups under each group (all depths). */
  descendants: Int32Array;
  bands: Band[];
  rows: number;
  /** Per item: its kind and its position in that kind's list of the parts. */
  kind: Uint8Array;
  src: Int32Array;
  /** Per item: its group, and the band it is drawn in (-1 when the item is not drawn). */
  group: Int32Array;
  band: Int32Array;
  /** Per item: row (-1 when not drawn), start and end in ms after t0 (end >= start), how its time is known. */
  row: Int32Array;
  x0: Float64Array;
  x1: Float64Array;
  timing: Uint8Array;
  /** Where each kind's items begin in the item arrays. */
  base: Record<'compaction' | 'modelCall' | 'toolCall' | 'sandbox', number>;
  /** Every item in time order (the outline's order); items without a time last. */
  timeOrder: Int32Array;
  extent: [number, number] | null;
  /** Items that have no position and are not drawn. */
  unplaced: number;
  /** Per tool call: the model call that requested it and the next call of its invocation (positions, -1). */
  requesting: Int32Array;
  nextCall: Int32Array;
  /** Per compaction: its before and after calls and the calls that performed it (positions in modelCalls). */
  compactionCalls: { before: number; after: number; performing: number[] }[];
}

export interface LayoutOptions {
  /** Groups shown as one row (their descendants folded into it). */
  collapsed?: ReadonlySet<number>;
}

const LANE = { [ItemKind.modelCall]: 0, [ItemKind.toolCall]: 1, [ItemKind.sandbox]: 2 } as Record<number, number>;

export function layoutTrajectory(parts: TrajectoryParts, opts: LayoutOptions = {}): TrajectoryLayout {
  const nc = parts.compactions.length;
  const nm = parts.modelCalls.length;
  const nt = parts.toolCalls.length;
  const base = { compaction: 0, modelCall: nc, toolCall: nc + nm, sandbox: nc + nm + nt };
  const n = base.sandbox + parts.sandboxes.length;
  const kind = new Uint8Array(n);
  const src = new Int32Array(n);
  const group = new Int32Array(n).fill(-1);
  const x0 = new Float64Array(n);
  const x1 = new Float64Array(n);
  const timing = new Uint8Array(n).fill(Timing.unplaced);
  const fill = (from: number, count: number, k: ItemKind) => {
    for (let j = 0; j < count; j++) {
      kind[from + j] = k;
      src[from + j] = j;
    }
  };
  fill(base.compaction, nc, ItemKind.compaction);
  fill(base.modelCall, nm, ItemKind.modelCall);
  fill(base.toolCall, nt, ItemKind.toolCall);
  fill(base.sandbox, parts.sandboxes.length, ItemKind.sandbox);

  // Measured spans in seconds; t0 is the earliest measured instant.
  const calls = drawnSpans(parts.modelCalls);
  const tools = drawnSpans(parts.toolCalls);
  let t0 = Infinity;
  for (const spans of [calls, tools]) for (const s of spans.start) if (s < t0) t0 = s; // NaN never is
  for (const c of parts.compactions) if (c.observed_at !== null && Number.isFinite(c.observed_at)) t0 = Math.min(t0, c.observed_at);
  const origin = Number.isFinite(t0) ? t0 : null;
  const ms = (s: number) => (s - (origin ?? 0)) * 1000;
  const place = (from: number, spans: DrawnSpans) => {
    for (let j = 0; j < spans.timing.length; j++) {
      if (Number.isNaN(spans.start[j])) continue;
      x0[from + j] = ms(spans.start[j]);
      x1[from + j] = Math.max(x0[from + j], ms(spans.end[j]));
      timing[from + j] = spans.timing[j];
    }
  };
  place(base.modelCall, calls);
  place(base.toolCall, tools);

  // Groups and ownership.
  const index = collectGroups(parts);
  const refs = callRefIndex(parts.modelCalls);
  const owners = callOwners(parts, refs);
  const invocationGroup = (k: number) => index.groupOf(parts.invocations[k].invocation_id);
  for (let i = 0; i < nm; i++) group[base.modelCall + i] = owners[i] >= 0 ? invocationGroup(owners[i]) : index.unowned();
  parts.toolCalls.forEach((t, j) => (group[base.toolCall + j] = index.groupOf(t.invocation_id)));

  // Tool calls without measured times: between the call that requested them and the next call.
  const firstInvocation = new Map<string, number>();
  parts.invocations.forEach((inv, k) => firstInvocation.has(inv.invocation_id) || firstInvocation.set(inv.invocation_id, k));
  const neighbours = toolNeighbourFinder(parts, owners, (id) => firstInvocation.get(id) ?? -1, calls);
  const requesting = new Int32Array(nt).fill(-1);
  const nextCall = new Int32Array(nt).fill(-1);
  parts.toolCalls.forEach((t, j) => {
    const nb = neighbours(t);
    requesting[j] = nb.requesting;
    nextCall[j] = nb.after;
    const item = base.toolCall + j;
    if (timing[item] !== Timing.unplaced || nb.requesting < 0 || timing[base.modelCall + nb.requesting] === Timing.unplaced) return;
    const from = x1[base.modelCall + nb.requesting];
    const next = nb.after >= 0 && timing[base.modelCall + nb.after] !== Timing.unplaced ? x0[base.modelCall + nb.after] : from;
    [x0[item], x1[item], timing[item]] = [from, Math.max(from, next), Timing.between];
  });

  const compactionCalls = placeCompactions(parts, refs, { base: base.compaction, x0, x1, timing, group, groupOf: index.groupOf, callItem: (i) => base.modelCall + i, ms });
  let extent = extentOf(x0, x1, timing, n);
  placeSandboxes(parts, { base: base.sandbox, toolBase: base.toolCall, x0, x1, timing, group, run: index.run, extent });
  extent = extentOf(x0, x1, timing, n) ?? extent;

  // Nesting: siblings by their spawning tool call's start, else their first item.
  const toolsById = new Map<string, number[]>();
  parts.toolCalls.forEach((t, j) => {
    const at = toolsById.get(t.tool_call_id);
    if (at) at.push(j);
    else toolsById.set(t.tool_call_id, [j]);
  });
  const groups = index.groups;
  const parents = parentsOf(index, parts, toolsById);
  const firstAt = new Float64Array(groups.length).fill(Infinity);
  for (let i = 0; i < n; i++) if (group[i] >= 0 && timing[i] !== Timing.unplaced && timing[i] !== Timing.unpositioned) firstAt[group[i]] = Math.min(firstAt[group[i]], x0[i]);
  const startOf = (g: number) => {
    const t = groups[g].spawnedBy;
    return t >= 0 && timing[base.toolCall + t] !== Timing.unplaced ? x0[base.toolCall + t] : firstAt[g];
  };
  const rank = (g: number) => (groups[g].kind === 'unowned' ? 1 : groups[g].kind === 'run' ? 2 : 0);
  const earlier = (a: number, b: number) => (a === b ? 0 : a < b ? -1 : 1); // Infinity (no time) last
  const tree = groupTree(parents, (a, b) => rank(a) - rank(b) || earlier(startOf(a), startOf(b)) || a - b);
  groups.forEach((g, k) => [g.parent, g.depth] = [tree.parent[k], tree.depth[k]]);
  const descendants = new Int32Array(groups.length);
  for (let k = tree.order.length - 1; k >= 0; k--) {
    const g = tree.order[k];
    if (tree.parent[g] >= 0) descendants[tree.parent[g]] += descendants[g] + 1;
  }

  const { bands, band, row, rows } = packBands(tree.order, tree.parent, opts.collapsed ?? new Set(), { n, kind, group, x0, x1, timing });
  // the outline: items by their start; then those drawn across the run without a time (unpositioned sandboxes); then
  // those with no position at all
  const rankOf = (i: number) => (timing[i] === Timing.unplaced ? 2 : timing[i] === Timing.unpositioned ? 1 : 0);
  const timeOrder = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => rankOf(a) - rankOf(b) || (rankOf(a) ? 0 : x0[a] - x0[b]) || kind[a] - kind[b] || src[a] - src[b]);
  let unplaced = 0;
  for (let i = 0; i < n; i++) if (timing[i] === Timing.unplaced) unplaced++;
  return { t0: origin, groups, groupOrder: tree.order, descendants, bands, rows, kind, src, group, band, row, x0, x1, timing, base, timeOrder, extent, unplaced, requesting, nextCall, compactionCalls };
}

function extentOf(x0: Float64Array, x1: Float64Array, timing: Uint8Array, n: number): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    if (timing[i] === Timing.unplaced || timing[i] === Timing.unpositioned) continue;
    lo = Math.min(lo, x0[i]);
    hi = Math.max(hi, x1[i]);
  }
  return lo <= hi ? [lo, hi] : null;
}

interface Items {
  n: number;
  kind: Uint8Array;
  group: Int32Array;
  x0: Float64Array;
  x1: Float64Array;
  timing: Uint8Array;
}

/** Bands of the visible groups and each item's row: one packing of every lane of every expanded band. */
function packBands(order: Int32Array, parent: Int32Array, collapsed: ReadonlySet<number>, it: Items) {
  // the band each group is drawn in: its own, or its nearest collapsed ancestor's
  const bandOf = new Int32Array(parent.length).fill(-1);
  const shownGroups: number[] = [];
  for (const g of order) {
    const p = parent[g];
    const folded = p >= 0 && (collapsed.has(p) || (bandOf[p] >= 0 && shownGroups[bandOf[p]] !== p));
    if (folded) bandOf[g] = bandOf[p];
    else {
      bandOf[g] = shownGroups.length;
      shownGroups.push(g);
    }
  }
  const band = new Int32Array(it.n).fill(-1);
  const packed = new Int32Array(it.n).fill(-1); // composite lane of a packed item
  const start = new Float64Array(it.n).fill(Number.NaN); // NaN: not packed
  const end = new Float64Array(it.n).fill(Number.NaN);
  for (let i = 0; i < it.n; i++) {
    if (it.group[i] < 0 || it.timing[i] === Timing.unplaced) continue;
    band[i] = bandOf[it.group[i]];
    if (it.kind[i] === ItemKind.compaction || collapsed.has(shownGroups[band[i]])) continue;
    packed[i] = band[i] * 3 + LANE[it.kind[i]];
    start[i] = it.x0[i];
    end[i] = it.x1[i];
  }
  const lanes = layoutTimeline({ start, end, latency: end, group: packed, order: Int32Array.from({ length: it.n }, (_, i) => i) });
  const laneRows = new Map(lanes.groups.map((g) => [g.group, g]));
  const bands: Band[] = [];
  let next = 0;
  shownGroups.forEach((g, b) => {
    const [m, t, s] = [0, 1, 2].map((k) => laneRows.get(b * 3 + k)?.rows ?? 0);
    const isCollapsed = collapsed.has(g);
    const rows = isCollapsed ? 1 : Math.max(1, m + t + s);
    bands.push({ group: g, firstRow: next, rows, collapsed: isCollapsed, modelRows: isCollapsed ? 0 : m, toolRows: isCollapsed ? 0 : t, sandboxRows: isCollapsed ? 0 : s });
    next += rows;
  });
  const row = new Int32Array(it.n).fill(-1);
  for (let i = 0; i < it.n; i++) {
    if (band[i] < 0) continue;
    const b = bands[band[i]];
    if (packed[i] < 0) {
      row[i] = b.firstRow;
      continue;
    }
    const lane = packed[i] % 3;
    const offset = lane === 0 ? 0 : lane === 1 ? b.modelRows : b.modelRows + b.toolRows;
    row[i] = b.firstRow + offset + (lanes.row[i] - laneRows.get(packed[i])!.firstRow);
  }
  return { bands, band, row, rows: next };
}
