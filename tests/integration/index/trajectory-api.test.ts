// GET .../trajectory through the index (lib/index/queries/trajectory.ts): "projected" must be exactly what NeMo Gym's
// collector writes for the same line and capture dir (here: `callscope attach --trajectory`, itself pinned to
// upstream by trajectory-conformance.test.ts, and upstream's own projections of the oracle's lines); "line" is the
// stored record as it is; payloads only when asked for; compactions and sandboxes from the observations.
import { mkdirSync, mkdtempSync, promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJsonObject, type JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { rolloutTrajectory } from '../../../lib/index/queries/trajectory';
import { runCli } from '../../support/cli';
import { claudeLine, hermesLine, writeCaptures } from '../../support/trajectory-lines';

let dir: string;
let index: CallscopeIndex;
let attached: JsonObject[];
const oracle = path.join(__dirname, '../../fixtures/trajectory');
// upstream's projections of lines that carry a producer ng_trajectory and/or observations and a capture object
const projectCases = (() => {
  const cases = parsePython(readFileSync(path.join(oracle, 'cases.json'))) as JsonObject[];
  const expected = JSON.parse(readFileSync(path.join(oracle, 'expected.json'), 'utf8')) as { name: string; json?: string }[];
  return cases
    .map((c, i) => ({ c, want: expected[i] }))
    .filter(({ c, want }) => c.op === 'project' && want.json && isJsonObject(c.line) && !isJsonObject((c.line as JsonObject).ng_trajectory))
    // the collector projects only a result with one of the three keys (a bare line is source "none")
    .filter(({ c }) => ['ng_model_call_capture', 'ng_agent_observations'].some((k) => k in (c.line as JsonObject)))
    .map(({ c, want }) => ({ name: c.name as string, line: c.line as JsonObject, want: parsePython(want.json!) as JsonObject }))
    .filter(({ want }) => isJsonObject(want.ng_trajectory));
})();

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-traj-api-'));
  const captures = path.join(dir, 'agent', 'captures');
  mkdirSync(captures, { recursive: true });
  writeCaptures(captures);
  const raw = path.join(dir, 'agent', 'raw.jsonl');
  const sandbox = { kind: 'sandbox', role: 'agent', sandbox_id: 'sb-1', outcome: 'completed', exit_code: 0, wall_time_s: 12.5, cpu_time_s: 3.25, peak_memory_mib: 512 };
  const claude = { ...claudeLine, ng_agent_observations: { ...claudeLine.ng_agent_observations, records: [...claudeLine.ng_agent_observations.records, sandbox] } };
  writeFileSync(raw, [claude, hermesLine, { _ng_task_index: 2, _ng_rollout_index: 0, reward: 0 }].map((l) => JSON.stringify(l)).join('\n') + '\n');
  // the collector's output for the same lines: a run whose lines carry ng_trajectory
  const out = path.join(dir, 'collected', 'rollouts.jsonl');
  mkdirSync(path.dirname(out));
  const r = await runCli(['attach', '--capture-dir', captures, '--input', raw, '--output', out, '--trajectory']);
  expect(r.code, r.stderr).toBe(0);
  attached = readFileSync(out, 'utf8').trim().split('\n').map((t) => parsePython(t) as JsonObject);
  // oracle lines, one per file, served without a capture dir (the line's own capture object is what is projected)
  for (const [i, p] of projectCases.entries()) {
    mkdirSync(path.join(dir, 'oracle', `c${i}`), { recursive: true });
    writeFileSync(path.join(dir, 'oracle', `c${i}`, 'rollouts.jsonl'), serialize(p.line) + '\n');
  }
  mkdirSync(path.join(dir, 'bare'));
  writeFileSync(path.join(dir, 'bare', 'rollouts.jsonl'), '{"_ng_task_index": 4, "_ng_rollout_index": 1, "reward": 1.0}\n');
  // the collector's projection fails on a negative latency (spec §5.2): no trajectory, a gap naming the exception;
  // its call has no call_index (the index places it by position rather than failing the file's ingest)
  mkdirSync(path.join(dir, 'failing'));
  const failing = { _ng_task_index: 5, _ng_rollout_index: 0, ng_model_call_capture: { rollout_id: '5-0', metrics: {}, calls: [{ model_call_id: 'x', latency_total_ms: -1 }] } };
  writeFileSync(path.join(dir, 'failing', 'rollouts.jsonl'), JSON.stringify(failing) + '\n');
  index = await CallscopeIndex.open(
    [{ path: raw, captureDir: captures }, { path: out }, { path: path.join(dir, 'oracle') }, { path: path.join(dir, 'bare') }, { path: path.join(dir, 'failing') }],
    path.join(dir, 'idx'),
    { workers: 0 },
  );
  await index.refresh();
});
afterAll(async () => {
  index?.close();
  await fsp.rm(dir, { recursive: true, force: true });
});

const runOf = (suffix: string) => index.listRuns().find((r) => r.id.endsWith(suffix))!.id;
const keysOf = (run: string) => index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 100 })!.rollouts.map((r) => r.key);

describe('a line without ng_trajectory is projected as the collector would', () => {
  it('equals attach --trajectory field for field, payloads included when asked for', async () => {
    const run = runOf('raw');
    for (const [i, key] of ['0-0', '1-0'].entries()) {
      const got = (await rolloutTrajectory(index, run, key, { includePayloads: true }))!;
      expect(got.source).toBe('projected');
      expect(got.projection_error).toBeNull();
      expect(serialize(got.trajectory as JsonObject)).toBe(serialize(attached[i].ng_trajectory as JsonObject));
    }
  });

  it('without include_payloads the model calls carry request and response null, the rest unchanged', async () => {
    const got = (await rolloutTrajectory(index, runOf('raw'), '0-0', { includePayloads: false }))!;
    const want = attached[0].ng_trajectory as JsonObject;
    const calls = (got.trajectory!.model_calls as JsonObject[]);
    expect(calls.map((c) => [c.model_call_id, c.request, c.response])).toEqual((want.model_calls as JsonObject[]).map((c) => [c.model_call_id, null, null]));
    expect(serialize(got.trajectory!.tool_calls as JsonObject[])).toBe(serialize(want.tool_calls as JsonObject[]));
    expect(serialize(got.trajectory!.invocations as JsonObject[])).toBe(serialize(want.invocations as JsonObject[]));
  });

  it('reads compactions and sandbox runs from the joined observations', async () => {
    const got = (await rolloutTrajectory(index, runOf('raw'), '0-0', { includePayloads: false }))!;
    expect(got.observations!.source).toBe('claude_code');
    expect(got.observations!.compactions).toHaveLength(1);
    // joined: the refs are canonical, with the model_ref of the captured call
    expect(got.observations!.compactions[0].before_model_call).toEqual({ model_call_id: 'call-1', model_ref: { type: 'responses_api_models', name: 'srv' }, response_id: null });
    expect(serialize(got.observations!.sandboxes.map((s) => [s.sandbox_id, s.cpu_time_s, s.peak_memory_mib]) as never)).toBe('[["sb-1",3.25,512.0]]');
    expect(got.observations!.gaps.map((g) => g.code)).toEqual(['no_sandbox_runtime', 'model_call_ownership_unavailable']);
  });

  it('a line without observations still gets the projection of its (empty) capture, as the collector gives it', async () => {
    const run = runOf('raw');
    const key = keysOf(run).find((k) => k.startsWith('2-'))!;
    const got = (await rolloutTrajectory(index, run, key, { includePayloads: false }))!;
    // the merge gives the line a capture object (no records): the collector projects even that
    expect(got.source).toBe('projected');
    expect((got.trajectory!.gaps as JsonObject[]).map((g) => g.code)).toContain('model_call_capture_no_records');
  });

  it('a line with none of the three keys, served without a capture dir, has none', async () => {
    const run = runOf('bare');
    const got = (await rolloutTrajectory(index, run, keysOf(run)[0], { includePayloads: false }))!;
    expect([got.source, got.trajectory, got.observations]).toEqual(['none', null, null]);
  });

  it('a projection that fails answers projected with no trajectory and the exception class', async () => {
    const got = (await rolloutTrajectory(index, runOf('failing'), keysOf(runOf('failing'))[0], { includePayloads: false }))!;
    expect([got.source, got.trajectory, got.projection_error]).toEqual(['projected', null, 'ValidationError']);
  });

  it('an unknown rollout or run is null (a 404 for the route)', async () => {
    expect(await rolloutTrajectory(index, runOf('raw'), 'no-such', { includePayloads: false })).toBeNull();
    expect(await rolloutTrajectory(index, 'no-such-run', '0-0', { includePayloads: false })).toBeNull();
  });
});

describe("a line's own ng_trajectory is returned as stored", () => {
  it('byte for byte with payloads, source line', async () => {
    const run = runOf('collected');
    const got = (await rolloutTrajectory(index, run, '0-0', { includePayloads: true }))!;
    expect(got.source).toBe('line');
    expect(got.problems).toEqual([]);
    expect(serialize(got.trajectory as JsonObject)).toBe(serialize(attached[0].ng_trajectory as JsonObject));
  });

  it('a stored trajectory that does not validate is still returned, with its problems', async () => {
    const bad = { ...attached[0], ng_trajectory: { ...(attached[0].ng_trajectory as JsonObject), schema_version: '2.0' } };
    const file = path.join(dir, 'bad', 'rollouts.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, serialize(bad as JsonObject) + '\n');
    const own = await CallscopeIndex.open([{ path: file }], path.join(dir, 'idx-bad'), { workers: 0 });
    try {
      await own.refresh();
      const run = own.listRuns()[0].id;
      const got = (await rolloutTrajectory(own, run, '0-0', { includePayloads: false }))!;
      expect(got.source).toBe('line');
      expect(got.trajectory!.schema_version).toBe('2.0');
      expect(got.problems.length).toBeGreaterThan(0);
    } finally {
      own.close();
    }
  });
});

describe("upstream's projections of the oracle's lines", () => {
  it('has cases', () => expect(projectCases.length).toBeGreaterThan(5));
  it('each projected trajectory equals what NeMo Gym wrote', async () => {
    const runs = index.listRuns().filter((r) => /^c\d+$/.test(r.id));
    expect(runs).toHaveLength(projectCases.length);
    for (const [i, p] of projectCases.entries()) {
      const run = runs.find((r) => r.id === `c${i}`)!.id;
      const [key] = keysOf(run);
      const got = (await rolloutTrajectory(index, run, key, { includePayloads: true }))!;
      expect(got.source, p.name).toBe('projected');
      expect(serialize(got.trajectory as JsonObject), p.name).toBe(serialize(p.want.ng_trajectory as JsonObject));
    }
  });
});

describe("the rollouts list: a trajectory's counts, sorts and filters", () => {
  const row = (run: string, key: string) => index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 100 })!.rollouts.find((r) => r.key === key)!;

  it('counts what GET .../trajectory returns, for a stored and for a projected trajectory', async () => {
    for (const run of [runOf('collected'), runOf('raw')]) {
      const r = row(run, '0-0');
      const t = (await rolloutTrajectory(index, run, '0-0', { includePayloads: false }))!;
      const tools = t.trajectory!.tool_calls as JsonObject[];
      expect(r.trajectory_source).toBe(t.source);
      expect(r.invocations).toBe((t.trajectory!.invocations as JsonObject[]).length);
      expect(r.tool_calls).toBe(tools.length);
      expect(r.tool_failed).toBe(tools.filter((x) => x.status === 'failed').length);
      expect(r.subagent_depth).toBe(1);
      expect(r.compactions).toBe(t.observations!.compactions.length);
      expect(r.sandboxes).toBe(t.observations!.sandboxes.length);
      // the fixture's tool calls: 4 s, 2.5 s and 0.25 s measured
      expect(r.tool_time).toBeCloseTo(6750, 6);
      expect(r.tool_time_max).toBeCloseTo(4000, 6);
      expect(r.tool_unmeasured).toBe(0);
    }
  });

  it("a stored trajectory's gaps are its own; a projected one's, the line's observations'", () => {
    const stored = JSON.parse(row(runOf('collected'), '0-0').trajectory_gaps!) as { code: string }[];
    expect(stored.map((g) => g.code)).toEqual((attached[0].ng_trajectory as { gaps: { code: string }[] }).gaps.map((g) => g.code));
    const projected = JSON.parse(row(runOf('raw'), '0-0').trajectory_gaps!) as { code: string }[];
    expect(projected.map((g) => g.code)).toEqual(['no_sandbox_runtime']);
  });

  it('sorts by tool calls, tool time, turns and invocations, unknown last', () => {
    const run = runOf('raw');
    const keys = (sort: 'tool_calls' | 'tool_time' | 'invocations' | 'turns', order: 'asc' | 'desc') =>
      index.listRollouts(run, { sort, order, limit: 10 })!.rollouts.map((r) => [r.key, r[sort]]);
    expect(keys('tool_calls', 'desc')).toEqual([['0-0', 3], ['1-0', 1], [expect.stringMatching(/^2-/), 0]]);
    expect(keys('invocations', 'desc').map((k) => k[1])).toEqual([3, 1, 0]);
    expect(keys('tool_time', 'asc').map((k) => k[0])).toEqual([expect.stringMatching(/^2-/), '1-0', '0-0']);
  });

  it('filters by tool name, tool status and trajectory gap', () => {
    const run = runOf('raw');
    const keys = (f: object) => index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 10, ...f })!.rollouts.map((r) => r.key);
    expect(keys({ tool_status: 'failed' })).toEqual(['0-0']);
    expect(keys({ tool_name: 'Bash' })).toEqual(['0-0', '1-0']);
    expect(keys({ tool_name: 'Read' })).toEqual([]);
    expect(keys({ trajectory_gap: 'sandbox_observation_unavailable' })).toEqual(['1-0']);
    expect(index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 10, tool_status: 'failed' })!.total).toBe(1);
  });

  it('keeps a row per tool call, in the trajectory order', () => {
    const run = runOf('collected');
    const pk = row(run, '0-0').pk;
    const db = (index as unknown as { db: import('better-sqlite3').Database }).db;
    const rows = db.prepare('SELECT invocation_id, tool_call_id, status, duration_ms, timing_source FROM tool_calls WHERE rollout_pk = ? ORDER BY seq').all(pk);
    expect(rows).toEqual([
      { invocation_id: 'main', tool_call_id: 'toolu_task_a', status: 'completed', duration_ms: 4000, timing_source: 'artifact' },
      { invocation_id: 'main', tool_call_id: 'toolu_task_b', status: 'failed', duration_ms: 2500, timing_source: 'artifact' },
      { invocation_id: 'sub-a', tool_call_id: 'toolu_ls', status: 'completed', duration_ms: 250, timing_source: 'artifact' },
    ]);
  });
});

describe('compare: tool calls and measured tool time per rollout', () => {
  it("are distributions over the rollouts with a trajectory, equal for the projected and the collector's run", () => {
    const c = index.compare([runOf('raw'), runOf('collected')])!;
    for (const r of c.runs) {
      expect(r.rollout_tool_calls.count).toBe(3); // 3, 1 and 0 tool calls
      expect(r.rollout_tool_calls.mean).toBeCloseTo(4 / 3, 9);
      expect(r.rollout_tool_calls.quantiles.at(-1)).toBe(3);
      expect(r.rollout_tool_time.count).toBe(2); // the rollout without tool calls has no measured time
      expect(r.rollout_tool_time.quantiles.at(-1)).toBeCloseTo(6750, 6);
    }
  });
});
