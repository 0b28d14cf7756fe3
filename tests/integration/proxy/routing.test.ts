// What is forwarded where and what is captured (spec §6.1, §6.2; architecture "Capture proxy", Security;
// targets R7, R9): prefix stripping, unobserved and unprefixed calls, ids the store rejects, headers that
// must not route or be recorded, hop-by-hop headers, compressed bodies, and an upstream base path.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatJson, jsonScenario, messagesStream, MockUpstream, sha256, streamScenario } from '../../support/mock-upstream';
import { reportFigure } from '../../support/reliability';
import { API_KEY, header, rawCall, startProxy, type ProxyHarness } from './harness';

let mock: MockUpstream;
let proxy: ProxyHarness;
let root: string;

/** Every file under a directory, recursively, with sizes (to prove nothing was created anywhere). */
function tree(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p);
    out.push(`${path.relative(root, p)}${st.isDirectory() ? '/' : `:${st.size}`}`);
    if (st.isDirectory()) out.push(...tree(p));
  }
  return out.sort();
}

beforeAll(async () => {
  mock = new MockUpstream();
  await mock.start();
  mock.set('json', jsonScenario(chatJson())).set('stream', streamScenario(messagesStream()));
  mock.fallback = jsonScenario('{"object":"list","data":[]}');
  // root/ holds the capture dir and a canary dir beside it: nothing may appear in either.
  root = mkdtempSync(path.join(os.tmpdir(), 'callscope-routing-'));
  mkdirSync(path.join(root, 'canary'));
  proxy = await startProxy(mock.url, { captureDir: path.join(root, 'capture') });
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
  rmSync(root, { recursive: true, force: true });
});

const call = (p: string, init: Parameters<typeof rawCall>[1] = {}) =>
  rawCall(`${proxy.url}${p}`, { body: '{"model":"m"}', ...init, headers: { 'x-mock-scenario': 'json', ...init.headers } });

describe('prefix stripping and what is captured', () => {
  it('captures a prefixed observed call under its id and forwards it stripped, query included', async () => {
    const res = await call('/ng-rollout/route-1/v1/messages?beta=true', { headers: { 'x-mock-scenario': 'stream' } });
    expect(res.status).toBe(200);
    expect(mock.last().url).toBe('/v1/messages?beta=true');
    expect(proxy.exchanges('route-1')).toMatchObject([{ dialect: 'messages', error_category: null }]);
  });

  it('forwards an unprefixed call unchanged and captures nothing', async () => {
    const before = tree(root);
    const res = await call('/v1/chat/completions');
    expect(res.status).toBe(200);
    expect(mock.last().url).toBe('/v1/chat/completions');
    expect(sha256(res.body)).toBe(sha256(mock.last().sent));
    expect(tree(root)).toEqual(before);
  });

  it('strips the prefix of unobserved paths, forwards them, captures nothing (any method)', async () => {
    const before = tree(root);
    for (const p of ['/v1/models', '/v1/completions', '/health', '/v1/responses/']) {
      const res = await call(`/ng-rollout/route-2${p}`, { method: 'GET', body: undefined, headers: { 'x-mock-scenario': 'none' } });
      expect(res.status).toBe(200);
      expect(mock.last().url).toBe(p);
      expect(mock.last().method).toBe('GET');
    }
    expect(tree(root)).toEqual(before);
  });

  it('the method is not checked: a GET to an observed path is captured; the token-capture segment too', async () => {
    await call('/ng-rollout/route-3/v1/chat/completions', { method: 'GET', body: undefined });
    await call('/ng-rollout/route-3/training-token-capture/v1/chat/completions');
    expect(mock.last().url).toBe('/v1/chat/completions');
    expect(proxy.exchanges('route-3').map((e) => [e.request, e.status_code])).toEqual([
      [null, 200],
      [{ model: 'm' }, 200],
    ]);
  });

  it('R7: an id the store rejects is forwarded stripped and never captured; no file appears anywhere', async () => {
    const ids = ['a%2Fb', '..%2F..%2Fcanary%2Fx', '..%2Fcanary', '%2e%2e%2fcanary', 'r%C3%B6llout', 'a%20b', '..%5C..%5Ccanary', 'a%00b', 'a;b', "a'b", '~', '%2e'];
    const before = tree(root);
    for (const id of ids) {
      const res = await call(`/ng-rollout/${id}/v1/responses`);
      expect(res.status).toBe(200);
      expect(mock.last().url).toBe('/v1/responses');
    }
    expect(tree(root)).toEqual(before);
    expect(proxy.warnings).toEqual([]);
    reportFigure('R7', `${ids.length} hostile rollout ids through the proxy prefix: forwarded, never captured, no file created anywhere`, { probes: ids.length, escapes: 0 });
  });

  it('`..` is a valid store id: it names the file `...capture.jsonl` inside the capture dir', async () => {
    await call('/ng-rollout/../v1/responses');
    expect(readdirSync(path.join(root, 'capture'))).toContain('...capture.jsonl');
    expect(readdirSync(path.join(root, 'canary'))).toEqual([]);
  });
});

describe('headers', () => {
  it('R9: Host, X-Forwarded-* and Forwarded never choose the upstream; the upstream sees its own Host', async () => {
    const res = await call('/ng-rollout/route-4/v1/chat/completions', {
      headers: { host: 'evil.example:1', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example;proto=https', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(res.status).toBe(200);
    const seen = mock.last().rawHeaders;
    expect(header(seen, 'host')).toBe(new URL(mock.url).host);
    expect(header(seen, 'x-forwarded-for')).toBe('203.0.113.9');
    expect(proxy.exchanges('route-4')).toHaveLength(1);
    reportFigure('R9', 'Host, X-Forwarded-* and Forwarded never choose the proxy\'s upstream', { probes: 1, bypasses: 0 });
  });

  it('R9: request headers reach the upstream but never the capture file', async () => {
    const secrets = { authorization: `Bearer ${API_KEY}`, 'x-api-key': 'sk-ant-SECRET-2', 'openai-organization': 'org-SECRET-3', cookie: 'session=SECRET-4' };
    await call('/ng-rollout/route-5/v1/messages', { headers: { ...secrets, 'x-mock-scenario': 'stream' } });
    const seen = mock.last().rawHeaders;
    for (const [name, value] of Object.entries(secrets)) expect(header(seen, name)).toBe(value);
    const file = readFileSync(path.join(root, 'capture', 'route-5.capture.jsonl'), 'utf8');
    for (const needle of ['SECRET', 'authorization', 'x-api-key', 'cookie', 'x-mock-scenario']) expect(file.toLowerCase()).not.toContain(needle.toLowerCase());
    reportFigure('R9', `${Object.keys(secrets).length} secret-bearing request headers: forwarded upstream, absent from the capture file`, { probes: Object.keys(secrets).length, bypasses: 0 });
  });

  it('hop-by-hop request headers, and those named in Connection, stop at the proxy', async () => {
    // node:http sends a Connection header as given (undici would not).
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { connection: 'keep-alive, X-Hop', 'x-hop': 'private', 'x-end-to-end': 'kept', te: 'trailers', 'keep-alive': 'timeout=5', 'x-mock-scenario': 'json' },
      });
      req.on('response', (res) => res.resume().on('end', resolve));
      req.on('error', reject);
      req.end('{}');
    });
    const seen = mock.last().rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase());
    expect(seen).not.toContain('x-hop');
    expect(seen).not.toContain('te');
    expect(seen).not.toContain('keep-alive');
    expect(header(mock.last().rawHeaders, 'x-end-to-end')).toBe('kept');
  });
});

describe('bodies', () => {
  it.each(['gzip', 'br', 'deflate'] as const)('%s: compressed bytes reach the client unchanged; the capture holds the decoded response', async (encoding) => {
    mock.set(`json-${encoding}`, jsonScenario(chatJson(), { encoding }));
    mock.set(`stream-${encoding}`, streamScenario(messagesStream(), { encoding }));
    const json = await call(`/ng-rollout/zip-${encoding}/v1/chat/completions`, { headers: { 'x-mock-scenario': `json-${encoding}` } });
    expect(sha256(json.body)).toBe(sha256(mock.last().sent));
    expect(header(json.rawHeaders, 'content-encoding')).toBe(encoding);
    const stream = await call(`/ng-rollout/zip-${encoding}/v1/messages`, { headers: { 'x-mock-scenario': `stream-${encoding}` } });
    expect(sha256(stream.body)).toBe(sha256(mock.last().sent));
    const [a, b] = proxy.exchanges(`zip-${encoding}`);
    expect(a).toMatchObject({ error_category: null, response: JSON.parse(chatJson()) });
    expect(b).toMatchObject({ error_category: null, response_raw: messagesStream() });
  });

  it('streams a large request body upstream and captures it whole', async () => {
    const big = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'é'.repeat(3_000_000) }] });
    await call('/ng-rollout/big-1/v1/chat/completions', { body: big });
    expect(sha256(mock.last().body)).toBe(sha256(Buffer.from(big)));
    const [line] = proxy.exchanges('big-1');
    expect((line.request as { messages: { content: string }[] }).messages[0].content).toHaveLength(3_000_000);
  });

  it('an upstream base path goes in front of every forwarded path', async () => {
    const based = await startProxy(`${mock.url}/base/`);
    try {
      await rawCall(`${based.url}/ng-rollout/b-1/v1/chat/completions?x=1`, { body: '{}', headers: { 'x-mock-scenario': 'json' } });
      expect(mock.last().url).toBe('/base/v1/chat/completions?x=1');
      expect(based.exchanges('b-1')).toHaveLength(1);
    } finally {
      await based.close();
    }
  });

  it('with capture disabled the prefix is still stripped and calls are forwarded', async () => {
    const off = await startProxy(mock.url, { captureDir: null });
    try {
      const res = await rawCall(`${off.url}/ng-rollout/3-0/v1/chat/completions`, { body: '{}', headers: { 'x-mock-scenario': 'json' } });
      expect(res.status).toBe(200);
      expect(mock.last().url).toBe('/v1/chat/completions');
      expect(await off.handler.ready).toBe(false);
    } finally {
      await off.close();
    }
  });
});
