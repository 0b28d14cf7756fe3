// `callscope serve` (what `npm start` runs) against the production build: the runs page lists every demo
// run with the call counts the format library computes from the same files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallColumnsSchema } from '../../lib/api/call-schemas';
import { scriptNonce } from '../../lib/server/csp';
import { readCaptureFile } from '../../lib/capture/store';
import { reportFigure } from '../support/reliability';
import { ROOT, startServe, type Served } from '../support/server';

let demo: string;
let served: Served;

/** Each demo run's rollouts and calls, counted straight from its files with the format library. */
async function expectedRuns(root: string): Promise<{ id: string; rollouts: number; calls: number }[]> {
  const out = [];
  for (const id of (await fsp.readdir(root)).sort()) {
    const dir = path.join(root, id);
    if (!(await fsp.stat(dir)).isDirectory()) continue;
    const lines: string[] = [];
    for (const f of ['rollouts.jsonl', 'rollouts_failures.jsonl']) {
      const text = await fsp.readFile(path.join(dir, f), 'utf8').catch(() => '');
      lines.push(...text.split('\n').filter((l) => l.trim()));
    }
    const captures = path.join(dir, 'captures');
    const names = await fsp.readdir(captures).catch(() => [] as string[]);
    let calls = 0;
    for (const n of names.filter((n) => n.endsWith('.capture.jsonl'))) calls += (await readCaptureFile(path.join(captures, n))).records.length;
    if (!names.length) for (const l of lines) calls += JSON.parse(l).ng_model_call_capture?.metrics?.num_calls ?? 0;
    const ids = new Set(names.map((n) => n.replace(/\.capture\.(jsonl|incomplete)$/, '')));
    for (const l of lines) {
      const row = JSON.parse(l);
      ids.add(row.ng_model_call_capture?.rollout_id ?? `${row._ng_task_index}-${row._ng_rollout_index}${row._ng_attempt_index ? `-a${row._ng_attempt_index}` : ''}`);
    }
    out.push({ id, rollouts: ids.size, calls });
  }
  return out;
}

beforeAll(async () => {
  demo = mkdtempSync(path.join(os.tmpdir(), 'callscope-e2e-'));
  const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', path.join(demo, 'runs')], { cwd: ROOT, encoding: 'utf8' });
  expect(gen.status, gen.stderr).toBe(0);
  served = await startServe([path.join(demo, 'runs'), '--index-dir', path.join(demo, 'idx')]);
});

afterAll(async () => {
  await served?.stop();
  await fsp.rm(demo, { recursive: true, force: true });
});

describe('callscope serve', () => {
  it('binds to loopback', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('lists every demo run with its rollouts and call counts', async () => {
    const res = await fetch(served.url + '/');
    expect(res.status).toBe(200);
    const html = await res.text();
    const runs = await expectedRuns(path.join(demo, 'runs'));
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const run of runs) {
      const row = new RegExp(`<tr aria-label="run ${run.id}"[^>]*>([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? '';
      const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]+>/g, ''));
      expect(cells[2], run.id).toMatch(new RegExp(`^${run.rollouts.toLocaleString('en-US')}\\b`));
      expect(cells[3], run.id).toBe(run.calls.toLocaleString('en-US'));
    }
  });

  it('renders payload-free pages: no capture payload text reaches the runs page', async () => {
    const html = await (await fetch(served.url + '/')).text();
    expect(html).not.toContain('"messages":');
  });
});

describe('callscope serve refuses unsafe binds', () => {
  it('a non-loopback host without --token exits 2 before building or binding', () => {
    const r = spawnSync(process.execPath, ['bin/callscope.js', 'serve', '--host', '0.0.0.0', '--port', '0'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('callscope serve: --host 0.0.0.0 is not a loopback address; refusing to serve it without --token\n');
    reportFigure('R9', 'a non-loopback bind without --token refused (exit 2, nothing bound)', { probes: 1, bypasses: 0 });
  });

  it('a missing PATH is a one-line error', () => {
    const r = spawnSync(process.execPath, ['bin/callscope.js', 'serve', '/no/such/dir', '--port', '0'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('callscope serve: /no/such/dir: no such file or directory\n');
  });
});

describe('the JSON API', () => {
  const get = (p: string, init?: RequestInit) => fetch(served.url + p, init);

  it('health and runs', async () => {
    expect(await (await get('/api/health')).json()).toEqual({ ok: true, version: expect.any(String) });
    const { runs } = (await (await get('/api/runs')).json()) as { runs: { id: string; progress: { state: string }; totals: { calls: number } }[] };
    const expected = await expectedRuns(path.join(demo, 'runs'));
    expect(runs.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    for (const r of runs) expect(r.totals.calls, r.id).toBe(expected.find((p) => p.id === r.id)!.calls);
  });

  it('a call and its raw line: the raw bytes are the stored line, the call carries the payloads', async () => {
    const detail = (await (await get('/api/runs/swe-claude-code/rollouts/0-0')).json()) as { capture: { calls: { model_call_id: string }[] } };
    const id = detail.capture.calls[0].model_call_id;
    const raw = await (await get(`/api/runs/swe-claude-code/rollouts/0-0/calls/${id}/raw`)).text();
    const stored = (await fsp.readFile(path.join(demo, 'runs', 'swe-claude-code', 'captures', '0-0.capture.jsonl'), 'utf8')).split('\n')[0];
    expect(raw).toBe(stored);
    const call = (await (await get(`/api/runs/swe-claude-code/rollouts/0-0/calls/${id}`)).json()) as Record<string, unknown>;
    expect(call.request).toEqual(JSON.parse(stored).request);
    expect(call.response).toEqual(JSON.parse(stored).response);
  });

  it("a rollout's own line: the bytes of its rollouts file's line, 404 for a rollout without one", async () => {
    const stored = (await fsp.readFile(path.join(demo, 'runs', 'swe-claude-code', 'rollouts.jsonl'), 'utf8')).split('\n');
    const { rollout } = (await (await get('/api/runs/swe-claude-code/rollouts/0-0')).json()) as { rollout: { line_no: number } };
    const res = await get('/api/runs/swe-claude-code/rollouts/0-0/line');
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await res.text()).toBe(stored[rollout.line_no - 1]);
    expect((await get('/api/runs/swe-claude-code/rollouts/0-0/line?download')).headers.get('content-disposition')).toBe('attachment; filename="0-0.rollout.jsonl"');
    expect((await get('/api/runs/swe-claude-code/rollouts/nope-9/line')).status).toBe(404);
    const captureOnly = (await (await get('/api/runs/proxy-sessions/rollouts?limit=1')).json()) as { rollouts: { key: string }[] };
    expect((await get(`/api/runs/proxy-sessions/rollouts/${captureOnly.rollouts[0].key}/line`)).status).toBe(404);
  });

  it("a rollout's calls as columns: one entry per call, in order, with the detail's numbers and coded strings", async () => {
    const detail = (await (await get('/api/runs/swe-claude-code/rollouts/0-0')).json()) as {
      capture: { calls: { model_call_id: string | null; dialect: string | null; tokens_in: number | null; tokens_out: number | null; latency_total_ms: number | null; error_category: string | null }[] };
    };
    const cols = CallColumnsSchema.parse(await (await get('/api/runs/swe-claude-code/rollouts/0-0/calls')).json());
    const calls = detail.capture.calls;
    expect(cols.n).toBe(calls.length);
    const decode = (k: number) => (k < 0 ? null : cols.strings[k]);
    calls.forEach((c, i) => {
      expect(cols.model_call_id[i]).toBe(c.model_call_id);
      expect(decode(cols.dialect[i])).toBe(c.dialect);
      expect(decode(cols.error_category[i])).toBe(c.error_category);
      expect(cols.tokens_in[i]).toBe(c.tokens_in);
      expect(cols.tokens_out[i]).toBe(c.tokens_out);
      expect(cols.latency_ms[i]).toBe(c.latency_total_ms);
    });
    expect((await get('/api/runs/swe-claude-code/rollouts/nope-9/calls')).status).toBe(404);
  });

  it('OpenAPI describes every route', async () => {
    const doc = (await (await get('/api/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/runs', '/api/runs/{run}/rollouts', '/api/runs/{run}/rollouts/{rollout}/calls', '/api/runs/{run}/rollouts/{rollout}/calls/{call}/raw', '/api/runs/{run}/rollouts/{rollout}/line', '/api/compare', '/api/events']));
  });

  it('errors are JSON {error: {code, message}} with 400/404, never a stack', async () => {
    for (const [p, status] of [
      ['/api/runs/nope/rollouts', 404],
      ['/api/runs/swe-claude-code/rollouts/nope-9', 404],
      ['/api/runs/swe-claude-code/rollouts/0-0/calls/nope', 404],
      ['/api/runs/swe-claude-code/rollouts/0-0/calls/nope/raw', 404],
      ['/api/runs/swe-claude-code/rollouts/0-0/calls/a%20b', 400],
      ['/api/runs/swe-claude-code/rollouts?sort=bogus', 400],
      ['/api/runs/swe-claude-code/rollouts?cursor=abc', 400],
      ['/api/compare?runs=', 400],
    ] as const) {
      const res = await get(p);
      expect(res.status, p).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.message).not.toMatch(/at .*\.(ts|js):\d+/);
    }
  });

  it('R7 quick tier: traversal through every id-taking route stays 4xx and reads nothing outside', async () => {
    const corpus = ['..%2f', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e%2fetc', '..%5c..%5cetc', '%252e%252e%252f', 'a%00b', '....//....//etc', '%2fetc%2fpasswd', 'x%2F..%2F..'];
    const routes = (id: string) => [
      `/api/runs/${id}/rollouts`, `/api/runs/swe-claude-code/rollouts/${id}`, `/api/runs/swe-claude-code/rollouts/0-0/calls/${id}`,
      `/api/runs/swe-claude-code/rollouts/0-0/calls/${id}/raw`, `/api/runs/swe-claude-code/rollouts/${id}/line`,
    ];
    let probes = 0;
    for (const id of corpus) {
      for (const p of routes(id)) {
        const res = await get(p);
        expect(res.status, p).toBeGreaterThanOrEqual(400);
        expect(res.status, p).toBeLessThan(500);
        expect(await res.text()).not.toContain('root:');
        probes++;
      }
    }
    reportFigure('R7', `${probes} traversal probes (${corpus.length} encodings × ${routes('x').length} id-taking API routes): all 4xx, 0 escapes`, { probes, escapes: 0 });
  });

  it('R9: a foreign Host header is refused', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(served.url);
      const req = request({ host: u.hostname, port: u.port, path: '/api/health', headers: { host: 'attacker.example' } }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
    reportFigure('R9', 'a foreign Host header refused (421)', { probes: 1, bypasses: 0 });
  });

  it('pages send a Content-Security-Policy', async () => {
    expect((await get('/')).headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('R9: a Host check refuses before anything else, a malformed path included', async () => {
    expect((await rawRequest(served.url, '/runs/%ff', { headers: { host: 'attacker.example' } })).status).toBe(421);
  });

  it('an appended call reaches the runs API and the event stream', async () => {
    const res = await get('/api/events');
    const reader = res.body!.getReader();
    const file = path.join(demo, 'runs', 'proxy-sessions', 'captures', 'live-1.capture.jsonl');
    const { line, makeExchange } = await import('../support/exchange');
    await fsp.writeFile(file, line(makeExchange({ model_call_id: 'live-call' })));
    let text = '';
    const deadline = Date.now() + 10_000;
    while (!text.includes('live-1') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toContain('"run":"proxy-sessions"');
    const page = (await (await get('/api/runs/proxy-sessions/rollouts?q=live-1')).json()) as { rollouts: { key: string; num_calls: number }[] };
    expect(page.rollouts).toEqual([expect.objectContaining({ key: 'live-1', num_calls: 1 })]);
  });

  it('stops on SIGTERM while a client still holds the event stream open, and exits 0', async () => {
    // A serve of its own: stopping the shared one would end the file's other tests.
    const own = await startServe([path.join(demo, 'runs'), '--index-dir', path.join(demo, 'idx-stop')], 300_000, 120_000, { indexOnly: true });
    const res = await fetch(own.url + '/api/events');
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the stream is open: its first bytes arrived
    const exited = new Promise<number | null>((resolve) => own.child.once('exit', (code) => resolve(code)));
    process.kill(-own.child.pid!, 'SIGTERM');
    // Left to server.close alone, this stream would hold the process until the client goes (the test's timeout).
    expect(await exited).toBe(0);
    await reader.cancel().catch(() => undefined);
    await own.stop();
  });
});

/** A request sent with its target exactly as written (fetch would normalize backslashes and dot segments). */
function rawRequest(origin: string, target: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return import('node:http').then(
    ({ request }) =>
      new Promise((resolve, reject) => {
        const u = new URL(origin);
        const req = request({ host: u.hostname, port: u.port, method: init.method ?? 'GET', path: target, headers: init.headers }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        });
        req.setTimeout(20_000, () => req.destroy(new Error(`${target}: no answer`)));
        req.on('error', reject);
        req.end();
      }),
  );
}

describe('malformed ids, unknown API paths and the icons', () => {
  const get = (p: string) => fetch(served.url + p);
  // Not valid percent-encoded UTF-8 (overlong, lone '%', bad hex, a lone byte), backslashes raw and encoded,
  // a control character, empty and dot segments (an empty last segment is a trailing slash, not an id): Next
  // answered the first kind 500 and redirected the second.
  const IDS = ['%c0%ae', '%c0%af', '%', '%zz', '%ff', '%ed%a0%80', 'a\\b', '%5c', '..\\..\\x', 'a%00b', '%2e%2e', ''];
  const PAGES = ['/runs/ID', '/runs/ID/rollouts/0-0', '/runs/swe-claude-code/rollouts/ID', '/runs/swe-claude-code/rollouts/0-0/calls/ID', '/ID/x'];
  const APIS = ['/api/runs/ID/rollouts', '/api/runs/swe-claude-code/rollouts/ID', '/api/runs/swe-claude-code/rollouts/ID/calls', '/api/runs/swe-claude-code/rollouts/ID/line', '/api/runs/swe-claude-code/rollouts/0-0/calls/ID', '/api/runs/swe-claude-code/rollouts/0-0/calls/ID/raw'];

  it('a malformed id in any API path is a 400 in the API error shape, never a 5xx or a redirect', async () => {
    let probes = 0;
    for (const id of IDS) {
      for (const p of APIS.filter((t) => id || !t.endsWith('ID')).map((t) => t.replace('ID', id))) {
        for (const method of ['GET', 'HEAD']) {
          const res = await rawRequest(served.url, p, { method });
          expect(res.status, `${method} ${p}`).toBe(400);
          expect(res.headers['content-type'], p).toBe('application/json');
          if (method === 'GET') expect(JSON.parse(res.body), p).toEqual({ error: { code: 'bad_request', message: expect.stringMatching(/^malformed path: /) } });
          probes++;
        }
      }
    }
    reportFigure('R7', `${probes} malformed-id probes (${IDS.length} ids in ${APIS.length} API routes, GET and HEAD): all 400 JSON`, { probes, failures: 0 });
  });

  it("a malformed id in any page path is the app's not-found page with status 404, with the page's CSP", async () => {
    for (const id of IDS) {
      for (const p of PAGES.filter((t) => id || !t.endsWith('ID')).map((t) => t.replace('ID', id))) {
        const res = await rawRequest(served.url, p);
        expect(res.status, p).toBe(404);
        expect(res.headers['content-type'], p).toMatch(/^text\/html/);
        expect(res.body, p).toContain('Page not found');
        expect(scriptNonce(res.headers['content-security-policy'] as string), p).toBeTruthy();
      }
    }
  });

  it('a request target that is not a path is a 400, and the server answers on', async () => {
    for (const target of ['http://[/x', 'http://127.0.0.1/api/runs', '*']) {
      const res = await rawRequest(served.url, target, { method: target === '*' ? 'OPTIONS' : 'GET' });
      expect(res.status, target).toBe(400);
    }
    expect((await get('/api/health')).status).toBe(200);
  });

  it('an unknown /api path is a JSON 404 for every method; known routes are still matched first', async () => {
    for (const p of ['/api', '/api/nope', '/api/runs/swe-claude-code', '/api/runs/swe-claude-code/rollouts/0-0/nope', '/api/health/x']) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        const res = await rawRequest(served.url, p, { method });
        expect(res.status, `${method} ${p}`).toBe(404);
        expect(res.headers['content-type'], `${method} ${p}`).toBe('application/json');
        if (method !== 'HEAD') expect(JSON.parse(res.body), `${method} ${p}`).toEqual({ error: { code: 'not_found', message: `no API route at ${p}` } });
      }
    }
    expect((await get('/api/health')).status).toBe(200);
    expect((await get('/api/runs/swe-claude-code/rollouts?limit=1')).status).toBe(200);
  });

  it('serves a favicon.ico (16 and 32 px PNG entries) and an SVG icon that pages link', async () => {
    const ico = await get('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 2]);
    for (const [i, size] of [16, 32].entries()) {
      expect(bytes[6 + 16 * i], 'width').toBe(size);
      const offset = bytes.readUInt32LE(6 + 16 * i + 12);
      expect(bytes.subarray(offset, offset + 8).toString('latin1'), 'PNG signature').toBe('\x89PNG\r\n\x1a\n');
      expect(bytes.readUInt32BE(offset + 16), 'PNG width').toBe(size);
    }
    const svg = await get('/icon.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const html = await (await get('/')).text();
    expect(html).toContain('<link rel="icon" href="/icon.svg" type="image/svg+xml"/>');
    expect(html).toContain('<link rel="icon" href="/favicon.ico"');
  });
});

describe('the nonce-based Content-Security-Policy', () => {
  const get = (p: string, init?: RequestInit) => fetch(served.url + p, init);
  const scriptTags = (html: string) => [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);

  it('every page, the not-found page too, has a fresh nonce that every script tag on it carries', async () => {
    const seen = new Set<string>();
    for (const p of ['/', '/runs/swe-claude-code', '/runs/swe-claude-code/rollouts/0-0', '/runs/swe-claude-code/rollouts/0-0/calls/i0', '/compare?runs=swe-claude-code,tau2-retail', '/no/such/page', '/runs/no-such-run', '/runs/%ff', '/', '/no/such/page']) {
      const res = await get(p);
      const policy = res.headers.get('content-security-policy')!;
      expect(policy, p).toMatch(/script-src 'self' 'nonce-[^']+';/);
      expect(policy, p).not.toContain('unsafe-eval');
      expect(policy.split('; ').find((d) => d.startsWith('script-src')), p).not.toContain('unsafe-inline');
      const nonce = scriptNonce(policy)!;
      expect(seen.has(nonce), `${p}: nonce reused`).toBe(false);
      seen.add(nonce);
      const tags = scriptTags(await res.text());
      expect(tags.length, p).toBeGreaterThan(3);
      for (const tag of tags) expect(tag, p).toContain(` nonce="${nonce}"`);
    }
  });

  it("a policy header the client sends is not the one Next reads: the page's nonce is the server's", async () => {
    const res = await get('/', { headers: { 'content-security-policy': "script-src 'nonce-chosenbyclient'" } });
    const nonce = scriptNonce(res.headers.get('content-security-policy'));
    expect(nonce).not.toBe('chosenbyclient');
    const html = await res.text();
    expect(html).not.toContain('chosenbyclient');
    expect(html).toContain(`nonce="${nonce}"`);
  });

  it('API answers carry no policy', async () => {
    expect((await get('/api/runs')).headers.get('content-security-policy')).toBeNull();
    expect((await get('/api/nope')).headers.get('content-security-policy')).toBeNull();
  });
});

describe('serve with a token', () => {
  let tokenServed: Served;
  beforeAll(async () => {
    tokenServed = await startServe([path.join(demo, 'runs'), '--token', 's3cret', '--index-dir', path.join(demo, 'idx-token')]);
  });
  afterAll(async () => {
    await tokenServed?.stop();
  });

  it('every route needs the token; ?token= sets a cookie', async () => {
    expect((await fetch(tokenServed.url + '/api/runs')).status).toBe(401);
    expect((await fetch(tokenServed.url + '/')).status).toBe(401);
    expect((await fetch(tokenServed.url + '/api/runs', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(tokenServed.url + '/api/runs', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    const res = await fetch(tokenServed.url + '/?token=s3cret', { redirect: 'manual' });
    expect(res.status).toBe(303);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    expect((await fetch(tokenServed.url + '/api/runs', { headers: { cookie } })).status).toBe(200);
    // A cookie that is not valid percent-encoding is no token; a malformed path is never redirected by ?token=.
    expect((await fetch(tokenServed.url + '/api/runs', { headers: { cookie: 'callscope_token=%ff' } })).status).toBe(401);
    for (const p of ['//evil.example/?token=s3cret', '/runs/a\\b?token=s3cret', '/runs/%ff?token=s3cret']) expect((await rawRequest(tokenServed.url, p)).status, p).toBe(401);
    reportFigure('R9', 'with --token: a page and the API without it, and with a wrong one, refused (401)', { probes: 3, bypasses: 0 });
  });
});
