// The index's trajectory summary (lib/rollouts/trajectory-summary.ts) must count what the trajectory holds: for a
// line with observations and no ng_trajectory, what NeMo Gym's projection (buildTrajectoryRecord, pinned to
// upstream by trajectory-conformance.test.ts) produces; for a stored one, the stored record. Random bundles with
// repeated tool observations (merge by (invocation_id, tool_call_id), `unknown` never overwriting a known status),
// nested and dangling parents, measured and unmeasured intervals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../support/fc-seed';
import { numericValue, type JsonObject } from '@/lib/capture/json-value';
import { validateBundle } from '@/lib/rollouts/observations';
import { buildTrajectoryRecord } from '@/lib/rollouts/projection';
import { subagentDepth, trajectorySummary } from '@/lib/rollouts/trajectory-summary';

const invIds = ['main', 'sub-a', 'sub-b', 'sub-c'];
const statuses = ['completed', 'failed', 'timeout', 'cancelled', 'incomplete', 'unknown'];
const toolArb = fc.record({
  invocation_id: fc.constantFrom(...invIds),
  tool_call_id: fc.constantFrom('t0', 't1', 't2', 't3'),
  tool_name: fc.option(fc.constantFrom('Bash', 'Read', 'Task'), { nil: undefined }),
  status: fc.constantFrom(...statuses),
  timing: fc.option(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 5000 })), { nil: undefined }),
  measuredBy: fc.constantFrom('duration', 'interval', 'both'),
});
const bundleArb = fc
  .record({
    parents: fc.array(fc.option(fc.constantFrom('main', 'sub-a', 'sub-b', 'elsewhere'), { nil: null }), { minLength: 4, maxLength: 4 }),
    invocations: fc.integer({ min: 1, max: 4 }),
    tools: fc.array(toolArb, { maxLength: 12 }),
    compactions: fc.integer({ min: 0, max: 2 }),
    sandboxes: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ parents, invocations, tools, compactions, sandboxes }) => {
    const records: JsonObject[] = [];
    for (let i = 0; i < invocations; i++) {
      // a chain only towards earlier ids, so that there is no cycle (validation rejects cycles)
      const parent = i === 0 ? null : parents[i] !== null && invIds.indexOf(parents[i]!) < i ? parents[i] : parents[i] === 'elsewhere' ? 'elsewhere' : null;
      records.push({ kind: 'agent_invocation', invocation_id: invIds[i], parent_invocation_id: parent, model_calls: [], conversation: [] });
    }
    for (const t of tools) {
      const r: JsonObject = { kind: 'tool_call', invocation_id: t.invocation_id, tool_call_id: t.tool_call_id, status: t.status };
      if (t.tool_name) r.tool_name = t.tool_name;
      if (t.timing) {
        const [start, ms] = t.timing;
        if (t.measuredBy !== 'duration') Object.assign(r, { started_at: 1000 + start, completed_at: 1000 + start + ms / 1000 });
        if (t.measuredBy !== 'interval') r.duration_ms = ms;
      }
      records.push(r);
    }
    for (let i = 0; i < compactions; i++) records.push({ kind: 'context_compaction', invocation_id: 'main', outcome: 'completed' });
    for (let i = 0; i < sandboxes; i++) records.push({ kind: 'sandbox', role: 'agent', outcome: 'completed' });
    return { source: 'test', records, gaps: [{ code: 'no_sandbox_runtime' }] } as JsonObject;
  });

const measured = (t: JsonObject): number | null => {
  const d = numericValue(t.duration_ms);
  if (d !== null) return d;
  const s = numericValue(t.started_at);
  const c = numericValue(t.completed_at);
  return s !== null && c !== null ? (c - s) * 1000 : null;
};

describe('the trajectory summary counts what the projection holds', () => {
  it('projected: equals buildTrajectoryRecord over the same observations', () => {
    fc.assert(
      fc.property(bundleArb, (bundle) => {
        fc.pre(validateBundle(bundle).ok);
        const line: JsonObject = { _ng_task_index: 0, _ng_rollout_index: 0, ng_model_call_capture: { rollout_id: '0-0', calls: [] }, ng_agent_observations: bundle };
        const projected = buildTrajectoryRecord(line, line);
        const tools = projected.tool_calls as JsonObject[];
        const s = trajectorySummary(undefined, bundle, true)!;
        expect(s.source).toBe('projected');
        expect(s.invocations).toBe((projected.invocations as JsonObject[]).length);
        expect(s.tools.map((t) => [t.invocation_id, t.tool_call_id, t.tool_name, t.status])).toEqual(
          tools.map((t) => [t.invocation_id, t.tool_call_id, t.tool_name, t.status]),
        );
        const times = tools.map(measured).filter((d): d is number => d !== null);
        expect(s.tool_unmeasured).toBe(tools.length - times.length);
        if (times.length) expect(s.tool_time).toBeCloseTo(times.reduce((a, b) => a + b, 0), 6);
        else expect(s.tool_time).toBeNull();
        expect(s.tool_failed).toBe(tools.filter((t) => t.status === 'failed').length);
        expect(s.compactions + s.sandboxes).toBe((bundle.records as JsonObject[]).filter((r) => r.kind === 'context_compaction' || r.kind === 'sandbox').length);
        // stored: the projected record as a line's ng_trajectory counts the same
        const stored = trajectorySummary(projected, bundle, true)!;
        expect(stored.source).toBe('line');
        expect([stored.invocations, stored.tool_calls, stored.tool_failed, stored.tool_unmeasured]).toEqual([s.invocations, s.tool_calls, s.tool_failed, s.tool_unmeasured]);
        expect(stored.gaps.map((g) => g.code)).toEqual((projected.gaps as JsonObject[]).map((g) => g.code));
      }),
    );
  });

  it('subagent depth is the longest parent chain within the record', () => {
    fc.assert(
      fc.property(bundleArb, (bundle) => {
        const invs = (bundle.records as JsonObject[]).filter((r) => r.kind === 'agent_invocation');
        const byId = new Map(invs.map((i) => [i.invocation_id as string, i.parent_invocation_id as string | null]));
        const depth = (id: string): number => {
          const p = byId.get(id);
          return p !== null && p !== undefined && byId.has(p) ? 1 + depth(p) : 0;
        };
        expect(subagentDepth(invs)).toBe(Math.max(0, ...invs.map((i) => depth(i.invocation_id as string))));
      }),
    );
  });

  it('a line with neither, and no captured calls, has no summary; with captured calls, an empty projected one', () => {
    expect(trajectorySummary(undefined, undefined, false)).toBeNull();
    expect(trajectorySummary(null, null, true)).toMatchObject({ source: 'projected', invocations: 0, tool_calls: 0, tool_time: null });
  });

  it('a cycle of parents (an invalid stored record) does not hang', () => {
    const invs = [{ invocation_id: 'a', parent_invocation_id: 'b' }, { invocation_id: 'b', parent_invocation_id: 'a' }];
    expect(subagentDepth(invs)).toBe(1);
  });
});
