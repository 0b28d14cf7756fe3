import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { serialize } from '../../../lib/capture/json-serialize';
import { deriveRecord } from '../../../lib/capture/record';
import { CallObservation, newModelCallId } from '../../../lib/proxy/observe';
import { encodeChunks, messagesStream } from '../../support/mock-upstream';

const b = (s: string) => Buffer.from(s, 'utf8');
const SSE = ['content-type', 'text/event-stream; charset=utf-8'];
const JSON_CT = ['content-type', 'application/json'];

function observe(dialect: 'chat' | 'responses' | 'messages', request = '{"model":"m"}') {
  const o = new CallObservation(dialect, 'srv');
  o.addRequestChunk(b(request));
  return o;
}

describe('CallObservation', () => {
  it('mints uuid4 hex ids', () => {
    const ids = new Set(Array.from({ length: 100 }, newModelCallId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });

  it('a JSON body is never terminal; the line holds the parsed object and no response_raw', async () => {
    const o = observe('chat');
    o.head(200, JSON_CT);
    expect(o.chunk(b('{"id":"c1","choices":'))).toBe(false);
    expect(o.chunk(b('[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}'))).toBe(false);
    const line = await o.exchange();
    expect(line.status_code).toBe(200);
    expect(line.error_category).toBeNull();
    expect(line.response).toMatchObject({ id: 'c1' });
    expect('response_raw' in line).toBe(false);
    expect(line.latency_ttft_ms).not.toBeNull();
    expect(deriveRecord(line, 0).tokens_total).toBe(3);
  });

  it('test_capture_is_durable_before_stream_terminal_event_is_sent: the chunk completing message_stop is the first held', async () => {
    const o = observe('messages');
    o.head(200, SSE);
    expect(o.chunk(b('event: message_'))).toBe(false);
    expect(o.chunk(b('stop\ndata: {"type":"message_stop"}\n\n'))).toBe(true);
    expect(o.chunk(b('event: ping\n\n'))).toBe(true);
    const line = await o.exchange();
    expect(line.response_raw).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\nevent: ping\n\n');
    // A complete stream whose events reassemble to nothing is a parse problem (§6.6 rule 4).
    expect(line.error_category).toBe('capture_parse_error');
  });

  it('streaming needs the content-type value to start with text/event-stream, case-sensitively', async () => {
    const o = observe('messages');
    o.head(200, ['Content-Type', 'Text/Event-Stream']);
    expect(o.streaming).toBe(false);
    expect(o.chunk(b('event: message_stop\ndata: {}\n\n'))).toBe(false);
    expect((await o.exchange()).error_category).toBe('capture_parse_error');
  });

  it('a stream without its terminal event is stream_truncated with the partial reassembly', async () => {
    const o = observe('chat');
    o.head(200, SSE);
    o.chunk(b('data: {"id":"c","choices":[{"delta":{"content":"hi"}}]}\n\n'));
    const line = await o.exchange();
    expect(line.error_category).toBe('stream_truncated');
    expect(line.response).toMatchObject({ object: 'chat.completion', id: 'c' });
    expect(line.response_raw).toBe('data: {"id":"c","choices":[{"delta":{"content":"hi"}}]}\n\n');
  });

  it('keeps invalid request bodies as request_raw and invalid UTF-8 responses as capture_parse_error', async () => {
    const o = observe('responses', '{not-json');
    o.head(200, JSON_CT);
    o.chunk(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
    const line = await o.exchange();
    expect(line.request).toBeNull();
    expect(line.request_raw).toBe('{not-json');
    expect(line.response).toBeNull();
    expect(line.response_raw).toBe('{"a":"\ufffd"}');
    expect(line.error_category).toBe('capture_parse_error');
  });

  it('a failure before the head: status null, category from the failure, no response, no TTFT', async () => {
    const o = observe('chat');
    const line = await o.exchange({ name: 'ConnectionRefusedError' });
    expect(line).toMatchObject({ status_code: null, error_category: 'connection', response: null, latency_ttft_ms: null });
    expect('response_raw' in line).toBe(false);
  });

  it('a failure after the head keeps the status and the bytes received', async () => {
    const o = observe('messages');
    o.head(200, SSE);
    o.chunk(b('event: message_start\ndata: {"type":"message_start","message":{}}\n\n'));
    const line = await o.exchange({ name: 'TimeoutError', isTimeout: true });
    expect(line).toMatchObject({ status_code: 200, error_category: 'timeout', response: null });
    expect(line.response_raw).toBe('event: message_start\ndata: {"type":"message_start","message":{}}\n\n');
    const failed = observe('messages');
    failed.head(503, JSON_CT);
    expect((await failed.exchange({ name: 'ServerDisconnectedError' })).error_category).toBe('upstream_error');
  });

  it('decodes a compressed stream as it arrives: the terminal is found in the decoded text', async () => {
    const body = messagesStream();
    const events = body.split(/(?<=\n\n)/);
    const encoded = await encodeChunks(events.map(b), 'gzip');
    const o = observe('messages');
    o.head(200, [...SSE, 'Content-Encoding', 'gzip']);
    const terminal: boolean[] = [];
    for (const c of encoded) terminal.push(await o.chunk(c));
    expect(terminal.indexOf(true)).toBe(events.length - 1);
    const line = await o.exchange();
    expect(line.error_category).toBeNull();
    expect(line.response_raw).toBe(body);
    expect(deriveRecord(line, 0).tool_calls).toEqual([{ call_id: 'toolu_01A', name: 'get_weather', arguments: { city: 'Zürich' } }]);
  });

  it('decodes a compressed JSON body at the end; an undecodable one is kept raw', async () => {
    const o = observe('chat');
    o.head(200, [...JSON_CT, 'content-encoding', 'br']);
    const br = zlib.brotliCompressSync(b('{"id":"x"}'));
    o.chunk(br.subarray(0, 3));
    o.chunk(br.subarray(3));
    expect((await o.exchange()).response).toEqual({ id: 'x' });
    const bad = observe('chat');
    bad.head(200, [...JSON_CT, 'content-encoding', 'gzip']);
    bad.chunk(b('not gzip, not JSON'));
    const line = await bad.exchange();
    expect(line.error_category).toBe('capture_parse_error');
    expect(line.response_raw).toBe('not gzip, not JSON');
  });

  it('model_ref is null without a server name, and the key order is the spec order', async () => {
    const o = new CallObservation('chat', null);
    const line: JsonObject = await o.exchange();
    expect(line.model_ref).toBeNull();
    expect(serialize(line)).toMatch(/^\{"model_call_id":"[0-9a-f]{32}","dialect":"chat","model_ref":null,"started_at":\d+\.\d+,"completed_at":\d+\.\d+,"latency_ms":[\d.]+,"latency_ttft_ms":null,"status_code":null,"error_category":null,"request":null,"response":null\}$/);
  });
});
