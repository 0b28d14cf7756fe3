// `callscope serve`'s first start: when the dashboard's build is stale, serve listens before `next build` ends
// and answers while it runs. The build step is held open by a stand-in script (CALLSCOPE_TEST_FAKE_BUILD: the
// real `.next`, fresh from the global setup, is neither rebuilt nor re-dated) until the test releases it; then
// Next.js loads that real build and serves the pages. Served: NeMo Gym's layout (a `results/` folder with a
// rollouts file in the shape of NeMo Gym's mcqa example) beside a captured run of the demo generator.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, promises as fsp, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CLEAN, launchBrowser, openPage, problems, type TrackedPage } from '../support/browser';
import { FIXTURES } from '../support/nemo-gym-data';
import { ROOT, startServe, type Served } from '../support/server';

let tmp: string;
const BUILD_ID = path.join(ROOT, '.next', 'BUILD_ID');
let buildIdMtime: number;

/** A stand-in for `next build` that says it started, then waits until `release` exists and exits with `code`. */
function fakeBuild(name: string, code: number): { script: string; release: string } {
  const release = path.join(tmp, `${name}.release`);
  const script = path.join(tmp, `${name}.mjs`);
  writeFileSync(
    script,
    `import { existsSync } from 'node:fs';\nconsole.log('fake build: started');\n` +
      `const t = setInterval(() => { if (existsSync(${JSON.stringify(release)})) { clearInterval(t); process.exit(${code}); } }, 50);\n`,
  );
  return { script, release };
}

/** A GET or HEAD with a Host header of our choosing (fetch sets its own). */
function request(url: string, pathName: string, init: { method?: string; host?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: pathName, method: init.method ?? 'GET', headers: init.host ? { host: init.host } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-first-start-'));
  const runs = path.join(tmp, 'runs');
  const gen = spawnSync(process.execPath, ['bin/callscope.js', 'demo', '--out', path.join(runs, 'captured'), '--rollouts', '2', '--calls', '4'], { cwd: ROOT, encoding: 'utf8' });
  expect(gen.status, gen.stderr).toBe(0);
  mkdirSync(path.join(runs, 'results'));
  copyFileSync(FIXTURES.file.mcqa, path.join(runs, 'results', 'mcqa_rollouts.jsonl'));
  buildIdMtime = statSync(BUILD_ID).mtimeMs;
});

afterAll(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

/** Chromium logs the main document's own 503 (each reload of the building page) as a console error. */
const DOCUMENT_503 = /Failed to load resource: the server responded with a status of 503/;

describe('serve while the dashboard is being built', () => {
  let served: Served;
  let release: string;
  let browser: Browser;
  let t: TrackedPage;

  beforeAll(async () => {
    const fake = fakeBuild('build', 0);
    release = fake.release;
    served = await startServe([path.join(tmp, 'runs'), '--index-dir', path.join(tmp, 'idx')], 120_000, 120_000, {
      env: { CALLSCOPE_TEST_FAKE_BUILD: fake.script },
      indexOnly: true,
    });
    browser = await launchBrowser();
    t = await openPage(browser, served.url);
  });

  afterAll(async () => {
    await t?.close();
    await browser?.close();
    await served?.stop();
  });

  it('listens and says it is building before the build ends', () => {
    expect(existsSync(release)).toBe(false);
    expect(served.output()).toMatch(/serving .* on http:\/\/127\.0\.0\.1:\d+/);
    expect(served.output()).toContain('callscope: building the dashboard');
    expect(served.output()).toContain('callscope: indexing...');
  });

  it('answers a page with the self-reloading 503 building page, without script, behind the CSP', async () => {
    for (const p of ['/', '/runs/results-mcqa_rollouts', '/compare?runs=a,b']) {
      const res = await request(served.url, p);
      expect(res.status, p).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toMatch(/script-src 'self' 'nonce-/);
      expect(res.body).toContain('callscope is building the dashboard (first start)');
      expect(res.body).toContain('<meta http-equiv="refresh" content="2">');
      expect(res.body).not.toMatch(/<script/i);
    }
    const head = await request(served.url, '/', { method: 'HEAD' });
    expect(head.status).toBe(503);
    expect(head.body).toBe('');
  });

  it('answers an API path that needs Next.js with the JSON 503', async () => {
    for (const p of ['/api/health', '/api/runs/captured-bench/rollouts', '/api/openapi.json']) {
      const res = await request(served.url, p);
      expect(res.status, p).toBe(503);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['content-security-policy']).toBeUndefined();
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'unavailable', message: expect.stringContaining('being built') } });
    }
  });

  it('answers /api/runs, a call and its raw line from the index meanwhile', async () => {
    const runs = JSON.parse((await request(served.url, '/api/runs')).body).runs as { id: string; totals: { rollouts: number; calls: number } }[];
    const byId = Object.fromEntries(runs.map((r) => [r.id, r.totals]));
    expect(byId['results-mcqa_rollouts']?.rollouts).toBeGreaterThan(0);
    expect(byId['captured-bench']).toMatchObject({ rollouts: 2, calls: 4 });
    const call = await request(served.url, '/api/runs/captured-bench/rollouts/0-0/calls/i0');
    expect(call.status, call.body).toBe(200);
    expect(JSON.parse(call.body)).toHaveProperty('request');
    const raw = await request(served.url, '/api/runs/captured-bench/rollouts/0-0/calls/i0/raw');
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toBe('application/x-ndjson');
    expect(JSON.parse(raw.body)).toHaveProperty('request');
  });

  it('keeps the guard and the request-shape check in front while building', async () => {
    expect((await request(served.url, '/', { host: 'evil.example' })).status).toBe(421);
    expect((await request(served.url, '/api/runs', { host: 'evil.example' })).status).toBe(421);
    const bad = await request(served.url, '/api/runs/%zz/rollouts');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('bad_request');
  });

  it('shows the building page in Chromium cleanly: no script, no failed request, no CSP violation', async () => {
    const res = await t.goto('/');
    expect(res.status()).toBe(503);
    expect(await t.page.locator('h1').textContent()).toBe('callscope is building the dashboard (first start)…');
    expect(problems(t, [DOCUMENT_503])).toEqual(CLEAN);
  });

  it('serves the dashboard once the build is done, and the open building page reloads itself into it', async () => {
    writeFileSync(release, '');
    const deadline = Date.now() + 120_000;
    let page = await request(served.url, '/');
    while (page.status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      page = await request(served.url, '/');
    }
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('is building the dashboard');
    expect(page.body).toContain('results-mcqa_rollouts');
    const health = await request(served.url, '/api/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true });
    await expect.poll(() => served.output()).toContain('callscope: dashboard ready');
    await expect.poll(() => t.page.locator('a[href="/runs/results-mcqa_rollouts"]').count(), { timeout: 30_000 }).toBe(1);
    expect(await t.page.locator('h1').textContent()).not.toContain('building');
    expect(problems(t, [DOCUMENT_503])).toEqual(CLEAN);
  }, 150_000);
});

describe('serve when the dashboard cannot be built', () => {
  let served: Served;

  beforeAll(async () => {
    const fake = fakeBuild('failing', 1);
    writeFileSync(fake.release, '');
    served = await startServe([path.join(tmp, 'runs'), '--index-dir', path.join(tmp, 'idx-failing')], 120_000, 120_000, {
      env: { CALLSCOPE_TEST_FAKE_BUILD: fake.script },
      indexOnly: true,
    });
  });

  afterAll(async () => {
    await served?.stop();
  });

  it('says so on a page (503, no reload), keeps answering /api/runs', async () => {
    await expect.poll(() => served.output()).toContain('the dashboard could not be built');
    const page = await request(served.url, '/');
    expect(page.status).toBe(503);
    expect(page.body).toContain('could not start the dashboard');
    expect(page.body).not.toContain('http-equiv="refresh"');
    expect(page.headers['retry-after']).toBeUndefined();
    const api = await request(served.url, '/api/health');
    expect(JSON.parse(api.body)).toEqual({ error: { code: 'unavailable', message: 'the dashboard could not start' } });
    expect((await request(served.url, '/api/runs')).status).toBe(200);
  });
});

describe('the real build', () => {
  it('is neither rebuilt nor re-dated by the stand-in builds', () => {
    expect(statSync(BUILD_ID).mtimeMs).toBe(buildIdMtime);
  });
});
