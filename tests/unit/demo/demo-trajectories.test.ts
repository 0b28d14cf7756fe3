// The demo's observed agents (claude-code-agent, hermes-agent) and the T1 generator: every line is what NeMo Gym's
// collector writes for what the agent reported (the same bytes `callscope attach --trajectory` gives for the raw
// inputs), the observations validate and join, subagents nest inside the Task calls that spawned them, parallel
// tool calls overlap, and every measured tool runs between the call that asked for it and the next call.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { DEFAULT_SEED, generateDemo } from '../../../lib/demo/generate';
import { writeLargeTrajectoryRun } from '../../../lib/demo/large-trajectory';
import { simulateRollout } from '../../../lib/demo/rollout';
import { dispatch, resolveRun, runRng } from '../../../lib/demo/shard';
import { writeCaptureFile } from '../../../lib/demo/writer';
import { AgentObservationBundleSchema, validateBundle } from '../../../lib/rollouts/observations';
import { TrajectoryRecordSchema, validateTrajectory } from '../../../lib/rollouts/trajectory-model';
import { runCli } from '../../support/cli';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const OBSERVED = ['claude-code-agent', 'hermes-agent'];
let tmp: string;
let out: string;
const lines = new Map<string, string[]>(); // run -> rollouts.jsonl lines
const parsed = (run: string): J[] => lines.get(run)!.map((l) => JSON.parse(l));
const idOf = (l: J) => l.ng_model_call_capture?.rollout_id ?? `${l._ng_task_index}-${l._ng_rollout_index}`;

beforeAll(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'callscope-demo-traj-'));
  out = path.join(tmp, 'demo');
  await generateDemo({ out });
  for (const run of [...OBSERVED, 'tau2-retail']) lines.set(run, (await fsp.readFile(path.join(out, run, 'rollouts.jsonl'), 'utf8')).split('\n').filter(Boolean));
});
afterAll(() => fsp.rm(tmp, { recursive: true, force: true }));

/** The trajectory's model calls of one invocation, in time order. */
function callsOf(t: J, invocation: J): J[] {
  const byId = new Map(t.model_calls.map((c: J) => [c.model_call_id, c]));
  return invocation.model_calls.map((r: J) => byId.get(r.model_call_id)).sort((a: J, b: J) => a.started_at - b.started_at);
}

describe('demo == collector', () => {
  it('every line is what `callscope attach --trajectory` makes of the agent raw line and its capture; uncollected lines are the raw line', async () => {
    for (const name of [...OBSERVED, 'tau2-retail']) {
      const run = resolveRun({ name });
      const rng = runRng(DEFAULT_SEED, run);
      const dir = path.join(tmp, `raw-${name}`);
      await fsp.mkdir(dir);
      const raw: string[] = [];
      const uncollected = new Set<string>();
      const plan = dispatch(run, { shard: 0, shards: 1 });
      for (let next = plan.next(); !next.done; ) {
        const sim = simulateRollout(next.value.spec, rng);
        await writeCaptureFile(dir, sim.rolloutId, sim.exchanges);
        raw.push(serialize(sim.line));
        if (next.value.special.uncollected) uncollected.add(sim.rolloutId);
        next = plan.next({ endAt: sim.endAt, failed: sim.failed });
      }
      await fsp.writeFile(path.join(tmp, `raw-${name}.jsonl`), raw.join('\n') + '\n');
      const r = await runCli(['attach', '--capture-dir', dir, '--input', path.join(tmp, `raw-${name}.jsonl`), '--output', path.join(tmp, `out-${name}.jsonl`), '--trajectory']);
      expect(r.stderr).toBe('');
      const collected = new Map((await fsp.readFile(path.join(tmp, `out-${name}.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => [idOf(JSON.parse(l)), l]));
      const rawById = new Map(raw.map((l) => [idOf(JSON.parse(l)), l]));
      const demo = lines.get(name)!;
      expect(demo).toHaveLength(raw.length);
      for (const line of demo) {
        const id = idOf(JSON.parse(line));
        expect(line, `${name} ${id}`).toBe(uncollected.has(id) ? rawById.get(id) : collected.get(id));
      }
      if (name === 'claude-code-agent') expect(uncollected.size).toBeGreaterThan(0);
    }
  });

  it('lines with observations and no trajectory exist (the API projects those), with their capture files beside them', async () => {
    const bare = parsed('claude-code-agent').filter((l) => l.ng_agent_observations && !l.ng_trajectory);
    expect(bare.length).toBeGreaterThan(0);
    for (const l of bare) {
      expect(l).not.toHaveProperty('ng_model_call_capture');
      await expect(fsp.stat(path.join(out, 'claude-code-agent', 'captures', `${idOf(l)}.capture.jsonl`))).resolves.toBeTruthy();
    }
  });
});

describe('observations and trajectories', () => {
  it('validate as NeMo Gym models them (exact models and zod schemas) and join without failure', () => {
    let checked = 0;
    for (const run of OBSERVED) {
      lines.get(run)!.forEach((text, i) => {
        const exact = parseStrict(text) as JsonObject;
        const l = parsed(run)[i];
        expect(validateBundle(exact.ng_agent_observations).ok, `${run} ${idOf(l)}`).toBe(true);
        expect(AgentObservationBundleSchema.safeParse(l.ng_agent_observations).success).toBe(true);
        if (!l.ng_trajectory) return;
        expect(validateTrajectory(exact.ng_trajectory).ok).toBe(true);
        expect(TrajectoryRecordSchema.safeParse(l.ng_trajectory).success).toBe(true);
        const captureGaps = (l.ng_model_call_capture.gaps ?? []).map((g: J) => g.code);
        expect(captureGaps).not.toContain('agent_observation_join_failed');
        expect(captureGaps).not.toContain('trajectory_projection_failed');
        const joinGaps = l.ng_agent_observations.gaps.filter((g: J) => /^model_call_reference_|^compaction_model_call_/.test(g.code));
        expect(joinGaps, `${run} ${idOf(l)}`).toEqual([]);
        // every reference resolved to a captured call the trajectory holds, with its payloads
        const ids = new Set(l.ng_trajectory.model_calls.map((c: J) => c.model_call_id));
        for (const inv of l.ng_trajectory.invocations) for (const ref of inv.model_calls) expect(ids.has(ref.model_call_id)).toBe(true);
        for (const c of l.ng_trajectory.model_calls) expect(c.request).toBeTruthy();
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('claude_code: a main invocation with two Task subagents, nested, each call inside its Task call', () => {
    for (const l of parsed('claude-code-agent').filter((x) => x.ng_trajectory)) {
      const t = l.ng_trajectory;
      expect(l.ng_agent_observations.source).toBe('claude_code');
      const byId = new Map(t.invocations.map((i: J) => [i.invocation_id, i]));
      const roots = t.invocations.filter((i: J) => i.parent_invocation_id === null);
      expect(roots).toHaveLength(1);
      expect(t.invocations).toHaveLength(3);
      for (const inv of t.invocations.filter((i: J) => i !== roots[0])) {
        let chain = inv;
        for (let hops = 0; chain.parent_invocation_id !== null; hops++) {
          expect(hops).toBeLessThan(t.invocations.length);
          chain = byId.get(chain.parent_invocation_id);
        }
        expect(chain).toBe(roots[0]);
        const task = t.tool_calls.find((x: J) => x.invocation_id === inv.parent_invocation_id && x.tool_call_id === inv.spawned_by_tool_call_id);
        expect(task.tool_name).toBe('Task');
        expect(task.output).toBe(inv.conversation.at(-1).content[0].text);
        for (const c of callsOf(t, inv)) {
          expect(c.started_at).toBeGreaterThanOrEqual(task.started_at);
          expect(c.completed_at).toBeLessThanOrEqual(task.completed_at);
        }
      }
    }
  });

  it('tools run between the call that asked for them and the next call of their invocation; some turns run several at once', () => {
    let parallel = 0;
    let measured = 0;
    for (const run of OBSERVED) {
      for (const l of parsed(run).filter((x) => x.ng_trajectory)) {
        const t = l.ng_trajectory;
        for (const inv of t.invocations) {
          const calls = callsOf(t, inv);
          const tools = t.tool_calls.filter((x: J) => x.invocation_id === inv.invocation_id && x.started_at !== null);
          for (const tool of tools) {
            measured++;
            const asked = calls.filter((c: J) => c.completed_at <= tool.started_at).at(-1);
            expect(JSON.stringify(asked.response), `${run} ${tool.tool_call_id}`).toContain(tool.tool_call_id);
            const next = calls.find((c: J) => c.started_at > asked.started_at);
            if (next) expect(tool.completed_at).toBeLessThanOrEqual(next.started_at);
          }
          for (const a of tools) for (const b of tools) if (a !== b && a.started_at < b.started_at && b.started_at < a.completed_at) parallel++;
        }
      }
    }
    expect(measured).toBeGreaterThan(100);
    expect(parallel).toBeGreaterThan(10);
  });

  it('claude_code: failed, timed-out and unmeasured tools, a resolved compaction, sandbox runs or their gap', () => {
    const all = parsed('claude-code-agent');
    const collected = all.filter((l) => l.ng_trajectory);
    const tools = collected.flatMap((l) => l.ng_trajectory.tool_calls);
    expect(new Set(tools.map((x: J) => x.status))).toEqual(new Set(['completed', 'failed', 'timeout']));
    expect(tools.filter((x: J) => x.started_at === null && x.timing_source === null).length).toBeGreaterThan(0);
    const records = (l: J) => l.ng_agent_observations.records;
    let compacted = 0;
    for (const l of collected) {
      const compactions = records(l).filter((r: J) => r.kind === 'context_compaction');
      expect(compactions.length).toBeLessThanOrEqual(1);
      for (const c of compactions) {
        compacted++;
        expect([c.tokens_before, c.tokens_after].every((n) => n > 0)).toBe(true);
        expect(c.summary.length).toBeGreaterThan(0);
        // the hidden summary call, found by the claude_code association, strictly between the calls around it
        expect(c.model_calls).toHaveLength(1);
        const index = (ref: J) => l.ng_model_call_capture.calls.find((x: J) => x.model_call_id === ref.model_call_id).call_index;
        expect(index(c.before_model_call)).toBeLessThan(index(c.model_calls[0]));
        expect(index(c.model_calls[0])).toBeLessThan(index(c.after_model_call));
        const root = records(l).find((r: J) => r.kind === 'agent_invocation' && r.parent_invocation_id === null);
        expect(root.model_calls.map((r: J) => r.model_call_id)).toContain(c.model_calls[0].model_call_id);
      }
    }
    expect(compacted).toBeGreaterThan(0);
    const sandboxed = collected.filter((l) => records(l).some((r: J) => r.kind === 'sandbox'));
    for (const l of sandboxed) expect(records(l).filter((r: J) => r.kind === 'sandbox').map((r: J) => r.role)).toEqual(['agent', 'verifier']);
    expect(sandboxed.length).toBeGreaterThan(0);
    expect(collected.some((l) => l.ng_agent_observations.gaps.some((g: J) => g.code === 'sandbox_observation_unavailable'))).toBe(true);
  });

  it('hermes: one invocation, tools timed by the harness or the executor (or not at all, with the hook gap), a few failed', () => {
    const all = parsed('hermes-agent');
    let failed = 0;
    let untimed = 0;
    for (const l of all) {
      const b = l.ng_agent_observations;
      expect(b.source).toBe('hermes');
      expect(b.records.filter((r: J) => r.kind === 'agent_invocation')).toHaveLength(1);
      const tools = l.ng_trajectory.tool_calls;
      for (const x of tools) expect(['harness', 'executor']).toContain(x.timing_source);
      failed += tools.filter((x: J) => x.status === 'failed').length;
      if (tools.length === 0) {
        untimed++;
        expect(b.gaps.map((g: J) => g.code)).toContain('hermes_hook_unavailable');
        expect(b.records[0].conversation.some((i: J) => i.type === 'function_call')).toBe(true);
      }
    }
    expect(failed).toBeGreaterThan(0);
    expect(untimed).toBeGreaterThan(0);
  });
});

describe('writeLargeTrajectoryRun', () => {
  it('writes one collector line and its capture with exactly the asked counts, joined without gaps of its own', async () => {
    const dir = path.join(tmp, 'large');
    const size = { calls: 150, toolCalls: 1500, invocations: 5 };
    const { rolloutsFile, captureDir, rolloutId } = await writeLargeTrajectoryRun(dir, size);
    const [text] = (await fsp.readFile(rolloutsFile, 'utf8')).split('\n').filter(Boolean);
    const l = JSON.parse(text);
    expect(l.ng_model_call_capture.rollout_id).toBe(rolloutId);
    expect((await fsp.readFile(path.join(captureDir, `${rolloutId}.capture.jsonl`), 'utf8')).split('\n').filter(Boolean)).toHaveLength(size.calls);
    const t = l.ng_trajectory;
    expect([t.model_calls.length, t.tool_calls.length, t.invocations.length]).toEqual([size.calls, size.toolCalls, size.invocations]);
    expect(validateTrajectory(parseStrict(text) && (parseStrict(text) as JsonObject).ng_trajectory).ok).toBe(true);
    const codes = new Set(t.gaps.map((g: J) => g.code));
    for (const bad of ['model_call_ownership_unavailable', 'compaction_model_call_match_ambiguous', 'compaction_model_call_reference_unavailable', 'trajectory_projection_failed']) expect(codes.has(bad), bad).toBe(false);
    expect(l.ng_agent_observations.records.filter((r: J) => r.kind === 'context_compaction').every((c: J) => c.model_calls.length === 1)).toBe(true);
  });

  it('refuses counts it cannot lay out', async () => {
    await expect(writeLargeTrajectoryRun(path.join(tmp, 'impossible'), { calls: 3, toolCalls: 1, invocations: 6 })).rejects.toThrow(RangeError);
  });
});
