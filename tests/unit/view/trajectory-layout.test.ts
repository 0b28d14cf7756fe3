// The trajectory layout on upstream's own projections (tests/fixtures/trajectory/expected.json: trajectories NeMo
// Gym's collector wrote for producer-shaped lines) and on variants of them, then its guarantees as properties.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { ItemKind, layoutTrajectory, type TrajectoryLayout } from '../../../lib/view/trajectory-layout';
import { readTrajectory, type TrajectoryParts } from '../../../lib/view/trajectory-read';
import { Timing } from '../../../lib/view/trajectory-timing';
import { answerOf, fixtureAnswer, projectedLines } from '../../support/trajectory-fixtures';

const partsOf = (name: string, requested: Record<string, string[]> = {}) => readTrajectory(fixtureAnswer(name, requested))!;
const groupIds = (l: TrajectoryLayout) => [...l.groupOrder].map((g) => l.groups[g].id ?? l.groups[g].kind);
const bandIds = (l: TrajectoryLayout) => l.bands.map((b) => l.groups[b.group].id ?? l.groups[b.group].kind);
const toolItem = (l: TrajectoryLayout, p: TrajectoryParts, id: string) => l.base.toolCall + p.toolCalls.findIndex((t) => t.tool_call_id === id);
const callItem = (l: TrajectoryLayout, p: TrajectoryParts, id: string) => l.base.modelCall + p.modelCalls.findIndex((c) => c.model_call_id === id);
const msAfter = (l: TrajectoryLayout, seconds: number) => (seconds - l.t0!) * 1000;

/** A copy of an upstream line with its trajectory changed by `edit`. */
function variant(name: string, edit: (t: JsonObject, line: JsonObject) => void): JsonObject {
  const line = parsePython(serialize(projectedLines().get(name)!)) as JsonObject; // a deep copy that keeps 1.0 a float
  edit(line.ng_trajectory as JsonObject, line);
  return line;
}

/** producer-project-0 with the main agent owning two calls: cap-2 (1.5–2.5 s) and "unowned", moved to 4.5–5.5 s. */
function twoRootCalls(edit: (line: JsonObject) => void = () => undefined): JsonObject {
  return variant('producer-project-0', (t, line) => {
    const root = (t.invocations as JsonObject[]).find((i) => i.invocation_id === 'session-root')!;
    root.model_calls = [{ model_call_id: 'cap-2', model_ref: null, response_id: null }, { model_call_id: 'unowned', model_ref: null, response_id: null }];
    const later = (t.model_calls as JsonObject[]).find((c) => c.model_call_id === 'unowned')!;
    [later.started_at, later.completed_at] = [4.5, 5.5];
    edit(line);
  });
}

describe('lane groups: the main agent, then each subagent under the tool call that spawned it', () => {
  // upstream's test_extracts_nested_tree_model_refs_and_parallel_tool_timing: root -> child -> grandchild, the refs
  // by (model_ref, response_id) only, as a producer trajectory keeps them
  const p = partsOf('producer-project-0');
  const l = layoutTrajectory(p);

  it('nests depth first, the calls no invocation owns last', () => {
    expect(groupIds(l)).toEqual(['session-root', 'agent-child', 'agent-grandchild', 'unowned']);
    expect([...l.groupOrder].map((g) => l.groups[g].depth)).toEqual([0, 1, 2, 0]);
    const child = l.groups.find((g) => g.id === 'agent-child')!;
    expect(p.toolCalls[child.spawnedBy].tool_call_id).toBe('tool-child');
    expect(l.descendants[l.groupOrder[0]]).toBe(2);
  });

  it('puts each model call in the band of the invocation whose ref names it (by response_id)', () => {
    const bandOf = (id: string) => bandIds(l)[l.band[callItem(l, p, id)]];
    expect(['cap-0', 'cap-1', 'cap-2', 'unowned'].map(bandOf)).toEqual(['agent-child', 'agent-grandchild', 'session-root', 'unowned']);
  });

  it('shows a child whose parent the record lacks as a root that names it', () => {
    const line = variant('producer-project-0', (t) => {
      t.invocations = (t.invocations as JsonObject[]).filter((i) => i.invocation_id !== 'agent-child');
    });
    const q = readTrajectory(answerOf(line))!;
    const m = layoutTrajectory(q);
    // agent-child still runs a tool call, so its lane shows (as "missing"); the grandchild nests under it
    const missing = m.groups.find((g) => g.id === 'agent-child')!;
    expect(missing.kind).toBe('missing');
    expect(m.groups[m.groups.find((g) => g.id === 'agent-grandchild')!.parent]).toBe(missing);
    const orphan = variant('producer-project-0', (t) => {
      t.invocations = (t.invocations as JsonObject[]).filter((i) => i.invocation_id !== 'session-root');
      t.tool_calls = (t.tool_calls as JsonObject[]).filter((c) => c.invocation_id !== 'session-root');
    });
    const o = layoutTrajectory(readTrajectory(answerOf(orphan))!);
    const child = o.groups.find((g) => g.id === 'agent-child')!;
    expect([child.parent, child.depth, child.missingParent]).toEqual([-1, 0, 'session-root']);
  });

  it('shows every group once when a stored record has a parent cycle (which the schema rejects)', () => {
    const line = variant('producer-project-0', (t) => {
      const root = (t.invocations as JsonObject[]).find((i) => i.invocation_id === 'session-root')!;
      root.parent_invocation_id = 'agent-grandchild';
    });
    const m = layoutTrajectory(readTrajectory(answerOf(line))!);
    expect([...m.groupOrder].sort()).toEqual([0, 1, 2, 3]);
    expect(m.bands).toHaveLength(4);
  });

  it('folds a collapsed group and its subagents into one row', () => {
    const root = l.groups.findIndex((g) => g.id === 'session-root');
    const c = layoutTrajectory(p, { collapsed: new Set([root]) });
    expect(bandIds(c)).toEqual(['session-root', 'unowned']);
    const first = c.bands[0].firstRow;
    for (const id of ['cap-0', 'cap-1', 'cap-2']) expect(c.row[callItem(c, p, id)]).toBe(first);
    for (const t of p.toolCalls) expect(c.row[toolItem(c, p, t.tool_call_id)]).toBe(first);
    expect(c.rows).toBe(2);
  });
});

describe('model calls and tool calls at their measured intervals', () => {
  it('draws every measured interval as measured, ms after the earliest instant', () => {
    const p = partsOf('producer-project-0');
    const l = layoutTrajectory(p);
    expect(l.t0).toBe(1.5); // the capture calls' started_at (the fixture's clock)
    const fast = toolItem(l, p, 'tool-fast');
    expect([l.x0[fast], l.x1[fast], l.timing[fast]]).toEqual([msAfter(l, 1784714402), msAfter(l, 1784714403), Timing.measured]);
    const cap = callItem(l, p, 'cap-2');
    expect([l.x0[cap], l.x1[cap]]).toEqual([0, 1000]);
  });

  it('stacks parallel tool calls as rows within their group', () => {
    // test_extracts_parallel_tool_intervals_and_compaction: call-1 1.0–2.0 s and call-2 1.5–2.5 s (failed)
    const p = partsOf('producer-project-33');
    const l = layoutTrajectory(p);
    const band = l.bands.find((b) => l.groups[b.group].id === 'session-1')!;
    expect(band.toolRows).toBe(2);
    const [a, b] = [toolItem(l, p, 'call-1'), toolItem(l, p, 'call-2')];
    expect(new Set([l.row[a], l.row[b]])).toEqual(new Set([band.firstRow, band.firstRow + 1]));
    expect(p.toolCalls[l.src[b]].status).toBe('failed');
    // producer-project-0: Read (2–3 s) beside the Agent call that spawned the child (2–5 s)
    const q = partsOf('producer-project-0');
    const m = layoutTrajectory(q);
    expect(m.row[toolItem(m, q, 'tool-fast')]).not.toBe(m.row[toolItem(m, q, 'tool-child')]);
  });
});

describe('tool calls without measured times', () => {
  // upstream fuzz-project-88: one invocation, one call, three tool calls of which two are unmeasured. The API says
  // which calls' responses requested which tool calls (requested_tools); here the one call asked for all three.
  const name = 'fuzz-project-88';
  const base = partsOf(name);
  const unmeasured = base.toolCalls.filter((t) => t.started_at === null && t.completed_at === null).map((t) => t.tool_call_id);

  it('without a requesting call: listed, not drawn, and given no time', () => {
    expect(unmeasured).toHaveLength(2);
    const l = layoutTrajectory(base);
    for (const id of unmeasured) {
      const i = toolItem(l, base, id);
      expect([l.row[i], l.timing[i]]).toEqual([-1, Timing.unplaced]);
    }
    expect(l.unplaced).toBeGreaterThanOrEqual(2);
    expect([...l.timeOrder].slice(-l.unplaced).map((i) => l.timing[i])).toEqual(new Array(l.unplaced).fill(Timing.unplaced));
  });

  it('between the call that requested it and the next call of its invocation, flagged, stacked when parallel', () => {
    // two calls of invocation "main" 2 s apart; the first requested both unmeasured tool calls
    const line = twoRootCalls((l) => {
      for (const c of (l.ng_trajectory as JsonObject).tool_calls as JsonObject[]) if (c.invocation_id === 'session-root') [c.started_at, c.completed_at, c.duration_ms] = [null, null, null];
    });
    const p = readTrajectory(answerOf(line, { 'cap-2': ['tool-fast', 'tool-child'] }))!;
    const l = layoutTrajectory(p);
    const items = ['tool-fast', 'tool-child'].map((id) => toolItem(l, p, id));
    for (const i of items) {
      expect(l.timing[i]).toBe(Timing.between);
      expect([l.x0[i], l.x1[i]]).toEqual([1000, 3000]); // cap-2 ends at 2.5 s, the next call starts at 4.5 s
      expect(p.modelCalls[l.requesting[l.src[i]]].model_call_id).toBe('cap-2');
      expect(p.modelCalls[l.nextCall[l.src[i]]].model_call_id).toBe('unowned');
    }
    expect(l.row[items[0]]).not.toBe(l.row[items[1]]);
    // the record's own fields are untouched: nothing wrote a time into them
    expect(p.toolCalls.filter((t) => t.invocation_id === 'session-root').every((t) => t.started_at === null && t.completed_at === null && t.duration_ms === null)).toBe(true);
  });
});

describe('compactions and sandbox runs (from ng_agent_observations)', () => {
  it('marks a compaction at its observed_at', () => {
    const p = partsOf('producer-project-33');
    const l = layoutTrajectory(p);
    const c = l.base.compaction;
    expect([l.kind[c], l.x0[c], l.x1[c], l.timing[c]]).toEqual([ItemKind.compaction, msAfter(l, 1750000003), msAfter(l, 1750000003), Timing.measured]);
    expect(bandIds(l)[l.band[c]]).toBe('session-1');
  });

  it('without observed_at: between its before and after calls, linked to them and to the calls that performed it', () => {
    const withCompaction = (compaction: JsonObject) =>
      readTrajectory(
        answerOf(
          twoRootCalls((l) => {
            const bundle = l.ng_agent_observations as JsonObject;
            bundle.records = [...(bundle.records as JsonObject[]), { kind: 'context_compaction', invocation_id: 'session-root', outcome: 'completed', ...compaction }];
          }),
        ),
      )!;
    const p = withCompaction({ before_model_call: { model_call_id: 'cap-2' }, after_model_call: { model_call_id: 'unowned' }, model_calls: [{ model_call_id: 'cap-2' }] });
    const l = layoutTrajectory(p);
    const c = l.base.compaction;
    expect([l.timing[c], l.x0[c], l.x1[c]]).toEqual([Timing.between, 1000, 3000]); // cap-2 ends at 2.5 s, the after call starts at 4.5 s
    const links = l.compactionCalls[0];
    expect([links.before, links.after, ...links.performing].map((i) => p.modelCalls[i].model_call_id)).toEqual(['cap-2', 'unowned', 'cap-2']);
    expect(bandIds(l)[l.band[c]]).toBe('session-root');
    // only the after call: a mark at its start, flagged as not measured; neither call resolves: listed only
    const q = layoutTrajectory(withCompaction({ after_model_call: { model_call_id: 'unowned' } }));
    expect([q.timing[q.base.compaction], q.x0[q.base.compaction]]).toEqual([Timing.partial, 3000]);
    const r = layoutTrajectory(withCompaction({ before_model_call: { model_call_id: 'no-such-call' } }));
    expect([r.timing[r.base.compaction], r.row[r.base.compaction]]).toEqual([Timing.unplaced, -1]);
  });

  it('draws a sandbox over the tool calls that ran in it, else across the run in its own lane', () => {
    const line = variant('producer-project-0', (t, l) => {
      for (const c of t.tool_calls as JsonObject[]) if (c.invocation_id === 'session-root') c.sandbox_id = 'sb-1';
      const sandboxes: JsonObject[] = [
        { kind: 'sandbox', role: 'agent', sandbox_id: 'sb-1', outcome: 'completed', wall_time_s: 4, cpu_time_s: 1.5, peak_memory_mib: 300 },
        { kind: 'sandbox', role: 'verifier', sandbox_id: null, outcome: 'failed', exit_code: 1 },
      ];
      (l.ng_agent_observations as JsonObject).records = [...((l.ng_agent_observations as JsonObject).records as JsonObject[]), ...sandboxes];
    });
    const p = readTrajectory(answerOf(line))!;
    const l = layoutTrajectory(p);
    const [agent, verifier] = [l.base.sandbox, l.base.sandbox + 1];
    expect([l.timing[agent], l.x0[agent], l.x1[agent]]).toEqual([Timing.toolExtent, msAfter(l, 1784714402), msAfter(l, 1784714405)]);
    expect(bandIds(l)[l.band[agent]]).toBe('session-root');
    expect(l.bands[l.band[agent]].sandboxRows).toBe(1);
    expect([l.timing[verifier], bandIds(l)[l.band[verifier]]]).toEqual([Timing.unpositioned, 'run']);
    expect([l.x0[verifier], l.x1[verifier]]).toEqual(l.extent);
  });
});

describe('every upstream projection lays out', () => {
  it('draws each placed item once, in its group, in the outline exactly once', () => {
    for (const [name, line] of projectedLines()) {
      const p = readTrajectory(answerOf(line))!;
      const l = layoutTrajectory(p);
      const n = l.kind.length;
      expect(n, name).toBe(p.compactions.length + p.modelCalls.length + p.toolCalls.length + p.sandboxes.length);
      expect(new Set(l.timeOrder).size, name).toBe(n);
      for (let i = 0; i < n; i++) {
        if (l.timing[i] === Timing.unplaced) expect(l.row[i], name).toBe(-1);
        else expect(l.row[i] >= l.bands[l.band[i]].firstRow && l.row[i] < l.bands[l.band[i]].firstRow + l.bands[l.band[i]].rows, name).toBe(true);
      }
    }
  });
});
