// The OpenAPI document describes the API that is served: `callscope serve` over the demo data answers every path of
// its GET /api/openapi.json, requested with real ids (runs, rollouts, calls, tasks, a diff and each of its pairs, a
// compare of two runs), and each JSON answer parses with the strict form of the schema the document is written from
// (API_ROUTES in lib/api/openapi.ts): a field the schema does not list fails, and so does one it lists that is missing.
// Error answers parse with the error schema. A path of the document without a case here fails, so a new route comes
// with one. Text answers (the stored lines, the event stream) are checked for their content type.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CallColumnsSchema, CallSchema, type CallColumns } from '../../lib/api/call-schemas';
import { API_ROUTES, type ApiRoute } from '../../lib/api/openapi';
import { ErrorSchema, type RolloutPage, type RunsResponse } from '../../lib/api/schemas';
import type { TaskPage } from '../../lib/api/task-schemas';
import { useDemo } from '../support/demo';
import { startServe, type Served } from '../support/server';
import { strictSchema } from '../support/strict-schema';

const fx = useDemo('callscope-api-schemas-');
let served: Served;

const get = (p: string) => fetch(served.url + p);
async function getJson<T>(p: string): Promise<T> {
  const res = await get(p);
  expect(res.status, `${p}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}
const enc = encodeURIComponent;

/** One rollout with calls of each demo run, the ids the cases request. */
interface Sample {
  run: string;
  rollout: string;
  /** Two rollouts of the run (the same twice when it has one), for a diff. */
  other: string;
  call: string | null;
  /** Whether its calls come from the capture dir (a call from a line's attachment has no stored line to answer raw). */
  stored: boolean;
  /** Whether the rollout has a line in a rollouts file (a capture dir alone has none). */
  line: boolean;
  task: number | null;
  agent: string | null;
}
let samples: Sample[] = [];

beforeAll(async () => {
  served = await startServe([fx.demo, '--index-dir', path.join(fx.tmp, 'idx')]);
  const { runs } = await getJson<RunsResponse>('/api/runs');
  samples = [];
  for (const r of runs) {
    const page = await getJson<RolloutPage>(`/api/runs/${enc(r.id)}/rollouts?limit=50`);
    const withCalls = page.rollouts.find((x) => x.num_calls > 0) ?? page.rollouts[0];
    if (!withCalls) continue;
    const cols = await getJson<CallColumns>(`/api/runs/${enc(r.id)}/rollouts/${enc(withCalls.key)}/calls`);
    const tasks = await getJson<TaskPage>(`/api/runs/${enc(r.id)}/tasks?limit=1`);
    const agent = tasks.agents[0] ?? null;
    samples.push({
      run: r.id,
      rollout: withCalls.key,
      other: page.rollouts.find((x) => x.key !== withCalls.key)?.key ?? withCalls.key,
      call: cols.n ? (cols.model_call_id[0] ?? `i${cols.call_index[0]}`) : null,
      stored: withCalls.source === 'capture',
      line: withCalls.line_no !== null,
      task: agent?.tasks[0]?.task_index ?? null,
      agent: agent?.agent ?? null,
    });
  }
}, 600_000);
afterAll(async () => {
  await served?.stop();
});

type Path = keyof typeof API_ROUTES;
const base = (s: Sample) => `/api/runs/${enc(s.run)}/rollouts/${enc(s.rollout)}`;
const withCall = () => samples.filter((s): s is Sample & { call: string } => s.call !== null);
const diffs = () => [
  `a=${enc(`${samples[0].run}/${samples[0].rollout}`)}&b=${enc(`${samples[0].run}/${samples[0].other}`)}`,
  `a=${enc(`${samples[0].run}/${samples[0].rollout}`)}&b=${enc(`${samples[1].run}/${samples[1].rollout}`)}`,
];

/** What each path of the document is requested with: every demo run where the route takes a run. */
const CASES: Record<Path, () => Promise<string[]> | string[]> = {
  '/api/health': () => ['/api/health'],
  '/api/runs': () => ['/api/runs'],
  '/api/runs/{run}/rollouts': () => samples.flatMap((s) => [`/api/runs/${enc(s.run)}/rollouts`, `/api/runs/${enc(s.run)}/rollouts?sort=tokens_total&order=desc&limit=3`]),
  '/api/runs/{run}/rollouts/{rollout}': () => samples.flatMap((s) => [base(s), `/api/runs/${enc(s.run)}/rollouts/${enc(s.other)}`]),
  '/api/runs/{run}/rollouts/{rollout}/calls': () => samples.flatMap((s) => [`${base(s)}/calls`, `${base(s)}/calls?fields=start_ms,end_ms`]),
  '/api/runs/{run}/rollouts/{rollout}/calls/{call}': () => withCall().map((s) => `${base(s)}/calls/${enc(s.call)}`),
  '/api/runs/{run}/rollouts/{rollout}/calls/{call}/raw': () =>
    withCall()
      .filter((s) => s.stored)
      .map((s) => `${base(s)}/calls/${enc(s.call)}/raw`),
  '/api/runs/{run}/rollouts/{rollout}/line': () => samples.filter((s) => s.line).map((s) => `${base(s)}/line`),
  '/api/runs/{run}/rollouts/{rollout}/trajectory': () => samples.flatMap((s) => [`${base(s)}/trajectory`, `${base(s)}/trajectory?include_payloads=1`]),
  '/api/runs/{run}/tasks': () => samples.map((s) => `/api/runs/${enc(s.run)}/tasks`),
  '/api/runs/{run}/tasks/{task}': () =>
    samples.filter((s) => s.task !== null).map((s) => `/api/runs/${enc(s.run)}/tasks/${s.task}${s.agent !== null ? `?agent=${enc(s.agent)}` : ''}`),
  '/api/compare': () => [`/api/compare?runs=${enc(samples[0].run)}`, `/api/compare?runs=${samples.map((s) => enc(s.run)).slice(0, 8).join(',')}`],
  '/api/compare/points': () => [`/api/compare/points?runs=${samples.map((s) => enc(s.run)).slice(0, 8).join(',')}`],
  '/api/diff': async () => {
    const urls = diffs().map((q) => `/api/diff?${q}`);
    // Each pair of the first diff on its own: the pair's structural diffs of request and response.
    const { pairs } = await getJson<{ pairs: unknown[] }>(urls[0]);
    return [...urls, ...pairs.map((_, i) => `${urls[0]}&pair=${i}`)];
  },
  '/api/events': () => ['/api/events'],
};

/** An answer of each route that has errors, in the error shape: unknown ids are a 404, bad input a 400. */
const ERRORS: [string, number][] = [
  ['/api/runs/no-such-run/rollouts', 404],
  ['/api/runs/no-such-run/rollouts/0-0', 404],
  ['/api/runs/no-such-run/rollouts/0-0/calls', 404],
  ['/api/runs/no-such-run/rollouts/0-0/calls/i0', 404],
  ['/api/runs/no-such-run/rollouts/0-0/calls/i0/raw', 404],
  ['/api/runs/no-such-run/rollouts/0-0/line', 404],
  ['/api/runs/no-such-run/rollouts/0-0/trajectory', 404],
  ['/api/runs/no-such-run/tasks', 404],
  ['/api/runs/no-such-run/tasks/0', 404],
  ['/api/compare?runs=no-such-run', 404],
  ['/api/compare/points?runs=no-such-run', 404],
  ['/api/diff?a=no-such-run/0-0&b=no-such-run/0-1', 404],
  ['/api/runs/x/rollouts?sort=nope', 400],
  ['/api/runs/x/rollouts/0-0/calls?fields=nope', 400],
  ['/api/runs/x/tasks/minus-one', 400],
  ['/api/compare?runs=', 400],
  ['/api/diff?a=x', 400],
  ['/api/no-such-route', 404],
];

function expectParses(schema: z.ZodType, body: unknown, url: string) {
  const parsed = strictSchema(schema).safeParse(body);
  expect(parsed.success, `${url}: ${parsed.error ? JSON.stringify(parsed.error.issues.slice(0, 5)) : ''}`).toBe(true);
}

describe('the OpenAPI document against the served API', () => {
  it('lists the routes API_ROUTES holds, and each has a case here', async () => {
    const doc = await getJson<{ paths: Record<string, unknown> }>('/api/openapi.json');
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(API_ROUTES).sort());
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(doc.paths).sort());
  });

  it('demo data to request: runs with rollouts, calls and tasks', () => {
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(withCall().length).toBeGreaterThanOrEqual(2);
    expect(samples.some((s) => s.task !== null)).toBe(true);
  });

  for (const [p, route] of Object.entries(API_ROUTES) as [Path, ApiRoute][]) {
    it(`GET ${p}: every answer is the document's`, async () => {
      const urls = await CASES[p]();
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) {
        const res = await get(url);
        if ('text' in route.ok) {
          expect(res.status, url).toBe(200);
          expect(res.headers.get('content-type'), url).toBe(route.ok.text);
          await res.body?.cancel(); // the event stream does not end: its first bytes are enough
          continue;
        }
        const text = await res.text();
        expect(res.status, `${url}: ${text.slice(0, 300)}`).toBe(200);
        expect(res.headers.get('content-type'), url).toMatch(/^application\/json/);
        expectParses(route.ok.schema, JSON.parse(text), url);
      }
    });
  }

  it('without fields, the calls answer has every column', async () => {
    for (const s of samples) expectParses(CallColumnsSchema, await getJson(`${base(s)}/calls`), `${base(s)}/calls`);
  });

  it('a call record keeps the spec\'s field order (§3), which the schema lists', async () => {
    for (const s of withCall()) {
      const record = await getJson<Record<string, unknown>>(`${base(s)}/calls/${enc(s.call)}`);
      expect(Object.keys(record)).toEqual(Object.keys(CallSchema.shape));
    }
  });

  it('errors are the error shape, with the status the document gives', async () => {
    for (const [url, status] of ERRORS) {
      const res = await get(url);
      const text = await res.text();
      expect(res.status, `${url}: ${text.slice(0, 300)}`).toBe(status);
      expectParses(ErrorSchema, JSON.parse(text), url);
      expect(JSON.parse(text).error.code).toBe(status === 404 ? 'not_found' : 'bad_request');
    }
  });

  it('the strict form refuses a field the schema does not list, at any depth, and a missing one', async () => {
    const body = await getJson<RunsResponse>('/api/runs');
    const schema = strictSchema(API_ROUTES['/api/runs'].ok.schema);
    expect(schema.safeParse(body).success).toBe(true);
    expect(schema.safeParse({ ...body, extra: 1 }).success).toBe(false);
    const [first, ...rest] = body.runs;
    expect(schema.safeParse({ runs: [{ ...first, totals: { ...first.totals, extra: 1 } }, ...rest] }).success).toBe(false);
    const { capture_dir: _dropped, ...without } = first;
    expect(schema.safeParse({ runs: [without, ...rest] }).success).toBe(false);
  });
});
