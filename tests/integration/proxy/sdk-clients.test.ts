// The real OpenAI and Anthropic SDK clients, base URL at the proxy's prefixed URL, against the mock upstream
// playing realistic event sequences cut inside multi-byte characters and blank lines. For each call: the
// client got the mock's exact bytes and headers, one line was captured with the expected fields, and the
// record derived from it has the expected tokens, tool calls, reasoning and finish reason.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { deriveRecord, type ModelCallRecord } from '../../../lib/capture/record';
import {
  CHAT_REASONING,
  CHAT_TEXT,
  chatJson,
  chatStream,
  jsonScenario,
  MESSAGES_TEXT,
  MESSAGES_THINKING,
  messagesJson,
  messagesStream,
  MockUpstream,
  RESPONSES_REASONING,
  RESPONSES_TEXT,
  responsesJson,
  responsesStream,
  sha256,
  streamScenario,
  WEATHER_ARGS,
} from '../../support/mock-upstream';
import { API_KEY, expectWellFormed, startProxy, teeingFetch, type ProxyHarness, type Received } from './harness';

let mock: MockUpstream;
let proxy: ProxyHarness;

beforeAll(async () => {
  mock = new MockUpstream();
  await mock.start();
  mock
    .set('chat-json', jsonScenario(chatJson()))
    .set('chat-stream', streamScenario(chatStream()))
    .set('responses-json', jsonScenario(responsesJson()))
    .set('responses-stream', streamScenario(responsesStream()))
    .set('messages-json', jsonScenario(messagesJson()))
    .set('messages-stream', streamScenario(messagesStream()));
  proxy = await startProxy(mock.url);
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
});

const openai = (rollout: string, received: Received[]) =>
  new OpenAI({ apiKey: API_KEY, baseURL: `${proxy.url}/ng-rollout/${rollout}/v1`, maxRetries: 0, fetch: teeingFetch(received) });
const anthropic = (rollout: string, received: Received[]) =>
  new Anthropic({ apiKey: API_KEY, baseURL: `${proxy.url}/ng-rollout/${rollout}`, maxRetries: 0, fetch: teeingFetch(received) });
const scenario = (name: string) => ({ headers: { 'x-mock-scenario': name } });

/** The client's bytes are the mock's; one line; the line is well formed and records the client's request. */
async function captured(rollout: string, received: Received[]): Promise<{ exchange: JsonObject; record: ModelCallRecord }> {
  expect(received).toHaveLength(1);
  const sent = mock.last();
  await sent.done;
  const clientBytes = await received[0].body;
  expect(sha256(clientBytes)).toBe(sha256(sent.sent));
  const lines = proxy.text(rollout).split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  const [exchange] = proxy.exchanges(rollout);
  expectWellFormed(exchange, lines[0]);
  expect(serialize(exchange.request)).toBe(serialize(parsePython(sent.body)));
  expect(lines[0]).toContain('"request":{'); // re-serialized compactly
  return { exchange, record: deriveRecord(exchange, 0) };
}

const chatExpected = {
  model: 'gpt-4.1-2025-04-14',
  dialect: 'chat',
  status_code: 200,
  finish_reason: 'tool_calls',
  tokens_in: 41,
  tokens_out: 23,
  tokens_total: 64,
  tokens_reasoning: 9,
  cache_hit: true,
  cached_tokens: 32,
  reasoning_content: CHAT_REASONING,
  tool_calls: [{ call_id: 'call_w1', name: 'get_weather', arguments: WEATHER_ARGS }],
  error_category: null,
};

describe('OpenAI chat completions through the proxy', () => {
  it('non-streaming: the parsed body is stored, no response_raw', async () => {
    const received: Received[] = [];
    const { data, response } = await openai('sdk-chat-json', received)
      .chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Salut, ça va ?' }], temperature: 1.0 }, scenario('chat-json'))
      .withResponse();
    expect(data.choices[0].message.content).toBe(CHAT_TEXT);
    expect(response.headers.get('x-request-id')).toBe('req_mock_1');
    expect(response.headers.get('openai-processing-ms')).toBe('412');
    const { exchange, record } = await captured('sdk-chat-json', received);
    expect('response_raw' in exchange).toBe(false);
    expect(serialize(exchange.response)).toBe(JSON.stringify(JSON.parse(chatJson())));
    expect(record).toMatchObject({ ...chatExpected, response_id: 'chatcmpl-9fJson', request_raw: null, response_raw: null });
  });

  it('streaming: every chunk reaches the client; the line holds the reassembly and the SSE text', async () => {
    const received: Received[] = [];
    const stream = await openai('sdk-chat-stream', received).chat.completions.create(
      { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Salut' }], stream: true, stream_options: { include_usage: true } },
      scenario('chat-stream'),
    );
    let text = '';
    let args = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
    }
    expect(text).toBe(CHAT_TEXT);
    expect(JSON.parse(args)).toEqual(WEATHER_ARGS);
    const { exchange, record } = await captured('sdk-chat-stream', received);
    expect(exchange.response_raw).toBe(chatStream());
    expect(exchange.latency_ttft_ms).not.toBeNull();
    expect(record).toMatchObject({ ...chatExpected, response_id: 'chatcmpl-9fStream' });
    expect((record.response as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(CHAT_TEXT);
  });
});

const responsesExpected = {
  response_id: 'resp_68a1',
  model: 'gpt-5-2025-08-07',
  dialect: 'responses',
  response_status: 'completed',
  finish_reason: null,
  tokens_in: 120,
  tokens_out: 58,
  tokens_total: 178,
  tokens_reasoning: 32,
  cache_hit: false,
  cached_tokens: 0,
  reasoning_content: RESPONSES_REASONING,
  tool_calls: [{ call_id: 'call_r1', name: 'get_weather', arguments: WEATHER_ARGS }],
  error_category: null,
};

describe('OpenAI responses through the proxy', () => {
  it('non-streaming: floats spelled 1.0 by the upstream stay 1.0 in the line', async () => {
    const received: Received[] = [];
    const res = await openai('sdk-responses-json', received).responses.create({ model: 'gpt-5', input: 'Météo ?' }, scenario('responses-json'));
    expect(res.output_text).toBe(RESPONSES_TEXT);
    const { exchange, record } = await captured('sdk-responses-json', received);
    expect(serialize(exchange.response)).toContain('"temperature":1.0,');
    expect('response_raw' in exchange).toBe(false);
    expect(record).toMatchObject(responsesExpected);
  });

  it('streaming through the SDK accumulator: the completed envelope is the stored response', async () => {
    const received: Received[] = [];
    const stream = openai('sdk-responses-stream', received).responses.stream({ model: 'gpt-5', input: 'Météo ?' }, scenario('responses-stream'));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(RESPONSES_TEXT);
    const { exchange, record } = await captured('sdk-responses-stream', received);
    expect(exchange.response_raw).toBe(responsesStream());
    expect(serialize(exchange.response)).toContain('"top_p":1.0,');
    expect(record).toMatchObject(responsesExpected);
  });
});

const messagesExpected = {
  model: 'claude-sonnet-4-5-20250929',
  dialect: 'messages',
  finish_reason: 'tool_use',
  tokens_in: 1436,
  tokens_out: 87,
  tokens_total: 1523,
  cache_hit: true,
  cached_tokens: 1024,
  cache_creation_tokens: 0,
  reasoning_content: MESSAGES_THINKING,
  tool_calls: [{ call_id: 'toolu_01A', name: 'get_weather', arguments: WEATHER_ARGS }],
  error_category: null,
};

describe('Anthropic messages through the proxy', () => {
  it('non-streaming', async () => {
    const received: Received[] = [];
    const msg = await anthropic('sdk-messages-json', received).messages.create(
      { model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Météo à Zürich ?' }] },
      scenario('messages-json'),
    );
    expect(msg.content[1]).toEqual({ type: 'text', text: MESSAGES_TEXT });
    const { record } = await captured('sdk-messages-json', received);
    expect(record).toMatchObject({ ...messagesExpected, response_id: 'msg_01Json' });
  });

  it('streaming through the SDK accumulator: its final message agrees with the stored reassembly', async () => {
    const received: Received[] = [];
    const stream = anthropic('sdk-messages-stream', received).messages.stream(
      { model: 'claude-sonnet-5-5', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Météo ?' }] },
      scenario('messages-stream'),
    );
    const final = await stream.finalMessage();
    const { exchange, record } = await captured('sdk-messages-stream', received);
    expect(exchange.response_raw).toBe(messagesStream());
    expect(record).toMatchObject({ ...messagesExpected, response_id: 'msg_01Stream' });
    const stored = exchange.response as { content: JsonObject[]; stop_reason: string };
    expect(stored.stop_reason).toBe(final.stop_reason);
    expect(stored.content.map((b) => b.text ?? b.thinking ?? b.input)).toEqual(
      final.content.map((b) => (b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : b.type === 'tool_use' ? b.input : null)),
    );
  });
});
