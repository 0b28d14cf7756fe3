// The trajectory layout's guarantees over random trajectories: no overlap within a row and the fewest rows per lane
// (parallel tool calls stacked, never drawn over each other), every group once and under its parent, no time that
// the record does not hold, collapsed groups folded into one row; and a rollout of 30,000 calls and 10,000 tool calls
// laid out in bounded time (the layout is O(n log n)).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ItemKind, layoutTrajectory, type TrajectoryLayout } from '../../../lib/view/trajectory-layout';
import type { TrajectoryParts } from '../../../lib/view/trajectory-read';
import { measuredInterval, Timing } from '../../../lib/view/trajectory-timing';
import { minRows } from '../../support/interval-rows';

const INVOCATIONS = ['i0', 'i1', 'i2', 'i3', 'i4'];
const time = fc.option(fc.integer({ min: 0, max: 60 }), { nil: null });
const duration = fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null });

const partsArb: fc.Arbitrary<TrajectoryParts> = fc
  .record({
    invocations: fc.uniqueArray(
      fc.record({ id: fc.constantFrom(...INVOCATIONS), parent: fc.option(fc.constantFrom(...INVOCATIONS, 'gone'), { nil: null }), spawner: fc.option(fc.integer({ min: 0, max: 11 }), { nil: null }) }),
      { selector: (i) => i.id, maxLength: 5 },
    ),
    calls: fc.array(fc.record({ start: time, end: time, duration, owner: fc.option(fc.constantFrom(...INVOCATIONS), { nil: null }) }), { maxLength: 14 }),
    tools: fc.array(fc.record({ inv: fc.constantFrom(...INVOCATIONS, 'gone'), start: time, end: time, duration, sandbox: fc.option(fc.constantFrom('s0', 's1'), { nil: null }) }), { maxLength: 12 }),
    requested: fc.array(fc.tuple(fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 11 })), { maxLength: 12 }),
    compactions: fc.array(fc.record({ inv: fc.constantFrom(...INVOCATIONS), at: time, before: fc.option(fc.integer({ min: 0, max: 13 }), { nil: null }), after: fc.option(fc.integer({ min: 0, max: 13 }), { nil: null }) }), { maxLength: 3 }),
    sandboxes: fc.array(fc.option(fc.constantFrom('s0', 's1', 's2'), { nil: null }), { maxLength: 3 }),
  })
  .map(({ invocations, calls, tools, requested, compactions, sandboxes }) => {
    const ref = (k: number | null) => (k === null ? null : { model_call_id: `c${k}`, model_ref: null, response_id: null });
    const requestedTools: Record<string, string[]> = {};
    for (const [c, t] of requested) if (c < calls.length && t < tools.length) (requestedTools[`c${c}`] ??= []).push(`t${t}`);
    return {
      invocations: invocations.map((i) => ({
        kind: 'agent_invocation' as const,
        invocation_id: i.id,
        parent_invocation_id: i.parent,
        spawned_by_tool_call_id: i.spawner === null ? null : `t${i.spawner}`,
        status: 'unknown' as const,
        duration_ms: null,
        error_type: null,
        model_calls: calls.flatMap((c, k) => (c.owner === i.id ? [ref(k)!] : [])),
        conversation: [],
      })),
      modelCalls: calls.map((c, k) => ({
        model_call_id: `c${k}`,
        started_at: c.start,
        completed_at: c.end,
        duration_ms: c.duration,
        response_metadata: { response_id: null, model_ref: null, model: null, dialect: null, status_code: null, response_status: null, finish_reason: null, error_category: null, latency_ttft_ms: null },
        token_stats: { prompt_tokens: null, completion_tokens: null, reasoning_tokens: null, total_tokens: null, cached_tokens: null },
      })),
      toolCalls: tools.map((t, k) => ({
        kind: 'tool_call' as const,
        invocation_id: t.inv,
        tool_call_id: `t${k}`,
        sandbox_id: t.sandbox,
        tool_name: null,
        started_at: t.start,
        completed_at: t.end,
        duration_ms: t.duration,
        timing_source: null,
        status: 'unknown' as const,
        error_type: null,
        output: null,
      })),
      turns: [],
      gaps: [],
      compactions: compactions.map((c) => ({
        kind: 'context_compaction' as const,
        invocation_id: c.inv,
        observed_at: c.at,
        trigger: null,
        tokens_before: null,
        tokens_after: null,
        outcome: 'unknown' as const,
        summary: null,
        first_kept_item_id: null,
        before_model_call: ref(c.before),
        model_calls: [],
        after_model_call: ref(c.after),
      })),
      sandboxes: sandboxes.map((id) => ({ kind: 'sandbox' as const, role: 'agent' as const, provider: null, sandbox_id: id, outcome: 'unknown' as const, exit_code: null, wall_time_s: null, cpu_time_s: null, peak_memory_mib: null, resource_usage_source: null, error_type: null })),
      requestedTools,
      problems: [],
    };
  });

const withCollapsed = fc.tuple(partsArb, fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }));
const lanes = [ItemKind.modelCall, ItemKind.toolCall, ItemKind.sandbox] as const;
const itemsOf = (l: TrajectoryLayout, band: number, kind: number) => [...l.kind.keys()].filter((i) => l.band[i] === band && l.kind[i] === kind && l.row[i] >= 0);

describe('layoutTrajectory (properties)', () => {
  it('never overlaps two items in a row, and uses the fewest rows per lane', () => {
    fc.assert(
      fc.property(partsArb, (p) => {
        const l = layoutTrajectory(p);
        l.bands.forEach((b, band) => {
          let used = 0;
          for (const kind of lanes) {
            const items = itemsOf(l, band, kind);
            for (const i of items) for (const j of items) if (i < j && l.row[i] === l.row[j]) expect(l.x0[i] < l.x1[j] && l.x0[j] < l.x1[i]).toBe(false);
            const rows = new Set(items.map((i) => l.row[i])).size;
            expect(rows).toBe(minRows(items.map((i) => l.x0[i]), items.map((i) => l.x1[i])));
            used += rows;
          }
          expect(b.rows).toBe(Math.max(1, used));
        });
      }),
    );
  });

  it('shows every group once, after its parent and one level deeper', () => {
    fc.assert(
      fc.property(partsArb, (p) => {
        const l = layoutTrajectory(p);
        expect([...l.groupOrder].sort((a, b) => a - b)).toEqual(l.groups.map((_, k) => k));
        const at = new Map([...l.groupOrder].map((g, k) => [g, k]));
        l.groups.forEach((g, k) => {
          if (g.parent < 0) return expect(g.depth).toBe(0);
          expect(at.get(g.parent)!).toBeLessThan(at.get(k)!);
          expect(g.depth).toBe(l.groups[g.parent].depth + 1);
        });
      }),
    );
  });

  it('draws only what the record measured, and an unmeasured tool call only between its calls', () => {
    fc.assert(
      fc.property(partsArb, (p) => {
        const l = layoutTrajectory(p);
        const ms = (s: number) => (s - l.t0!) * 1000;
        const check = (item: number, m: ReturnType<typeof measuredInterval>) => {
          if (m.timing === Timing.measured) expect([l.x0[item], l.x1[item], l.timing[item]]).toEqual([ms(m.start!), ms(m.end!), Timing.measured]);
          if (m.timing === Timing.partial) expect([l.x0[item], l.x1[item], l.timing[item]]).toEqual([ms((m.start ?? m.end)!), ms((m.start ?? m.end)!), Timing.partial]);
        };
        p.modelCalls.forEach((c, i) => check(l.base.modelCall + i, measuredInterval(c.started_at, c.completed_at, c.duration_ms)));
        p.toolCalls.forEach((t, j) => {
          const item = l.base.toolCall + j;
          const m = measuredInterval(t.started_at, t.completed_at, t.duration_ms);
          check(item, m);
          if (m.timing !== Timing.unplaced) return;
          const asker = l.requesting[j];
          if (l.timing[item] === Timing.unplaced) return expect(asker < 0 || l.timing[l.base.modelCall + asker] === Timing.unplaced).toBe(true);
          expect(l.timing[item]).toBe(Timing.between);
          expect(p.requestedTools[p.modelCalls[asker].model_call_id!]).toContain(t.tool_call_id);
          expect(l.x0[item]).toBe(l.x1[l.base.modelCall + asker]);
          const next = l.nextCall[j];
          expect(l.x1[item]).toBe(next >= 0 ? Math.max(l.x0[item], l.x0[l.base.modelCall + next]) : l.x0[item]);
        });
      }),
    );
  });

  it('folds a collapsed group and everything under it into its one row', () => {
    fc.assert(
      fc.property(withCollapsed, ([p, picks]) => {
        const open = layoutTrajectory(p);
        const collapsed = new Set(picks.filter((g) => g < open.groups.length));
        const l = layoutTrajectory(p, { collapsed });
        const under = (g: number, c: number): boolean => g === c || (l.groups[g].parent >= 0 && under(l.groups[g].parent, c));
        const hidden = l.groups.map((_, g) => [...collapsed].some((c) => c !== g && under(g, c)));
        expect(l.bands.map((b) => b.group).sort((a, b) => a - b)).toEqual(l.groups.map((_, g) => g).filter((g) => !hidden[g]));
        l.bands.forEach((b, band) => {
          if (!b.collapsed) return;
          expect(b.rows).toBe(1);
          for (let i = 0; i < l.kind.length; i++) if (l.band[i] === band) expect(l.row[i]).toBe(b.firstRow);
        });
      }),
    );
  });
});

describe('layoutTrajectory at scale', () => {
  it('lays out 30,000 model calls and 10,000 tool calls over 6 invocations in bounded time', () => {
    const calls = 30_000;
    const tools = 10_000;
    const ids = ['main', 'a', 'b', 'c', 'd', 'e'];
    const p: TrajectoryParts = {
      invocations: ids.map((id, k) => ({
        kind: 'agent_invocation',
        invocation_id: id,
        parent_invocation_id: k ? 'main' : null,
        spawned_by_tool_call_id: k ? `t${k}` : null,
        status: 'completed',
        duration_ms: null,
        error_type: null,
        model_calls: Array.from({ length: calls / ids.length }, (_, j) => ({ model_call_id: `c${j * ids.length + k}`, model_ref: null, response_id: null })),
        conversation: [],
      })),
      modelCalls: Array.from({ length: calls }, (_, i) => ({
        model_call_id: `c${i}`,
        started_at: 1_700_000_000 + i * 2,
        completed_at: 1_700_000_000 + i * 2 + 1.5,
        duration_ms: 1500,
        response_metadata: { response_id: null, model_ref: null, model: null, dialect: null, status_code: 200, response_status: null, finish_reason: null, error_category: null, latency_ttft_ms: null },
        token_stats: { prompt_tokens: null, completion_tokens: null, reasoning_tokens: null, total_tokens: null, cached_tokens: null },
      })),
      toolCalls: Array.from({ length: tools }, (_, j) => ({
        kind: 'tool_call',
        invocation_id: ids[(j * 3) % ids.length],
        tool_call_id: `t${j}`,
        sandbox_id: 'sb',
        tool_name: 'Bash',
        started_at: j % 4 === 0 ? null : 1_700_000_000 + j * 6 + 1.6,
        completed_at: j % 4 === 0 ? null : 1_700_000_000 + j * 6 + 1.6 + (j % 7) * 0.1,
        duration_ms: null,
        timing_source: 'executor',
        status: j % 13 === 0 ? 'failed' : 'completed',
        error_type: null,
        output: null,
      })),
      turns: [],
      gaps: [],
      compactions: [],
      sandboxes: [{ kind: 'sandbox', role: 'agent', provider: null, sandbox_id: 'sb', outcome: 'completed', exit_code: 0, wall_time_s: 10, cpu_time_s: 5, peak_memory_mib: 100, resource_usage_source: null, error_type: null }],
      requestedTools: Object.fromEntries(Array.from({ length: tools }, (_, j) => [`c${(j * 3) % calls}`, [`t${j}`]])),
      problems: [],
    };
    const started = performance.now();
    const l = layoutTrajectory(p);
    const took = performance.now() - started;
    expect(l.kind.length).toBe(calls + tools + 1);
    expect(l.bands).toHaveLength(ids.length);
    // a quadratic step would take minutes here; the bound leaves room for a loaded 2-core machine
    expect(took).toBeLessThan(5000);
  });
});
