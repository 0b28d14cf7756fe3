// The lane groups of a trajectory: one per invocation of the record, one per invocation id that tool calls or
// compactions name but the record lacks ("missing"), one for model calls no invocation owns, and one for sandbox
// runs no tool call places ("run"). Each invocation nests under its parent (parent_invocation_id when the record
// has that invocation, else the invocation that ran the tool call which spawned it); a parent the record does not
// have leaves its child a root that says which parent it names.
import type { TrajectoryParts } from './trajectory-read';

export type LaneGroupKind = 'invocation' | 'missing' | 'unowned' | 'run';

export interface LaneGroup {
  kind: LaneGroupKind;
  /** The invocation id (invocation and missing groups). */
  id: string | null;
  /** Position in `invocations`, or -1. */
  invocation: number;
  /** Parent group, -1 for a root. */
  parent: number;
  depth: number;
  /** The tool call (position in `toolCalls`) that spawned it, or -1. */
  spawnedBy: number;
  /** A parent_invocation_id that names no invocation of the record. */
  missingParent: string | null;
}

export interface GroupIndex {
  groups: LaneGroup[];
  /** The group of an invocation id, or -1. */
  groupOf: (invocationId: string) => number;
  unowned: () => number;
  run: () => number;
}

/** The groups before nesting (parent and depth are filled in by the layout, once it knows their times). */
export function collectGroups(parts: Pick<TrajectoryParts, 'invocations' | 'toolCalls' | 'compactions'>): GroupIndex {
  const groups: LaneGroup[] = [];
  const byId = new Map<string, number>();
  const add = (kind: LaneGroupKind, id: string | null, invocation: number) => {
    groups.push({ kind, id, invocation, parent: -1, depth: 0, spawnedBy: -1, missingParent: null });
    if (id !== null) byId.set(id, groups.length - 1);
    return groups.length - 1;
  };
  // a duplicated invocation id (which the schema rejects) is drawn once, as its first entry
  parts.invocations.forEach((inv, k) => byId.has(inv.invocation_id) || add('invocation', inv.invocation_id, k));
  for (const t of parts.toolCalls) if (!byId.has(t.invocation_id)) add('missing', t.invocation_id, -1);
  for (const c of parts.compactions) if (!byId.has(c.invocation_id)) add('missing', c.invocation_id, -1);
  let unowned = -1;
  let run = -1;
  return {
    groups,
    groupOf: (id) => byId.get(id) ?? -1,
    unowned: () => (unowned >= 0 ? unowned : (unowned = add('unowned', null, -1))),
    run: () => (run >= 0 ? run : (run = add('run', null, -1))),
  };
}

/**
 * Each group's parent before cycles are cut, and the tool call that spawned it. `toolsById` lists the positions of
 * the tool calls with each tool_call_id.
 */
export function parentsOf(index: GroupIndex, parts: Pick<TrajectoryParts, 'invocations' | 'toolCalls'>, toolsById: Map<string, number[]>): Int32Array {
  const parent = new Int32Array(index.groups.length).fill(-1);
  index.groups.forEach((g, k) => {
    if (g.invocation < 0) return;
    const inv = parts.invocations[g.invocation];
    const named = inv.parent_invocation_id;
    const spawners = inv.spawned_by_tool_call_id ? (toolsById.get(inv.spawned_by_tool_call_id) ?? []) : [];
    let p = named !== null ? index.groupOf(named) : -1;
    if (named !== null && p < 0) g.missingParent = named;
    if (named === null) {
      // no parent named: the invocation that ran its spawning tool call, when exactly one did
      const owners = new Set(spawners.map((t) => index.groupOf(parts.toolCalls[t].invocation_id)).filter((o) => o !== k));
      if (owners.size === 1) p = [...owners][0];
    }
    parent[k] = p === k ? -1 : p;
    const spawner = spawners.find((t) => p >= 0 && index.groupOf(parts.toolCalls[t].invocation_id) === p) ?? (spawners.length === 1 ? spawners[0] : -1);
    g.spawnedBy = spawner;
  });
  return parent;
}
