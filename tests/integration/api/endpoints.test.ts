// The routes `serve` answers from node:http (lib/server/direct-routes.ts) and their Next route files (what `next dev`
// serves) run the same endpoint functions: for every call of a NeMo Gym-shaped results dir (capture calls, and calls
// known only from collected lines), both transports answer the same status, headers and bytes, errors included, and
// the bytes are the stored ones. One index serves both; the Next handlers are called as Next calls them.
import { mkdirSync, mkdtempSync, promises as fsp, readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as nextRaw } from '../../../app/api/runs/[run]/rollouts/[rollout]/calls/[call]/raw/route';
import { GET as nextCall } from '../../../app/api/runs/[run]/rollouts/[rollout]/calls/[call]/route';
import { GET as nextRuns } from '../../../app/api/runs/route';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import type { IndexWatcher } from '../../../lib/index/sources/watcher';
import { makeDirectRoutes } from '../../../lib/server/direct-routes';
import { setInstance } from '../../../lib/server/instance';
import { runCli } from '../../support/cli';
import { writeGymEvalRun } from '../../support/results-dir';
import { claudeLine, hermesLine, writeCaptures } from '../../support/trajectory-lines';

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/nemo-gym');
const HEADERS = ['content-type', 'content-length', 'content-disposition'];

let dir = '';
let index: CallscopeIndex;
let server: http.Server;
let base = '';
let swe = { rollouts: '', ids: [] as string[] };

interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: Buffer;
}

async function read(res: Response): Promise<Answer> {
  const headers = Object.fromEntries(HEADERS.map((h) => [h, res.headers.get(h)]));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** `segments` are the path parameters as sent (percent-encoded); Next hands its handlers them decoded. */
type Route = { kind: 'runs' } | { kind: 'call' | 'raw'; segments: [string, string, string]; query?: string };

const urlOf = (r: Route) =>
  r.kind === 'runs' ? '/api/runs' : `/api/runs/${r.segments[0]}/rollouts/${r.segments[1]}/calls/${r.segments[2]}${r.kind === 'raw' ? '/raw' : ''}${r.query ?? ''}`;

async function viaNode(r: Route, method = 'GET'): Promise<Answer> {
  return read(await fetch(base + urlOf(r), { method }));
}

async function viaNext(r: Route): Promise<Answer> {
  const req = new NextRequest('http://127.0.0.1' + urlOf(r));
  if (r.kind === 'runs') return read(await nextRuns());
  const [run, rollout, call] = r.segments.map(decodeURIComponent);
  const ctx = { params: Promise.resolve({ run, rollout, call }) };
  return read(await (r.kind === 'raw' ? nextRaw(req, ctx) : nextCall(req, ctx)));
}

/** The same answer on both transports; returns it. */
async function both(r: Route): Promise<Answer> {
  const [node, next] = await Promise.all([viaNode(r), viaNext(r)]);
  const what = `${urlOf(r)}: node ${node.status} ${node.body.subarray(0, 200)} / next ${next.status} ${next.body.subarray(0, 200)}`;
  expect(next.status, what).toBe(node.status);
  expect(next.headers, what).toEqual(node.headers);
  expect(next.body.equals(node.body), what).toBe(true);
  return node;
}

const errorOf = (a: Answer) => JSON.parse(a.body.toString('utf8')) as { error: { code: string; message: string } };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-endpoints-'));
  // `gym eval run` over the coding-agent fixture with capture on: a capture file per rollout beside the rollouts file.
  swe = writeGymEvalRun(path.join(dir, 'results'), 'swe_rollouts', path.join(FIXTURES, 'anyswe_claude_code.jsonl'), { captureDir: 'model-calls' });
  // Agent rollouts with many calls per capture file, and the collector's output for them (calls known from the lines).
  const captures = path.join(dir, 'agent', 'captures');
  mkdirSync(captures, { recursive: true });
  writeCaptures(captures);
  const raw = path.join(dir, 'agent', 'raw.jsonl');
  writeFileSync(raw, [claudeLine, hermesLine].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const collected = path.join(dir, 'collected', 'rollouts.jsonl');
  mkdirSync(path.dirname(collected));
  const r = await runCli(['attach', '--capture-dir', captures, '--input', raw, '--output', collected, '--trajectory']);
  expect(r.code, r.stderr).toBe(0);
  index = await CallscopeIndex.open([{ path: path.join(dir, 'results') }, { path: raw, captureDir: captures }, { path: collected }], path.join(dir, 'idx'), { workers: 0 });
  await index.refresh();
  // The routes read only the index; no watcher, so that files changed below stay as the index recorded them.
  setInstance(Promise.resolve({ index, watcher: null as unknown as IndexWatcher, ready: Promise.resolve() }));
  const direct = makeDirectRoutes(index);
  server = http.createServer((req, res) => {
    if (!direct(req, res)) res.writeHead(599).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  index?.close();
  await fsp.rm(dir, { recursive: true, force: true });
});

const runId = (suffix: string) => index.listRuns().find((r) => r.id.endsWith(suffix))!.id;
const callsOf = (run: string) =>
  index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 100 })!.rollouts.flatMap((r) =>
    index.rolloutCalls(run, r.key)!.map((c) => ({ rollout: r.key, call: c.model_call_id ?? `i${c.call_index}` })),
  );

describe('one endpoint per route, on both transports', () => {
  it('GET /api/runs: every run, the same answer', async () => {
    const a = await both({ kind: 'runs' });
    expect(a.status).toBe(200);
    const { runs } = JSON.parse(a.body.toString('utf8')) as { runs: { id: string }[] };
    expect(runs.map((r) => r.id).sort()).toEqual(index.listRuns().map((r) => r.id).sort());
    expect(runs).toHaveLength(3);
  });

  it('a capture call: its record and its raw line, byte for byte the stored line, on both', async () => {
    let checked = 0;
    for (const suffix of ['swe_rollouts', 'raw']) {
      const run = runId(suffix);
      for (const { rollout, call } of callsOf(run)) {
        const record = await both({ kind: 'call', segments: [run, rollout, call] });
        expect(record.status).toBe(200);
        expect(record.headers['content-type']).toBe('application/json');
        const parsed = parsePython(record.body) as JsonObject;
        const raw = await both({ kind: 'raw', segments: [run, rollout, call] });
        expect(raw.status).toBe(200);
        expect(raw.headers['content-type']).toBe('application/x-ndjson');
        expect(raw.headers['content-length']).toBe(String(raw.body.length));
        expect(raw.headers['content-disposition']).toBeNull();
        const stored = parsePython(raw.body) as JsonObject;
        expect(parsed.model_call_id ?? null).toBe(stored.model_call_id ?? null);
        expect(parsed.request).toEqual(stored.request);
        checked++;
      }
    }
    // the fixture's rollout ids each got their capture file; the agent lines several calls each
    expect(checked).toBeGreaterThan(swe.ids.length);
    const first = swe.ids[0];
    const line = readFileSync(path.join(dir, 'results', 'model-calls', `${first}.capture.jsonl`));
    const raw = await both({ kind: 'raw', segments: [runId('swe_rollouts'), first, `call-${first}`] });
    expect(raw.body.toString('utf8') + '\n').toBe(line.toString('utf8'));
  });

  it('?download names the file on both', async () => {
    const first = swe.ids[0];
    const raw = await both({ kind: 'raw', segments: [runId('swe_rollouts'), first, `call-${first}`], query: '?download=1' });
    expect(raw.headers['content-disposition']).toBe(`attachment; filename="${first}-call-${first}.jsonl"`);
  });

  it('a call known only from the collected line: its record on both, no raw line (404 on both)', async () => {
    const run = runId('collected');
    const calls = callsOf(run);
    expect(calls.length).toBeGreaterThan(2);
    for (const { rollout, call } of calls) {
      const record = await both({ kind: 'call', segments: [run, rollout, call] });
      expect(record.status).toBe(200);
      expect(record.headers['content-length']).toBe(String(record.body.length));
      expect((parsePython(record.body) as JsonObject).model_call_id).toBe(call);
      const raw = await both({ kind: 'raw', segments: [run, rollout, call] });
      expect(raw.status).toBe(404);
      expect(errorOf(raw).error).toEqual({ code: 'not_found', message: `stored capture line of call '${call}' not found` });
    }
  });

  it('unknown and invalid ids: the same 404 and 400 bodies on both', async () => {
    const run = runId('swe_rollouts');
    const rollout = swe.ids[0];
    const cases: [Route, number, string][] = [
      [{ kind: 'call', segments: ['no-such-run', rollout, 'i0'] }, 404, `call 'i0' of rollout '${rollout}' not found`],
      [{ kind: 'call', segments: [run, 'no-such-rollout', 'i0'] }, 404, `call 'i0' of rollout 'no-such-rollout' not found`],
      [{ kind: 'call', segments: [run, rollout, 'nope'] }, 404, `call 'nope' of rollout '${rollout}' not found`],
      [{ kind: 'raw', segments: [run, rollout, 'i7'] }, 404, `stored capture line of call 'i7' not found`],
      [{ kind: 'call', segments: [run, rollout, 'a%20b'] }, 400, 'input: not a call id'],
      [{ kind: 'raw', segments: [run, 'a~x', 'i0'] }, 400, 'input: not a rollout id'],
      [{ kind: 'raw', segments: ['-run', rollout, 'i0'] }, 400, 'input: not a run id'],
    ];
    for (const [route, status, message] of cases) {
      const a = await both(route);
      expect(a.status, urlOf(route)).toBe(status);
      expect(a.headers['content-type']).toBe('application/json');
      expect(errorOf(a).error).toEqual({ code: status === 404 ? 'not_found' : 'bad_request', message });
    }
  });

  it('HEAD on node: the GET status and headers, no body', async () => {
    const first = swe.ids[0];
    const route: Route = { kind: 'raw', segments: [runId('swe_rollouts'), first, `call-${first}`] };
    const [get, head] = [await viaNode(route), await viaNode(route, 'HEAD')];
    expect(head.status).toBe(200);
    expect(head.headers).toEqual(get.headers);
    expect(head.body.length).toBe(0);
  });

  it('a capture file gone since it was indexed: the raw line is a 404, the record a 500, on both', async () => {
    const run = runId('swe_rollouts');
    const last = swe.ids.at(-1)!;
    const file = path.join(dir, 'results', 'model-calls', `${last}.capture.jsonl`);
    renameSync(file, file + '.gone');
    const raw = await both({ kind: 'raw', segments: [run, last, `call-${last}`] });
    expect(raw.status).toBe(404);
    expect(errorOf(raw).error.message).toBe(`stored capture line of call 'call-${last}' not found`);
    // not a typed error: logged (by each transport, once), answered without its stack
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const record = await both({ kind: 'call', segments: [run, last, `call-${last}`] });
    expect(record.status).toBe(500);
    expect(errorOf(record).error).toEqual({ code: 'internal', message: 'internal error' });
    expect(logged.mock.calls.map((c) => c[0])).toEqual(['callscope api:', 'callscope api:']);
    logged.mockRestore();
  });
});
