// `callscope attach` with ng_agent_observations (spec §5.1 step 3) and `attach --trajectory` (§5.2, §5.4) over
// NeMo Gym-shaped lines: a claude_code-like rollout with two subagents, a compaction, parallel and failed tool
// calls, and a hermes-like one. The byte-exact rules are pinned by trajectory-conformance.test.ts; here the CLI
// must run them end to end over real capture files.
import { mkdirSync, mkdtempSync, promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { line, makeExchange } from '../../support/exchange';
import { claudeLine, hermesLine, inv, writeCaptures } from '../../support/trajectory-lines';
import { runCli } from '../../support/cli';

let dir: string;
let captures: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-traj-'));
  captures = path.join(dir, 'captures');
  mkdirSync(captures);
});
afterEach(async () => fsp.rm(dir, { recursive: true, force: true }));

async function attach(lines: object[], extra: string[] = []): Promise<JsonObject[]> {
  writeCaptures(captures);
  const input = path.join(dir, 'in.jsonl');
  const output = path.join(dir, 'out.jsonl');
  writeFileSync(input, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = await runCli(['attach', '--capture-dir', captures, '--input', input, '--output', output, ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return readFileSync(output, 'utf8').trim().split('\n').map((t) => parsePython(t) as JsonObject);
}

describe('callscope attach over lines with ng_agent_observations', () => {
  it('rewrites the bundle normalized and joined: canonical refs, defaults filled in, unowned calls reported', async () => {
    const [claude] = await attach([claudeLine]);
    const bundle = claude.ng_agent_observations as JsonObject;
    const records = bundle.records as JsonObject[];
    expect(Object.keys(records[0])).toEqual(['kind', 'invocation_id', 'parent_invocation_id', 'spawned_by_tool_call_id', 'status', 'duration_ms', 'error_type', 'model_calls', 'conversation']);
    expect((records[0].model_calls as JsonObject[])[0]).toEqual({ model_call_id: 'call-0', model_ref: { type: 'responses_api_models', name: 'srv' }, response_id: null });
    expect((records[0].conversation as JsonObject[])[0]).toEqual({ content: 'task for main', role: 'user', type: 'message' });
    const compaction = records.find((r) => r.kind === 'context_compaction')!;
    expect((compaction.before_model_call as JsonObject).model_ref).toEqual({ type: 'responses_api_models', name: 'srv' });
    expect(bundle.gaps).toEqual([
      { code: 'no_sandbox_runtime', invocation_id: null, detail: null },
      { code: 'model_call_ownership_unavailable', invocation_id: null, detail: 'capture:call-judge:call_index=5' },
    ]);
    // without --include-payloads the capture calls carry no payloads, and there is no trajectory
    expect((claude.ng_model_call_capture as JsonObject).calls).toHaveLength(6);
    expect(((claude.ng_model_call_capture as JsonObject).calls as JsonObject[])[0]).not.toHaveProperty('request');
    expect(claude).not.toHaveProperty('ng_trajectory');
  });

  it('an invalid bundle is left as it was and the capture gets agent_observation_join_failed', async () => {
    const bad = { ...hermesLine, ng_agent_observations: { source: 'hermes', records: [inv('a', []), inv('a', [])] } };
    const [out] = await attach([bad]);
    expect(out.ng_agent_observations).toEqual(bad.ng_agent_observations);
    expect((out.ng_model_call_capture as JsonObject).gaps).toEqual([{ code: 'agent_observation_join_failed' }]);
  });
});

describe('callscope attach --trajectory', () => {
  it('projects ng_trajectory with the invocations, tool calls and payloads, and strips the capture payloads', async () => {
    const [claude, hermes] = await attach([claudeLine, hermesLine], ['--trajectory']);
    const t = claude.ng_trajectory as JsonObject;
    expect(Object.keys(t)).toEqual(['schema_version', 'task_id', 'rollout_id', 'invocations', 'turns', 'model_calls', 'tool_calls', 'gaps']);
    expect([t.task_id, t.rollout_id]).toEqual(['0', '0-0']);
    expect((t.invocations as JsonObject[]).map((i) => [i.invocation_id, i.parent_invocation_id])).toEqual([['main', null], ['sub-a', 'main'], ['sub-b', 'main']]);
    const tools = t.tool_calls as JsonObject[];
    expect(tools.map((x) => [x.tool_call_id, x.status])).toEqual([['toolu_task_a', 'completed'], ['toolu_task_b', 'failed'], ['toolu_ls', 'completed']]);
    const calls = t.model_calls as JsonObject[];
    expect(calls.map((c) => c.model_call_id)).toEqual(['call-0', 'call-1', 'call-2', 'call-3', 'call-4', 'call-judge']);
    expect(calls[2].request).toEqual({ input: 'q call-2' });
    for (const c of (claude.ng_model_call_capture as JsonObject).calls as JsonObject[]) expect(c).not.toHaveProperty('request');
    expect((t.gaps as JsonObject[]).map((g) => g.code)).toEqual(['no_sandbox_runtime', 'model_call_ownership_unavailable', 'turns_unavailable']);
    expect((hermes.ng_trajectory as JsonObject).rollout_id).toBe('1-0');
  });

  it('a redacted line gets no payloads: the trajectory model calls carry request and response null', async () => {
    const redacted = { ...hermesLine, ng_agent_observations: { ...hermesLine.ng_agent_observations, gaps: [{ code: 'multimodal_history_redacted' }] } };
    const [out] = await attach([redacted], ['--trajectory']);
    const call = ((out.ng_trajectory as JsonObject).model_calls as JsonObject[])[0];
    expect([call.request, call.response]).toEqual([null, null]);
  });

  it('a failed projection leaves no trajectory, records trajectory_projection_failed and keeps the payloads', async () => {
    writeCaptures(captures);
    writeFileSync(path.join(captures, '1-0.capture.jsonl'), line(makeExchange({ model_call_id: 'dup' })) + line(makeExchange({ model_call_id: 'dup' })));
    const input = path.join(dir, 'in.jsonl');
    writeFileSync(input, JSON.stringify(hermesLine) + '\n');
    const r = await runCli(['attach', '--capture-dir', captures, '--input', input, '--trajectory']);
    expect(r.code).toBe(0);
    const out = parsePython(r.stdout.trim()) as JsonObject;
    expect(out).not.toHaveProperty('ng_trajectory');
    const capture = out.ng_model_call_capture as JsonObject;
    expect((capture.gaps as JsonObject[]).at(-1)).toEqual({ code: 'trajectory_projection_failed', detail: 'ValidationError' });
    expect((capture.calls as JsonObject[])[0].request).toEqual({ input: 'hi' });
  });

  it('refuses --include-payloads beside --trajectory, which decides payloads as the collector does', async () => {
    writeCaptures(captures);
    const input = path.join(dir, 'in.jsonl');
    writeFileSync(input, JSON.stringify(hermesLine) + '\n');
    const r = await runCli(['attach', '--capture-dir', captures, '--input', input, '--trajectory', '--include-payloads']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--trajectory');
  });
});
