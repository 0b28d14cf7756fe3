// Faults, through the real SDK clients where a client would meet them, and raw undici requests where the
// bytes themselves are the point: upstream HTTP errors are forwarded as is and recorded on the normal path;
// stream-level errors, truncation and incompleteness get their §6.6 categories; transport failures answer
// 502 before the head, or every byte and then an aborted connection after it.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import {
  chatStream,
  JSON_HEADERS,
  jsonScenario,
  messagesStream,
  MockUpstream,
  responsesStream,
  sha256,
  SSE_HEADERS,
  streamScenario,
  type Scenario,
} from '../../support/mock-upstream';
import { API_KEY, expectWellFormed, header, rawCall, startProxy, teeingFetch, type ProxyHarness, type Received } from './harness';

let mock: MockUpstream;
let proxy: ProxyHarness;
let impatient: ProxyHarness;
let nextRollout = 0;

beforeAll(async () => {
  mock = new MockUpstream();
  await mock.start();
  proxy = await startProxy(mock.url);
  impatient = await startProxy(mock.url, { headersTimeoutMs: 300, bodyTimeoutMs: 300 });
});

afterAll(async () => {
  await Promise.all([proxy.close(), impatient.close()]);
  await mock.close();
});

type Dialect = 'chat' | 'responses' | 'messages';

/** Registers a one-off scenario and returns its name and a fresh rollout id. */
function use(s: Scenario): { name: string; rollout: string } {
  const name = `s${nextRollout}`;
  mock.set(name, s);
  return { name, rollout: `fault-${nextRollout++}` };
}

async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: Error & { status?: number } }> {
  try {
    return { value: await p };
  } catch (error) {
    return { error: error as Error };
  }
}

/** Calls the dialect's endpoint with its SDK, consuming a stream fully; returns the outcome. */
async function sdkCall(h: ProxyHarness, dialect: Dialect, rollout: string, name: string, stream: boolean, received: Received[]) {
  const opts = { headers: { 'x-mock-scenario': name } };
  const fetch = teeingFetch(received);
  if (dialect === 'messages') {
    const client = new Anthropic({ apiKey: API_KEY, baseURL: `${h.url}/ng-rollout/${rollout}`, maxRetries: 0, fetch });
    const body = { model: 'claude-sonnet-5-5', max_tokens: 256, messages: [{ role: 'user' as const, content: 'hi' }] };
    if (!stream) return settle(client.messages.create(body, opts));
    return settle((async () => {
      const events = [];
      for await (const e of await client.messages.create({ ...body, stream: true }, opts)) events.push(e);
      return events;
    })());
  }
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${h.url}/ng-rollout/${rollout}/v1`, maxRetries: 0, fetch });
  if (dialect === 'chat') {
    const body = { model: 'gpt-4.1', messages: [{ role: 'user' as const, content: 'hi' }] };
    if (!stream) return settle(client.chat.completions.create(body, opts));
    return settle((async () => {
      const chunks = [];
      for await (const c of await client.chat.completions.create({ ...body, stream: true }, opts)) chunks.push(c);
      return chunks;
    })());
  }
  const body = { model: 'gpt-5', input: 'hi' };
  if (!stream) return settle(client.responses.create(body, opts));
  return settle((async () => {
    const events = [];
    for await (const e of await client.responses.create({ ...body, stream: true }, opts)) events.push(e);
    return events;
  })());
}

/** The client saw the mock's bytes; exactly one well-formed line was captured; returns it. */
async function oneLine(h: ProxyHarness, rollout: string, received: Received[]): Promise<JsonObject> {
  const sent = mock.last();
  await sent.done;
  expect(received).toHaveLength(1);
  expect(sha256(await received[0].body)).toBe(sha256(sent.sent));
  const text = h.text(rollout);
  const lines = text.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  const [exchange] = h.exchanges(rollout);
  expectWellFormed(exchange, lines[0]);
  return exchange;
}

const ERROR_BODIES: Record<Dialect, (status: number) => string> = {
  chat: (s) => JSON.stringify({ error: { message: `upstream said ${s}`, type: s === 429 ? 'rate_limit_exceeded' : 'server_error', param: null, code: null } }),
  responses: (s) => JSON.stringify({ error: { message: `upstream said ${s}`, type: 'invalid_request_error', param: null, code: null } }, null, 2),
  messages: (s) => JSON.stringify({ type: 'error', error: { type: s === 401 ? 'authentication_error' : 'api_error', message: `upstream said ${s}` } }),
};
const CATEGORY: Record<number, string> = { 429: 'rate_limit', 500: 'upstream_error', 401: 'auth' };

describe('upstream HTTP errors are forwarded as is and recorded on the normal path', () => {
  for (const dialect of ['chat', 'responses', 'messages'] as const) {
    for (const status of [429, 500, 401]) {
      it(`${dialect} ${status}`, async () => {
        const body = ERROR_BODIES[dialect](status);
        const { name, rollout } = use(jsonScenario(body, { status, headers: [...JSON_HEADERS, ['retry-after', '7']] }));
        const received: Received[] = [];
        const { error } = await sdkCall(proxy, dialect, rollout, name, false, received);
        expect(error?.status).toBe(status);
        expect(error?.message).toContain(`upstream said ${status}`);
        const line = await oneLine(proxy, rollout, received);
        expect(line).toMatchObject({ status_code: status, error_category: CATEGORY[status], response: JSON.parse(body) });
        expect('response_raw' in line).toBe(false);
      });
    }
  }
});

describe('stream faults get their §6.6 categories', () => {
  it('a reset mid-stream: the client gets every byte then an error; the line keeps status 200, category connection, the bytes received', async () => {
    const body = chatStream();
    const { name, rollout } = use(streamScenario(body.slice(0, 900), { fault: 'reset' }));
    const received: Received[] = [];
    const { error } = await sdkCall(proxy, 'chat', rollout, name, true, received);
    expect(error).toBeDefined();
    const line = await oneLine(proxy, rollout, received);
    expect(line).toMatchObject({ status_code: 200, error_category: 'connection', response: null, response_raw: body.slice(0, 900) });
    expect(line.latency_ttft_ms).not.toBeNull();
  });

  it.each([
    ['chat', chatStream({ terminal: 'none' })],
    ['responses', responsesStream({ terminal: 'none' })],
    ['messages', messagesStream({ terminal: 'none' })],
  ] as const)('%s: a stream that ends without its terminal event is stream_truncated, with the partial reassembly', async (dialect, body) => {
    const { name, rollout } = use(streamScenario(body));
    const received: Received[] = [];
    await sdkCall(proxy, dialect, rollout, name, true, received);
    const line = await oneLine(proxy, rollout, received);
    expect(line).toMatchObject({ status_code: 200, error_category: 'stream_truncated', response_raw: body });
    expect(line.response).not.toBeNull();
  });

  it.each([
    ['messages event: error', 'messages', messagesStream({ terminal: 'error' }), 'upstream_error'],
    ['responses event: error', 'responses', responsesStream({ terminal: 'error' }), 'upstream_error'],
    ['responses response.failed', 'responses', responsesStream({ terminal: 'failed' }), 'upstream_error'],
    ['responses response.incomplete', 'responses', responsesStream({ terminal: 'incomplete' }), 'incomplete'],
    ['chat data: {"error": ...}', 'chat', chatStream({ terminal: 'error-data' }), 'upstream_error'],
    ['chat event: error', 'chat', chatStream({ terminal: 'error-event' }), 'upstream_error'],
  ] as const)('%s under HTTP 200 -> %s', async (_label, dialect, body, category) => {
    const { name, rollout } = use(streamScenario(body));
    const received: Received[] = [];
    await sdkCall(proxy, dialect, rollout, name, true, received);
    const line = await oneLine(proxy, rollout, received);
    expect(line).toMatchObject({ status_code: 200, error_category: category, response_raw: body });
  });

  it('invalid JSON under 200: the client gets it unchanged; capture_parse_error with the text', async () => {
    const body = '{"id": "chatcmpl-x", "choices": [{"message": {"content": "café';
    const { name, rollout } = use(jsonScenario(body));
    const received: Received[] = [];
    const { error } = await sdkCall(proxy, 'chat', rollout, name, false, received);
    expect(error).toBeDefined();
    const line = await oneLine(proxy, rollout, received);
    expect(line).toMatchObject({ status_code: 200, error_category: 'capture_parse_error', response: null, response_raw: body });
  });

  it('an empty 200 body: no response, no response_raw, no TTFT, no category', async () => {
    const { name, rollout } = use({ headers: JSON_HEADERS, chunks: [], contentLength: true });
    const received: Received[] = [];
    await sdkCall(proxy, 'messages', rollout, name, false, received);
    const line = await oneLine(proxy, rollout, received);
    expect(line).toMatchObject({ status_code: 200, error_category: null, response: null, latency_ttft_ms: null });
    expect('response_raw' in line).toBe(false);
  });
});

describe('transport failures', () => {
  const post = (h: ProxyHarness, rollout: string, name: string) =>
    rawCall(`${h.url}/ng-rollout/${rollout}/v1/chat/completions`, { body: '{"model":"m","stream":true}', headers: { 'x-mock-scenario': name } });

  it('upstream refusing connections: the client gets a 502 JSON error; the line has status null and category connection', async () => {
    const dead = new MockUpstream();
    const url = await dead.start();
    await dead.close();
    const h = await startProxy(url);
    try {
      const received: Received[] = [];
      const { error } = await sdkCall(h, 'responses', 'down-0', 'x', false, received);
      expect(error?.status).toBe(502);
      expect(error?.message).toMatch(/upstream .* failed: .*ECONNREFUSED/);
      const [line] = h.exchanges('down-0');
      expect(line).toMatchObject({ status_code: null, error_category: 'connection', response: null, latency_ttft_ms: null, request: { model: 'gpt-5', input: 'hi' } });
      expect('response_raw' in line).toBe(false);
      expect(h.exchanges('down-0')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('an upstream closing the connection before the head: 502, category connection', async () => {
    const { name, rollout } = use({ fault: 'close-before-head' });
    const res = await post(proxy, rollout, name);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body.toString()).error.code).toBe('connection');
    expect(proxy.exchanges(rollout)).toMatchObject([{ status_code: null, error_category: 'connection', response: null }]);
  });

  it('no head within the configured time: 502, category timeout', async () => {
    const { name, rollout } = use({ fault: 'hang' });
    const res = await post(impatient, rollout, name);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body.toString()).error.code).toBe('timeout');
    expect(impatient.exchanges(rollout)).toMatchObject([{ status_code: null, error_category: 'timeout', response: null, latency_ttft_ms: null }]);
  });

  it('a body that stalls past the configured time: every byte, then an aborted connection; status kept, category timeout', async () => {
    const body = messagesStream().slice(0, 700);
    const { name, rollout } = use(streamScenario(body, { fault: 'stall' }));
    const res = await post(impatient, rollout, name);
    expect(res.status).toBe(200);
    expect(res.error).not.toBeNull();
    expect(res.body.toString()).toBe(body);
    expect(impatient.exchanges(rollout)).toMatchObject([{ status_code: 200, error_category: 'timeout', response: null, response_raw: body }]);
  });

  it('a reset after the head, with content-length framing: every byte, then an aborted connection', async () => {
    const body = 'x'.repeat(5000);
    const { name, rollout } = use({ headers: [['content-type', 'application/json'], ['content-length', '9000']], chunks: [body.slice(0, 2000), body.slice(2000)], fault: 'reset' });
    const res = await post(proxy, rollout, name);
    expect(res.status).toBe(200);
    expect(header(res.rawHeaders, 'content-length')).toBe('9000');
    expect(res.error).not.toBeNull();
    expect(res.body.toString()).toBe(body);
    expect(proxy.exchanges(rollout)).toMatchObject([{ status_code: 200, error_category: 'connection', response: null, response_raw: body }]);
  });

  it('a reset right after a JSON head: the client still gets the head, then an aborted connection', async () => {
    const { name, rollout } = use({ status: 201, headers: [['content-type', 'application/json'], ['x-request-id', 'req_r']], chunks: [], fault: 'reset' });
    const res = await post(proxy, rollout, name);
    expect(res.status).toBe(201);
    expect(header(res.rawHeaders, 'x-request-id')).toBe('req_r');
    expect(res.error).not.toBeNull();
    expect(res.body.length).toBe(0);
    const [line] = proxy.exchanges(rollout);
    expect(line).toMatchObject({ status_code: 201, error_category: 'connection', response: null, latency_ttft_ms: null });
    expect('response_raw' in line).toBe(false);
  });

  it('a client that goes away mid-stream: the upstream exchange is aborted and the call recorded as connection', async () => {
    const { name, rollout } = use(streamScenario(messagesStream(), { delayMs: 30 }));
    const controller = new AbortController();
    let seen = 0;
    const res = await rawCall(`${proxy.url}/ng-rollout/${rollout}/v1/messages`, {
      body: '{"stream":true}',
      headers: { 'x-mock-scenario': name },
      onChunk: () => {
        if (++seen === 2) controller.abort();
      },
      signal: controller.signal,
    }).catch((e: Error) => e);
    expect(res).toBeDefined();
    await mock.last().done;
    const sentBytes = mock.last().sent.length;
    expect(sentBytes).toBeLessThan(Buffer.byteLength(messagesStream()));
    await expect.poll(() => proxy.exchanges(rollout).length).toBe(1);
    expect(proxy.exchanges(rollout)[0]).toMatchObject({ status_code: 200, error_category: 'connection', response: null });
  });
});

describe('SSE content types', () => {
  it('headers go through in the upstream order; the SSE content type with a charset is still a stream', async () => {
    const body = messagesStream();
    const { name, rollout } = use({ headers: [...SSE_HEADERS, ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']], chunks: [body] });
    const res = await rawCall(`${proxy.url}/ng-rollout/${rollout}/v1/messages`, { body: '{}', headers: { 'x-mock-scenario': name } });
    expect(res.body.toString()).toBe(body);
    expect(header(res.rawHeaders, 'content-type')).toBe('text/event-stream; charset=utf-8');
    expect(header(res.rawHeaders, 'x-request-id')).toBe('req_mock_1');
    expect(res.rawHeaders.filter((h, i) => i % 2 === 1 && /^[ab]=/.test(h))).toEqual(['a=1', 'b=2']);
    expect(proxy.exchanges(rollout)[0]).toMatchObject({ error_category: null, dialect: 'messages' });
  });
});
