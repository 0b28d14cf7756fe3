// The default demo data set: every feature the dashboard is demonstrated with must actually be in the data,
// and every line must be what NeMo Gym (or its capture middleware) would have written.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAttachment, collectCapture } from '../../../lib/capture/attachment';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { readCaptureFile } from '../../../lib/capture/store';
import { DEMO_MARKER, generateDemo } from '../../../lib/demo/generate';
import { BASE_EPOCH } from '../../../lib/demo/runs';

// Parsed payloads are read structurally; the format's own types would only get in the way here.
type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Exchange {
  run: string;
  rolloutId: string;
  index: number;
  line: string;
  x: J;
}

interface Run {
  name: string;
  dir: string;
  captureDir: string | null;
  rollouts: J[] | null;
  rolloutText: string[];
  failures: J[];
  exchanges: Exchange[];
  /** Rollout ids whose file misses a call (an incomplete marker or the damaged line). */
  missing: Set<string>;
}

let tmp: string;
let out: string;
const runs: Run[] = [];
const all = () => runs.flatMap((r) => r.exchanges);
const ok = (e: Exchange) => e.x.status_code === 200 && e.x.error_category === null;
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
const isPolicy = (e: Exchange) => e.x.model_ref === null || e.x.model_ref.name === 'policy_model';
/** Rollouts whose agent ran subagents: their policy calls resend several conversations (demo-trajectories.test.ts). */
const multiInvocation = new Set<string>();
const isLinear = (e: Exchange) => !multiInvocation.has(`${e.run}/${e.rolloutId}`);

async function readJsonl(file: string): Promise<{ lines: J[]; text: string[] } | null> {
  const data = await fsp.readFile(file, 'utf8').catch(() => null);
  if (data === null) return null;
  const text = data.split('\n').filter((l) => l.length > 0);
  return { lines: text.map((l) => parseStrict(l)), text };
}

beforeAll(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'callscope-demo-data-'));
  out = path.join(tmp, 'demo');
  await generateDemo({ out });
  for (const name of (await fsp.readdir(out)).sort()) {
    const dir = path.join(out, name);
    if (!(await fsp.stat(dir)).isDirectory()) continue;
    const captureDir = (await fsp.stat(path.join(dir, 'captures')).catch(() => null)) ? path.join(dir, 'captures') : null;
    const rollouts = await readJsonl(path.join(dir, 'rollouts.jsonl'));
    const failures = await readJsonl(path.join(dir, 'rollouts_failures.jsonl'));
    const run: Run = { name, dir, captureDir, rollouts: rollouts?.lines ?? null, rolloutText: rollouts?.text ?? [], failures: failures?.lines ?? [], exchanges: [], missing: new Set() };
    for (const file of captureDir ? (await fsp.readdir(captureDir)).sort() : []) {
      if (file.endsWith('.capture.incomplete')) run.missing.add(file.slice(0, -'.capture.incomplete'.length));
      if (!file.endsWith('.capture.jsonl')) continue;
      const rolloutId = file.slice(0, -'.capture.jsonl'.length);
      const lines = (await fsp.readFile(path.join(captureDir!, file), 'utf8')).split('\n').slice(0, -1);
      lines.forEach((line, index) => {
        let x: J;
        try {
          x = parseStrict(line);
        } catch {
          run.missing.add(rolloutId); // the damaged line; counted through the tolerant reader below
          return;
        }
        run.exchanges.push({ run: name, rolloutId, index, line, x });
      });
    }
    for (const l of run.rollouts ?? []) {
      const invocations = (l.ng_agent_observations?.records ?? []).filter((rec: J) => rec.kind === 'agent_invocation');
      if (invocations.length > 1) multiInvocation.add(`${name}/${l.ng_model_call_capture?.rollout_id ?? `${l._ng_task_index}-${l._ng_rollout_index}`}`);
    }
    runs.push(run);
  }
});

afterAll(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('layout', () => {
  it('has at least three full runs, one rollouts-only run and one captures-only run, plus the marker', async () => {
    const full = runs.filter((r) => r.rollouts && r.captureDir);
    expect(full.length).toBeGreaterThanOrEqual(3);
    for (const r of full) expect(r.exchanges.length).toBeGreaterThan(0);
    expect(runs.filter((r) => r.rollouts && !r.captureDir)).toHaveLength(1);
    expect(runs.filter((r) => !r.rollouts && r.captureDir)).toHaveLength(1);
    await expect(fsp.stat(path.join(out, DEMO_MARKER))).resolves.toBeTruthy();
  });

  it('writes every line in orjson form (what a re-serialization of the parsed line gives)', () => {
    for (const e of all()) expect(serialize(parseStrict(e.line))).toBe(e.line);
    for (const r of runs) r.rolloutText.forEach((t, i) => expect(serialize(r.rollouts![i])).toBe(t));
  });

  it('writes rollout lines in completion order, not sorted by task and rollout', () => {
    for (const r of runs.filter((x) => x.rollouts && x.rollouts.length > 5)) {
      const keys = r.rollouts!.map((l) => l._ng_task_index * 1000 + l._ng_rollout_index);
      expect(keys).not.toEqual([...keys].sort((a, b) => a - b));
    }
  });
});

describe('calls', () => {
  it('covers all three dialects, each both streamed and not', () => {
    for (const dialect of ['responses', 'chat', 'messages']) {
      const calls = all().filter((e) => e.x.dialect === dialect && ok(e));
      expect(calls.some((e) => typeof e.x.response_raw === 'string' && e.x.response !== null), `${dialect} streamed`).toBe(true);
      expect(calls.some((e) => e.x.response_raw === undefined && e.x.response !== null), `${dialect} not streamed`).toBe(true);
    }
  });

  it('has tool calls in every dialect, each answered by a tool result in the next policy request', () => {
    const resultIds = (req: J, dialect: string): string[] => {
      if (dialect === 'responses') return req.input.filter((i: J) => i.type === 'function_call_output').map((i: J) => i.call_id);
      if (dialect === 'chat') return req.messages.filter((m: J) => m.role === 'tool').map((m: J) => m.tool_call_id);
      return req.messages.flatMap((m: J) => (Array.isArray(m.content) ? m.content : [])).filter((b: J) => b.type === 'tool_result').map((b: J) => b.tool_use_id);
    };
    const callIds = (resp: J, dialect: string): string[] => {
      if (dialect === 'responses') return resp.output.filter((i: J) => i.type === 'function_call').map((i: J) => i.call_id);
      if (dialect === 'chat') return (resp.choices[0].message.tool_calls ?? []).map((t: J) => t.id);
      return resp.content.filter((b: J) => b.type === 'tool_use').map((b: J) => b.id);
    };
    const seen = new Set<string>();
    for (const r of runs) {
      const byRollout = groupBy(r.exchanges.filter((e) => isPolicy(e) && ok(e) && isLinear(e)), (e) => e.rolloutId);
      for (const calls of byRollout.values()) {
        calls.forEach((e, i) => {
          const ids = callIds(e.x.response, e.x.dialect);
          if (ids.length === 0 || i === calls.length - 1) return;
          seen.add(e.x.dialect);
          expect(resultIds(calls[i + 1].x.request, e.x.dialect)).toEqual(expect.arrayContaining(ids));
        });
      }
    }
    expect([...seen].sort()).toEqual(['chat', 'messages', 'responses']);
  });

  it('has reasoning in every dialect: a summary, reasoning_content and thinking blocks', () => {
    const has = (pred: (x: J) => boolean) => all().some((e) => ok(e) && pred(e.x));
    expect(has((x) => x.dialect === 'responses' && x.response.output.some((i: J) => i.type === 'reasoning' && i.summary[0]?.text))).toBe(true);
    expect(has((x) => x.dialect === 'chat' && !!x.response.choices[0].message.reasoning_content)).toBe(true);
    expect(has((x) => x.dialect === 'messages' && x.response.content.some((b: J) => b.type === 'thinking' && b.thinking))).toBe(true);
  });

  it('has policy, judge and tool model servers writing into the same rollout files', () => {
    const servers = (run: Run) => groupBy(run.exchanges, (e) => e.rolloutId);
    const together = (a: string, b: string) =>
      runs.some((r) => [...servers(r).values()].some((xs) => xs.some((e) => e.x.model_ref?.name === a) && xs.some((e) => e.x.model_ref?.name === b)));
    expect(together('policy_model', 'judge_model')).toBe(true);
    expect(together('policy_model', 'tool_model')).toBe(true);
  });

  it('reports cached tokens in each provider shape', () => {
    const usages = all().filter(ok).map((e) => e.x.response.usage);
    expect(usages.some((u) => u.prompt_tokens_details?.cached_tokens > 0)).toBe(true);
    expect(usages.some((u) => u.input_tokens_details?.cached_tokens > 0)).toBe(true);
    expect(usages.some((u) => u.cache_read_input_tokens > 0 && u.cache_creation_input_tokens > 0)).toBe(true);
  });

  it('has 429 and 5xx responses with JSON error bodies, each retried successfully with the same request', () => {
    for (const [pred, category] of [[(s: number) => s === 429, 'rate_limit'], [(s: number) => s >= 500, 'upstream_error']] as const) {
      const failed = all().filter((e) => pred(e.x.status_code));
      expect(failed.length, category).toBeGreaterThan(0);
      for (const e of failed) {
        expect(e.x.error_category).toBe(category);
        expect(e.x.response.error).toBeTruthy();
        const later = all().filter((o) => o.run === e.run && o.rolloutId === e.rolloutId && o.index > e.index && ok(o));
        expect(later.some((o) => serialize(o.x.request) === serialize(e.x.request))).toBe(true);
      }
    }
  });

  it('has a truncated stream and an `event: error` stream', () => {
    const truncated = all().filter((e) => e.x.error_category === 'stream_truncated');
    expect(truncated.length).toBeGreaterThan(0);
    for (const e of truncated) expect(e.x.status_code).toBe(200);
    const errored = all().filter((e) => typeof e.x.response_raw === 'string' && e.x.response_raw.includes('event: error\n'));
    expect(errored.length).toBeGreaterThan(0);
    for (const e of errored) expect(e.x.error_category).toBe('upstream_error');
  });

  it('has plausible timings on the fixed timeline', () => {
    for (const { x } of all()) {
      const [started, completed, latency, ttft] = [x.started_at, x.completed_at, x.latency_ms, x.latency_ttft_ms].map(Number);
      expect(started).toBeGreaterThan(BASE_EPOCH);
      expect(completed).toBeGreaterThan(started);
      expect(ttft).toBeGreaterThan(0);
      expect(ttft).toBeLessThanOrEqual(latency);
      expect(completed - started).toBeCloseTo(latency / 1000, 2);
    }
  });
});

describe('multi-turn rollouts', () => {
  it('resend the growing conversation: request size and tokens_in strictly increase along policy calls', () => {
    let longest = 0;
    for (const r of runs) {
      for (const calls of groupBy(r.exchanges.filter((e) => isPolicy(e) && ok(e) && isLinear(e)), (e) => e.rolloutId).values()) {
        const sizes = calls.map((e) => Buffer.byteLength(serialize(e.x.request)));
        const usage = calls.map((e) => e.x.response.usage);
        const tokensIn = usage.map((u) => u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) || u.prompt_tokens);
        for (let i = 1; i < calls.length; i++) {
          expect(sizes[i]).toBeGreaterThan(sizes[i - 1]);
          expect(tokensIn[i]).toBeGreaterThan(tokensIn[i - 1]);
        }
        longest = Math.max(longest, calls.length);
      }
    }
    expect(longest).toBeGreaterThanOrEqual(5);
  });

  it('serve most of each prompt from the cache of the previous one', () => {
    const shares: number[] = [];
    for (const r of runs) {
      const complete = r.exchanges.filter((e) => isPolicy(e) && ok(e) && isLinear(e) && !r.missing.has(e.rolloutId));
      for (const calls of groupBy(complete, (e) => e.rolloutId).values()) {
        for (let i = 1; i < calls.length; i++) {
          const u = calls[i].x.response.usage;
          const prev = calls[i - 1].x.response.usage;
          const cached = u.cache_read_input_tokens ?? u.input_tokens_details?.cached_tokens ?? u.prompt_tokens_details.cached_tokens;
          const prevIn = (prev.input_tokens ?? prev.prompt_tokens) + (prev.cache_read_input_tokens ?? 0) + (prev.cache_creation_input_tokens ?? 0);
          shares.push(cached / prevIn);
        }
      }
    }
    shares.sort((a, b) => a - b);
    expect(shares[Math.floor(shares.length / 2)]).toBeGreaterThan(0.7);
    expect(Math.max(...shares)).toBeLessThanOrEqual(1);
  });
});

describe('capture files and attachments', () => {
  it('derive a record from every line except the one damaged line', async () => {
    let problems = 0;
    let records = 0;
    for (const r of runs.filter((x) => x.captureDir)) {
      for (const file of await fsp.readdir(r.captureDir!)) {
        if (!file.endsWith('.capture.jsonl')) continue;
        const read = await readCaptureFile(path.join(r.captureDir!, file));
        problems += read.problems.length;
        records += read.records.length;
      }
    }
    expect(problems).toBe(1);
    expect(records).toBe(all().length);
  });

  it('carry ng_model_call_capture exactly as collectCapture + buildAttachment compute it now', async () => {
    let checked = 0;
    for (const r of runs.filter((x) => x.captureDir && x.rollouts)) {
      for (const line of [...r.rollouts!, ...r.failures]) {
        if (!line.ng_model_call_capture) continue; // an agent's own line, before the collector (demo-trajectories.test.ts)
        const attachment = line.ng_model_call_capture as JsonObject;
        const id = attachment.rollout_id as string;
        expect(serialize(attachment)).toBe(serialize(buildAttachment(id, await collectCapture([r.captureDir!], id, false), false)));
        // the collector appends the attachment, then (for runs with trajectories) the projection
        expect(Object.keys(line).filter((k) => k === 'ng_model_call_capture' || k === 'ng_trajectory')).toEqual(Object.keys(line).slice(line.ng_trajectory ? -2 : -1));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('show every capture gap: incomplete marker, unreadable line, no records', () => {
    const gaps = runs.flatMap((r) => [...(r.rollouts ?? []), ...r.failures]).flatMap((l) => l.ng_model_call_capture?.gaps ?? []);
    expect(gaps).toContainEqual({ code: 'model_call_capture_incomplete' });
    expect(gaps).toContainEqual({ code: 'model_call_capture_records_unreadable', detail: 'count=1' });
    expect(gaps).toContainEqual({ code: 'model_call_capture_no_records' });
  });

  it('keep an incomplete marker beside its capture file, and no file at all for the no-records rollout', async () => {
    for (const r of runs.filter((x) => x.captureDir && x.rollouts)) {
      for (const line of r.rollouts!.filter((l) => l.ng_model_call_capture)) {
        const { rollout_id: id, gaps = [] } = line.ng_model_call_capture;
        const has = (suffix: string) => fsp.stat(path.join(r.captureDir!, id + suffix)).then(() => true, () => false);
        if (gaps.some((g: J) => g.code === 'model_call_capture_incomplete')) expect(await has('.capture.incomplete')).toBe(true);
        if (gaps.some((g: J) => g.code === 'model_call_capture_no_records')) expect(await has('.capture.jsonl')).toBe(false);
      }
    }
  });

  it('retry a failed attempt as -a1, with the failed attempt and its capture in rollouts_failures.jsonl', async () => {
    const retried = runs.filter((r) => r.failures.length > 0);
    expect(retried.length).toBeGreaterThan(0);
    for (const r of retried) {
      for (const failure of r.failures) {
        expect(typeof failure._ng_failure_class).toBe('string');
        const base = `${failure._ng_task_index}-${failure._ng_rollout_index}`;
        expect(failure.ng_model_call_capture.rollout_id).toBe(base);
        const retry = r.rollouts!.find((l) => l._ng_task_index === failure._ng_task_index && l._ng_rollout_index === failure._ng_rollout_index);
        expect(retry._ng_attempt_index).toBe(1);
        expect(retry.ng_model_call_capture.rollout_id).toBe(`${base}-a1`);
        await expect(fsp.stat(path.join(r.captureDir!, `${base}.capture.jsonl`))).resolves.toBeTruthy();
      }
    }
  });

  it('give rewards in [0, 1]', () => {
    const rewards = runs.flatMap((r) => r.rollouts ?? []).map((l) => Number(l.reward));
    expect(rewards.length).toBeGreaterThan(100);
    for (const reward of rewards) expect(reward >= 0 && reward <= 1).toBe(true);
    expect(new Set(rewards).size).toBeGreaterThan(1);
  });
});

describe('the rollouts-only run', () => {
  it('keeps payloads in ng_trajectory.model_calls and none in the attachment calls', () => {
    const run = runs.find((r) => r.rollouts && !r.captureDir)!;
    for (const line of run.rollouts!) {
      const calls = line.ng_model_call_capture.calls as J[];
      const trajectory = line.ng_trajectory;
      expect(Object.keys(line).slice(-2)).toEqual(['ng_model_call_capture', 'ng_trajectory']);
      expect(trajectory.schema_version).toBe('1.0');
      expect(trajectory.rollout_id).toBe(line.ng_model_call_capture.rollout_id);
      expect(trajectory.task_id).toBe(String(line._ng_task_index));
      expect([trajectory.invocations, trajectory.turns, trajectory.tool_calls]).toEqual([[], [], []]);
      expect(trajectory.model_calls.map((c: J) => c.model_call_id)).toEqual(calls.map((c) => c.model_call_id));
      for (const call of calls) for (const key of ['request', 'response', 'request_raw', 'response_raw']) expect(call).not.toHaveProperty(key);
      for (const mc of trajectory.model_calls) {
        expect(mc.request.input.length).toBeGreaterThan(0);
        expect(mc.response).toBeTruthy();
        if (mc.response_metadata.status_code === 200) expect(mc.response.object).toBe('response');
      }
    }
  });
});
