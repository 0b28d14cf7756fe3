// The diff of two rollouts with trajectories (the demo's claude_code-shaped run, written as NeMo Gym's collector
// writes it) gives each pair of calls the tool calls those calls asked for, side by side: every tool call a side's
// call requested appears once, on its side, with the status and measured time its trajectory records.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { rolloutDiff } from '../../../lib/index/compare/rollout-diff';
import { rolloutTrajectory } from '../../../lib/index/queries/trajectory';
import { alignTools, toolsById } from '../../../lib/rollouts/diff-tools';
import { useDemo } from '../../support/demo';

const fx = useDemo('callscope-diff-tools-');
let index: CallscopeIndex;
beforeAll(async () => {
  index = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx'), { workers: 0 });
  await index.refresh();
});
afterAll(() => index?.close());

describe('the tool calls of a diff', () => {
  it("pairs every requested tool call of each side once, with its trajectory's status and time", async () => {
    const run = index.listRuns().find((r) => r.id === 'claude-code-agent')!.id;
    const keys = index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 50 })!.rollouts.filter((r) => r.trajectory_source === 'line').map((r) => r.key);
    const [ka, kb] = keys;
    const d = (await rolloutDiff(index, { run, rollout: ka }, { run, rollout: kb }))!;
    for (const [key, side] of [[ka, 'a'], [kb, 'b']] as const) {
      const t = (await rolloutTrajectory(index, run, key, { includePayloads: false }))!;
      const byId = toolsById(t.trajectory as JsonObject);
      const shown = d.pairs.flatMap((p) => (p.tools ?? []).map((x) => x[side]).filter((x) => x !== null));
      const requested = d.pairs.flatMap((p) => t.requested_tools[(side === 'a' ? p.a_ref : p.b_ref) ?? ''] ?? []);
      expect(shown.map((x) => x!.tool_call_id)).toEqual(requested);
      expect(requested.length).toBeGreaterThan(0);
      for (const x of shown) expect(x).toEqual(byId.get(x!.tool_call_id)?.tool ?? { tool_call_id: x!.tool_call_id, tool_name: null, status: null, duration_ms: null });
    }
  });

  it('aligns by tool name in order; a tool only one side called stands alone; outputs compared', () => {
    const tool = (id: string, name: string, status: string, output: string) => ({ tool_call_id: id, tool_name: name, status, duration_ms: 5, output });
    const side = (tools: ReturnType<typeof tool>[]) => toolsById({ tool_calls: tools } as unknown as JsonObject);
    const a = side([tool('a1', 'Read', 'completed', 'x'), tool('a2', 'Bash', 'failed', 'err')]);
    const b = side([tool('b1', 'Read', 'completed', 'y'), tool('b2', 'Grep', 'completed', 'z'), tool('b3', 'Bash', 'completed', 'ok')]);
    const pairs = alignTools(['a1', 'a2'], ['b1', 'b2', 'b3'], a, b);
    expect(pairs.map((p) => [p.a?.tool_call_id ?? null, p.b?.tool_call_id ?? null, p.same_output])).toEqual([
      ['a1', 'b1', false],
      [null, 'b2', null],
      ['a2', 'b3', false],
    ]);
    expect(pairs[2].a!.status).toBe('failed');
  });
});
