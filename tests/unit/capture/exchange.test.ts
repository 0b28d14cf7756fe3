import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { classifyException, classifyStatus, completionCategory, exceptionCategory } from '../../../lib/capture/errors';
import { buildExchange, EXCHANGE_FIELDS, type ObservedCall } from '../../../lib/capture/exchange';
import { serialize } from '../../../lib/capture/json-serialize';
import { deriveRecord } from '../../../lib/capture/record';
import { roundHalfEven2 } from '../../../lib/capture/round';

const enc = (s: string) => Buffer.from(s, 'utf8');
const call = (o: Partial<ObservedCall> = {}): ObservedCall => ({
  modelCallId: '9f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f',
  dialect: 'responses',
  modelServerName: 'policy_model',
  startedAt: 1786032153.4107,
  completedAt: 1786032154.0254,
  latencyMs: 614.7251,
  ttftMs: 612.9,
  statusCode: 200,
  requestBody: enc('{"input":[{"role":"user","content":"What is the capital of France?"}]}'),
  responseBody: enc('{"id":"resp_abc","created_at":1786032154.0,"status":"completed","output":[]}'),
  streaming: false,
  terminal: null,
  ...o,
});

describe('§2 the raw exchange line', () => {
  it('has every key in upstream order, floats rounded half-to-even, payload numbers exact', () => {
    const e = buildExchange(call());
    expect(Object.keys(e)).toEqual(EXCHANGE_FIELDS.slice(0, 11));
    expect(serialize(e)).toBe(
      '{"model_call_id":"9f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f","dialect":"responses","model_ref":{"type":"responses_api_models","name":"policy_model"},' +
        '"started_at":1786032153.4107,"completed_at":1786032154.0254,"latency_ms":614.73,"latency_ttft_ms":612.9,"status_code":200,"error_category":null,' +
        '"request":{"input":[{"role":"user","content":"What is the capital of France?"}]},"response":{"id":"resp_abc","created_at":1786032154.0,"status":"completed","output":[]}}',
    );
  });

  it('Python round(x, 2): ties to even on exact binary values', () => {
    expect([roundHalfEven2(0.125), roundHalfEven2(2.675), roundHalfEven2(0.375), roundHalfEven2(1.005), roundHalfEven2(12.5)]).toEqual([0.12, 2.67, 0.38, 1, 12.5]);
    expect(serialize(buildExchange(call({ latencyMs: 3, ttftMs: 0.125 })).latency_ms)).toBe('3.0');
  });

  it('model_ref is null without a server name; TTFT null without a non-empty chunk', () => {
    const e = buildExchange(call({ modelServerName: null, ttftMs: null }));
    expect([e.model_ref, e.latency_ttft_ms]).toEqual([null, null]);
  });

  it.each([
    ['invalid JSON', '{not-json', 'client_error'],
    ['an array', '[]', 'client_error'],
  ])('a request that is %s: request null, request_raw the text', (_n, body, category) => {
    const e = buildExchange(call({ requestBody: enc(body), statusCode: 422, responseBody: enc('{"detail":[]}') }));
    expect([e.request, e.request_raw, e.status_code, e.error_category]).toEqual([null, body, 422, category]);
    expect(e.response).toEqual({ detail: [] });
    expect(deriveRecord(e, 0).request_raw).toBe(body);
  });

  it('an empty request body: request null and no request_raw key', () => {
    const e = buildExchange(call({ requestBody: new Uint8Array() }));
    expect(e.request).toBeNull();
    expect('request_raw' in e).toBe(false);
  });

  it('request bodies are parsed like Python json.loads (BOM, NaN, big ints); raw text decoded with replacement', () => {
    const bom = buildExchange(call({ requestBody: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), enc('{"t":NaN,"n":123456789012345678901}')]) }));
    expect(bom.request).not.toBeNull();
    expect(() => serialize(bom)).toThrow(/64-bit/); // orjson fails: the exchange is dropped and the rollout marked incomplete
    const bad = buildExchange(call({ requestBody: Buffer.from([0x7b, 0xff, 0x7d]) }));
    expect(bad.request_raw).toBe('{\ufffd}');
  });

  it('a non-JSON response: response null, response_raw the text, capture_parse_error', () => {
    const e = buildExchange(call({ responseBody: enc('not json') }));
    expect([e.response, e.response_raw, e.error_category]).toEqual([null, 'not json', 'capture_parse_error']);
  });

  it('an empty 2xx body: no response_raw and no category', () => {
    const e = buildExchange(call({ responseBody: new Uint8Array() }));
    expect([e.response, 'response_raw' in e, e.error_category]).toEqual([null, false, null]);
  });

  it('no response start at all: status null, category null, response null', () => {
    const e = buildExchange(call({ statusCode: null, responseBody: new Uint8Array() }));
    expect([e.status_code, e.error_category, e.response]).toEqual([null, null, null]);
  });

  it('upstream HTTP errors take the normal path with the parsed body', () => {
    const e = buildExchange(call({ statusCode: 500, responseBody: enc('{"error":"boom"}') }));
    expect([e.status_code, e.error_category, e.response]).toEqual([500, 'upstream_error', { error: 'boom' }]);
    expect('response_raw' in e).toBe(false);
  });

  it('streaming: response is the reassembly and response_raw the lossless SSE text', () => {
    const sse = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":10}}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
    const e = buildExchange(call({ dialect: 'messages', streaming: true, terminal: 'complete', responseBody: enc(sse) }));
    expect(e.error_category).toBeNull();
    expect(e.response_raw).toBe(sse);
    expect(serialize(e.response)).toBe('{"id":"msg_1","model":"claude","type":"message","content":[],"usage":{"input_tokens":10}}');
  });

  it('a stream without terminal is stream_truncated, keeping the partial reassembly', () => {
    const sse = 'event: message_start\ndata: {"type":"message_start","message":{}}\n\n';
    const e = buildExchange(call({ dialect: 'messages', streaming: true, terminal: null, responseBody: enc(sse) }));
    expect(e.error_category).toBe('stream_truncated');
    expect(e.response).not.toBeNull();
  });

  it('a completed chat stream whose reassembly fails is capture_parse_error', () => {
    const sse = 'data: {"choices":[{"delta":{"content":5}}]}\n\ndata: {"choices":[{"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n';
    const e = buildExchange(call({ dialect: 'chat', streaming: true, terminal: 'complete', responseBody: enc(sse) }));
    expect([e.response, e.error_category]).toEqual([null, 'capture_parse_error']);
  });

  it('exception path: response null, response_raw the partial body, status from the start', () => {
    const e = buildExchange(call({ streaming: true, responseBody: enc('data: {"x":1}\n\n'), exception: { name: 'RuntimeError' } }));
    expect([e.status_code, e.error_category, e.response, e.response_raw]).toEqual([200, 'exception', null, 'data: {"x":1}\n\n']);
  });

  it('exception path: the exception status and body when nothing was streamed', () => {
    const e = buildExchange(call({ statusCode: null, responseBody: new Uint8Array(), ttftMs: null, exception: { name: 'HTTPError', status: 403, body: enc('{"error":{"message":"denied"}}') } }));
    expect([e.status_code, e.error_category, e.response_raw]).toEqual([403, 'auth', '{"error":{"message":"denied"}}']);
    const none = buildExchange(call({ statusCode: null, responseBody: new Uint8Array(), exception: { name: 'ConnectTimeout' } }));
    expect([none.status_code, none.error_category, 'response_raw' in none]).toEqual([null, 'timeout', false]);
  });

  it('gzip bytes that are not JSON are a parse error (the proxy decodes before building)', () => {
    const e = buildExchange(call({ responseBody: gzipSync('{"a":1}') }));
    expect(e.error_category).toBe('capture_parse_error');
  });
});

describe('§6.6 error categories', () => {
  it('classifies statuses', () => {
    expect([200, 302, 408, 504, 429, 401, 403, 404, 422, 400, 500, 503].map(classifyStatus)).toEqual([
      null, null, 'timeout', 'timeout', 'rate_limit', 'auth', 'auth', 'not_found', 'client_error', 'client_error', 'upstream_error', 'upstream_error',
    ]);
  });

  it('classifies exceptions: timeout first, then conn, else exception', () => {
    expect(['TimeoutError', '_ReadTimeout', 'ConnectTimeout', 'ConnectionError', 'ConnectionResetError', 'ServerDisconnectedError', 'ValueError'].map((n) => classifyException(n))).toEqual([
      'timeout', 'timeout', 'timeout', 'connection', 'connection', 'connection', 'exception',
    ]);
    expect(classifyException('CancelledError', true)).toBe('timeout');
    expect(classifyException('ClientConnectorError')).toBe('connection');
  });

  it('exception path: status classification for a status >= 400, else the exception', () => {
    expect(exceptionCategory(403, 'RuntimeError')).toBe('auth');
    expect(exceptionCategory(200, 'RuntimeError')).toBe('exception');
    expect(exceptionCategory(null, 'ConnectionResetError')).toBe('connection');
  });

  it('normal completion precedence', () => {
    const base = { status: 200, streaming: true, terminal: null, bodyNonEmpty: true, responseIsNull: false } as const;
    expect(completionCategory({ ...base, status: 429, terminal: 'error' })).toBe('rate_limit');
    expect(completionCategory({ ...base, terminal: 'error' })).toBe('upstream_error');
    expect(completionCategory({ ...base, terminal: 'incomplete' })).toBe('incomplete');
    expect(completionCategory({ ...base, terminal: 'complete' })).toBeNull();
    expect(completionCategory({ ...base })).toBe('stream_truncated');
    expect(completionCategory({ ...base, terminal: 'complete', responseIsNull: true })).toBe('capture_parse_error');
    expect(completionCategory({ ...base, streaming: false, responseIsNull: true })).toBe('capture_parse_error');
    expect(completionCategory({ ...base, streaming: false, bodyNonEmpty: false, responseIsNull: true })).toBeNull();
  });
});
