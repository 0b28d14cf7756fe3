// The diff of two rollouts read through the index from a results dir laid out as NeMo Gym leaves it (capture files
// of Responses calls, a judge server, ids of each rollout's own): the pairs, the first divergence and the deltas the
// data was built to have, one pair's full diff with the shared history folded, and a run collected without capture
// (each rollout its line's conversation, one pair).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { rolloutDiff, rolloutDiffPair } from '../../../lib/index/compare/rollout-diff';
import type { JsonDiff } from '../../../lib/rollouts/diff-json';
import { diffSides } from '../../../lib/rollouts/diff-sides';
import { A, B, DIFF_RUN, expectedDiff, LONG, UNCAPTURED_RUN, writeDiffData } from '../../support/diff-data';
import { FIXTURES } from '../../support/nemo-gym-data';

let dir: string;
let index: CallscopeIndex;
const a = { run: DIFF_RUN, rollout: A };
const b = { run: DIFF_RUN, rollout: B };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-rollout-diff-'));
  index = await CallscopeIndex.open([{ path: writeDiffData(dir) }], path.join(dir, 'idx'));
  await index.refresh();
});
afterAll(() => {
  index?.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = any;
const inputOf = (d: JsonDiff) => (d.op === 'object' ? d.entries.find((e) => e.key === 'input')?.diff : undefined);

describe('rolloutDiff over the index', () => {
  it('aligns the calls, marks the first divergence and gives each pair its deltas', async () => {
    const want = expectedDiff();
    const d = (await rolloutDiff(index, a, b))!;
    expect(d.a).toMatchObject({ source: 'capture', calls: 6, reward: 0 });
    expect(d.b).toMatchObject({ source: 'capture', calls: 7, reward: 1 });
    expect(d.pairs.map((p) => [p.a_call, p.b_call])).toEqual(want.pairs);
    expect(d.first_divergence).toEqual(want.first_divergence);
    expect(d.pairs.map((p) => p.tokens_delta)).toEqual(want.tokens_delta);
    expect(d.pairs.map((p) => p.latency_delta)).toEqual(want.latency_delta);
    expect(d.pairs.map((p) => p.state)).toEqual(['same', 'same', 'same', 'different', 'b_only', 'different', 'different']);
    expect(d.pairs[3].request_diff).toEqual({ op: 'summary', equal: true, shared_prefix: want.shared_prefix_at_divergence, a_items: 8, b_items: 8 });
    expect(d.pairs.map((p) => p.model_server)).toEqual([...Array(6).fill('policy_model'), 'judge_model']);
    expect(d.pairs[0].a_ref).toBe('a-call-0');
  });

  it('one pair in full: the shared history folded with its length, the rest diffed, both sides readable', async () => {
    const d = (await rolloutDiffPair(index, a, b, 5))!;
    expect(d.pair).toBe(5);
    expect(d.pairs).toHaveLength(1);
    const p = d.pairs[0];
    expect([p.index, p.a_call, p.b_call]).toEqual([5, 4, 5]);
    const input = inputOf(p.request_diff as JsonDiff) as Extract<JsonDiff, { op: 'array' }>;
    expect(input).toMatchObject({ op: 'array', a_length: 10, b_length: 12 });
    expect(input.runs[0]).toMatchObject({ op: 'same', a_index: 0, b_index: 0, count: 8 });
    // After it, a's call 3 and its output beside b's (the same kinds, paired), then b's extra search and its output.
    expect(input.runs.slice(1).map((r) => [r.op, r.a_index, r.b_index, r.count])).toEqual([['changed', 8, 8, 1], ['changed', 9, 9, 1], ['added', 10, 10, 2]]);
    // Read back, the two sides are the stored requests.
    const lines = (k: string) => readFileSync(path.join(dir, 'results', 'model-calls', `${k}.capture.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => parseStrict(l) as JsonObject);
    const sides = diffSides(p.request_diff as JsonDiff);
    expect(sides.a).toEqual(lines(A)[4].request);
    expect(sides.b).toEqual(lines(B)[5].request);
    // At the divergence the requests are the same history with each rollout's own ids: one folded run.
    const atDivergence = inputOf((await rolloutDiffPair(index, a, b, 3))!.pairs[0].request_diff as JsonDiff);
    expect(atDivergence).toMatchObject({ op: 'array', runs: [{ op: 'same', count: 8 }] });
    expect((atDivergence as { runs: unknown[] }).runs).toHaveLength(1);
    expect(await rolloutDiffPair(index, a, b, 99)).toBeNull();
  });

  it('the pair b alone has: its request all added', async () => {
    const p = (await rolloutDiffPair(index, a, b, 4))!.pairs[0];
    expect(p.request_diff).toMatchObject({ op: 'added' });
    expect(p.response_diff).toMatchObject({ op: 'added' });
  });

  it('a long pair diverges where it was built to, and stays paired by server after it', async () => {
    const d = (await rolloutDiff(index, { run: DIFF_RUN, rollout: LONG.a }, { run: DIFF_RUN, rollout: LONG.b }))!;
    expect(d.pairs).toHaveLength(LONG.calls);
    expect(d.pairs.every((p) => p.a_call === p.index && p.b_call === p.index)).toBe(true);
    expect(d.first_divergence).toEqual({ pair: LONG.divergeAt, in: 'response' });
    expect(d.pairs[LONG.divergeAt + 1].request_diff).toMatchObject({ shared_prefix: 2 + 2 * LONG.divergeAt, equal: false });
  });

  it('unknown runs and rollouts are null', async () => {
    expect(await rolloutDiff(index, { run: 'nope', rollout: A }, b)).toBeNull();
    expect(await rolloutDiff(index, a, { run: DIFF_RUN, rollout: '9-9' })).toBeNull();
  });

  it('rollouts without captured calls: each line\'s conversation is one pair', async () => {
    const lines = readFileSync(FIXTURES.file.string_match, 'utf8').split('\n').filter(Boolean).map((l) => parseStrict(l) as Row);
    const [x, y] = [lines.find((l) => l._ng_task_index === 0), lines.find((l) => l._ng_task_index === 1)];
    const d = (await rolloutDiff(index, { run: UNCAPTURED_RUN, rollout: '0-0' }, { run: UNCAPTURED_RUN, rollout: '1-0' }))!;
    expect(d.a.source).toBe('line');
    expect(d.pairs.map((p) => [p.a_call, p.b_call, p.a_ref])).toEqual([[0, 0, 'line']]);
    expect(d.pairs[0].tokens_delta).toBe(y.response.usage.total_tokens - x.response.usage.total_tokens);
    expect(d.first_divergence).toEqual({ pair: 0, in: 'request' });
    const full = (await rolloutDiffPair(index, { run: UNCAPTURED_RUN, rollout: '0-0' }, { run: UNCAPTURED_RUN, rollout: '1-0' }, 0))!.pairs[0];
    const sides = diffSides(full.response_diff as JsonDiff);
    expect(sides.a).toEqual(x.response);
    expect(sides.b).toEqual(y.response);
  });
});
