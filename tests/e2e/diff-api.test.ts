// GET /api/diff through `callscope serve`, over a results dir laid out as NeMo Gym leaves it (tests/support/diff-data.ts):
// two rollouts of one task with the same first three calls, a divergence at call 3 and one call more in b, and a run
// collected without capture. The pairs, the divergence and the deltas are the ones the data was built with; bad input
// is a 400 and unknown ids a 404, both as JSON errors.
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiffSchema } from '../../lib/api/diff-schemas';
import { A, B, DIFF_RUN, expectedDiff, UNCAPTURED_RUN, writeDiffData } from '../support/diff-data';
import { startServe, type Served } from '../support/server';

let dir: string;
let served: Served;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-diff-api-'));
  served = await startServe([writeDiffData(dir), '--index-dir', path.join(dir, 'idx')]);
});
afterAll(async () => {
  await served?.stop();
  await fsp.rm(dir, { recursive: true, force: true });
});

const diffUrl = (a: string, b: string, extra = '') => `/api/diff?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}${extra}`;
async function diff(a: string, b: string, extra = '') {
  const res = await fetch(served.url + diffUrl(a, b, extra));
  expect(res.status, await res.clone().text()).toBe(200);
  return DiffSchema.parse(await res.json());
}

describe('GET /api/diff', () => {
  it('aligns the calls of two rollouts: the pairs, the first divergence and each pair\'s deltas', async () => {
    const want = expectedDiff();
    const d = await diff(`${DIFF_RUN}/${A}`, `${DIFF_RUN}/${B}`);
    expect(d.a).toMatchObject({ run: DIFF_RUN, rollout: A, source: 'capture', calls: 6 });
    expect(d.b).toMatchObject({ run: DIFF_RUN, rollout: B, source: 'capture', calls: 7 });
    expect(d.pairs.map((p) => [p.a_call, p.b_call])).toEqual(want.pairs);
    expect(d.first_divergence).toEqual(want.first_divergence);
    expect(d.pairs.map((p) => p.tokens_delta)).toEqual(want.tokens_delta);
    expect(d.pairs.map((p) => p.latency_delta)).toEqual(want.latency_delta);
    expect(d.pairs[3].request_diff).toEqual({ op: 'summary', equal: true, shared_prefix: want.shared_prefix_at_divergence, a_items: 8, b_items: 8 });
    expect(d.pairs[3].response_diff).toEqual({ op: 'summary', equal: false });
    expect(d.pairs.slice(0, 3).every((p) => p.state === 'same')).toBe(true);
  });

  it('the other way round: the deltas change sign and b\'s extra call is a\'s', async () => {
    const want = expectedDiff();
    const d = await diff(`${DIFF_RUN}/${B}`, `${DIFF_RUN}/${A}`);
    expect(d.pairs.map((p) => [p.b_call, p.a_call])).toEqual(want.pairs);
    expect(d.pairs.map((p) => p.tokens_delta)).toEqual(want.tokens_delta.map((x) => -x));
    expect(d.pairs[4].state).toBe('a_only');
  });

  it('pair=N: that pair alone, with its full diffs: the shared history folded to one run of its length', async () => {
    const d = await diff(`${DIFF_RUN}/${A}`, `${DIFF_RUN}/${B}`, '&pair=5');
    expect(d.pair).toBe(5);
    expect(d.pairs).toHaveLength(1);
    const p = d.pairs[0] as { index: number; request_diff: { op: string; entries: { key: string; diff: { op: string; runs: { op: string; count: number }[] } }[] } };
    expect(p.index).toBe(5);
    const input = p.request_diff.entries.find((e) => e.key === 'input')!.diff;
    expect(input.op).toBe('array');
    expect(input.runs[0]).toMatchObject({ op: 'same', count: 8 });
    // The numbers of the payload as stored: "temperature":1.0 stays a float on the wire.
    const text = await (await fetch(served.url + diffUrl(`${DIFF_RUN}/${A}`, `${DIFF_RUN}/${B}`, '&pair=5'))).text();
    expect(text).toContain('"temperature","diff":{"op":"same","value":1.0}');
  });

  it('a rollout without captured calls is its line\'s conversation, one pair', async () => {
    const d = await diff(`${UNCAPTURED_RUN}/0-0`, `${UNCAPTURED_RUN}/1-0`);
    expect(d.a.source).toBe('line');
    expect(d.pairs.map((p) => [p.a_call, p.b_call])).toEqual([[0, 0]]);
    expect(d.first_divergence).toEqual({ pair: 0, in: 'request' });
  });

  it('bad input is a 400, unknown ids a 404, as JSON errors', async () => {
    for (const [q, status] of [
      [`?a=${DIFF_RUN}/${A}`, 400],
      [`?a=${DIFF_RUN}&b=${DIFF_RUN}/${B}`, 400],
      [`?a=${DIFF_RUN}/${A}/x&b=${DIFF_RUN}/${B}`, 400],
      [`?a=..%2F${A}&b=${DIFF_RUN}/${B}`, 400],
      [`?a=${DIFF_RUN}/${A}&b=${DIFF_RUN}/${B}&pair=-1`, 400],
      [`?a=${DIFF_RUN}/${A}&b=${DIFF_RUN}/${B}&pair=x`, 400],
      [`?a=nope/${A}&b=${DIFF_RUN}/${B}`, 404],
      [`?a=${DIFF_RUN}/${A}&b=${DIFF_RUN}/9-9`, 404],
      [`?a=${DIFF_RUN}/${A}&b=${DIFF_RUN}/${B}&pair=7`, 404],
    ] as const) {
      const res = await fetch(`${served.url}/api/diff${q}`);
      expect(res.status, q).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code, q).toBe(status === 400 ? 'bad_request' : 'not_found');
      expect(body.error.message).not.toMatch(/at .*\.(ts|js):\d+/);
    }
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await (await fetch(served.url + '/api/openapi.json')).json()) as { paths: Record<string, { get: { parameters: { name: string; required: boolean }[] } }> };
    expect(doc.paths['/api/diff'].get.parameters.map((p) => [p.name, p.required])).toEqual([['a', true], ['b', true], ['pair', false]]);
  });
});
