// A scripted upstream model server for proxy tests and the proxy benchmark: a node:http server that answers
// each request with a scenario chosen by the `x-mock-scenario` request header. A scenario fixes the exact
// status, headers and body bytes, where the body is cut into chunks (written one by one, with delays), and
// the faults: a reset mid-body, a hang before the head, a stall inside the body, a close before the head.
// Every request is logged with the bytes received and the exact body bytes sent, so that a test can compare
// what a client got with what the upstream sent.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export type Encoding = 'gzip' | 'deflate' | 'br';

export interface Scenario {
  status?: number;
  statusText?: string;
  /** Response headers in order, exactly as sent (add content-type yourself). */
  headers?: [string, string][];
  /** The body, cut where the chunks end (before any encoding). */
  chunks?: (string | Buffer)[];
  /** Milliseconds before each chunk (one number for all); 0 still yields to the event loop. */
  delayMs?: number | number[];
  /** Chunk i is not sent before gates[i] resolves: a test decides when the upstream goes on. */
  gates?: (Promise<unknown> | undefined)[];
  /** Milliseconds before the head is sent. */
  headDelayMs?: number;
  /** Send `content-length` instead of chunked framing. */
  contentLength?: boolean;
  /** Compress the body, flushing at every chunk boundary (as a server compressing a stream does). */
  encoding?: Encoding;
  /**
   * - `reset`: after the chunks, destroy the connection (no clean end);
   * - `hang`: never answer (the head never comes);
   * - `close-before-head`: close the connection as soon as the request has arrived;
   * - `stall`: after the chunks, send nothing more and keep the connection open.
   */
  fault?: 'reset' | 'hang' | 'close-before-head' | 'stall';
}

export type ScenarioSource = Scenario | ((request: MockRequest) => Scenario);

export interface MockRequest {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  scenario: string | null;
  /** The body bytes sent, exactly as written to the socket (after encoding), once the response is over. */
  sent: Buffer;
  /** Body bytes whose write has completed so far (the socket took them). */
  progress: number;
  /** Resolves when the mock has written everything it will write for this request. */
  done: Promise<void>;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise<void>((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));

/** Compresses chunk by chunk with a sync flush after each, so each input chunk maps to one output chunk. */
export async function encodeChunks(chunks: Buffer[], encoding: Encoding): Promise<Buffer[]> {
  const z = encoding === 'br' ? zlib.createBrotliCompress() : encoding === 'deflate' ? zlib.createDeflate() : zlib.createGzip();
  const flushKind = encoding === 'br' ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
  let pending: Buffer[] = [];
  z.on('data', (b: Buffer) => pending.push(b));
  const out: Buffer[] = [];
  for (const chunk of chunks) {
    z.write(chunk);
    await new Promise<void>((r) => z.flush(flushKind, () => r()));
    out.push(Buffer.concat(pending));
    pending = [];
  }
  await new Promise<void>((r) => z.end(() => r()));
  await new Promise<void>((r) => (z.readableEnded ? r() : z.once('end', () => r())));
  if (pending.length) out.push(Buffer.concat(pending));
  return out.filter((c) => c.length > 0);
}

export class MockUpstream {
  readonly requests: MockRequest[] = [];
  private readonly scenarios = new Map<string, ScenarioSource>();
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  /** Scenario for requests without the header, or with an unknown name. */
  fallback: ScenarioSource = { status: 404, headers: [['content-type', 'application/json']], chunks: ['{"error":"no scenario"}'] };
  /** Keep only this many logged requests (long benchmark runs). */
  logLimit = Infinity;

  constructor() {
    this.server = http.createServer({ requestTimeout: 0, keepAliveTimeout: 30_000 }, (req, res) => void this.answer(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => r()));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  set(name: string, scenario: ScenarioSource): this {
    this.scenarios.set(name, scenario);
    return this;
  }

  last(): MockRequest {
    return this.requests[this.requests.length - 1];
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const name = (req.headers['x-mock-scenario'] as string | undefined) ?? null;
    let finish!: () => void;
    const request: MockRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(parts),
      scenario: name,
      sent: Buffer.alloc(0),
      progress: 0,
      done: new Promise<void>((r) => (finish = r)),
    };
    this.requests.push(request);
    if (this.requests.length > this.logLimit) this.requests.splice(0, this.requests.length - this.logLimit);
    try {
      const source = (name && this.scenarios.get(name)) || this.fallback;
      await this.play(typeof source === 'function' ? source(request) : source, req, res, request);
    } finally {
      finish();
    }
  }

  private async play(s: Scenario, req: http.IncomingMessage, res: http.ServerResponse, log: MockRequest): Promise<void> {
    const socket = req.socket;
    if (s.fault === 'close-before-head') return void socket.destroy();
    if (s.fault === 'hang') return;
    let chunks = (s.chunks ?? []).map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c));
    if (s.encoding) chunks = await encodeChunks(chunks, s.encoding);
    const headers: string[] = [];
    for (const [k, v] of s.headers ?? []) headers.push(k, v);
    if (s.encoding) headers.push('content-encoding', s.encoding);
    if (s.contentLength) headers.push('content-length', String(chunks.reduce((n, c) => n + c.length, 0)));
    if (s.headDelayMs) await sleep(s.headDelayMs);
    res.sendDate = false;
    res.writeHead(s.status ?? 200, s.statusText ?? http.STATUS_CODES[s.status ?? 200] ?? '', headers);
    res.flushHeaders();
    const sent: Buffer[] = [];
    for (let i = 0; i < chunks.length; i++) {
      const delay = Array.isArray(s.delayMs) ? (s.delayMs[i] ?? 0) : (s.delayMs ?? 0);
      if (delay > 0 || chunks.length > 1) await sleep(delay);
      await s.gates?.[i];
      if (socket.destroyed) break;
      // The write callback never comes for a connection the peer closed: 'close' ends the wait.
      const written = await new Promise<boolean>((r) => {
        const onClose = () => r(false);
        socket.once('close', onClose);
        res.write(chunks[i], (err) => {
          socket.off('close', onClose);
          r(!err);
        });
      });
      if (!written) break;
      sent.push(chunks[i]);
      log.progress += chunks[i].length;
    }
    log.sent = Buffer.concat(sent);
    if (socket.destroyed) return;
    if (s.fault === 'reset') return void socket.destroy();
    if (s.fault === 'stall') return;
    await new Promise<void>((r) => res.end(() => r()));
  }
}

/** Cuts a body at the given byte offsets. */
export function cutAt(body: string | Buffer, offsets: number[]): Buffer[] {
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const points = [...new Set(offsets.filter((o) => o > 0 && o < b.length))].sort((x, y) => x - y);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of [...points, b.length]) {
    out.push(b.subarray(from, p));
    from = p;
  }
  return out.filter((c) => c.length > 0);
}

// --- realistic scenarios for the three dialects ------------------------------------------------------------
//
// Event sequences follow what OpenAI (chat completions, responses) and Anthropic (messages) send, including
// the shapes their SDK accumulators rely on, non-ASCII text (accents, CJK, emoji) and numbers whose
// spelling matters to the capture (`1.0`). Non-streaming bodies are pretty-printed, as OpenAI's are.

export type DialectName = 'chat' | 'responses' | 'messages';

/** JSON text with `"<key>":1` floats spelled `1.0`, as Python providers send them. */
const withFloats = (json: string, keys: string[]) => keys.reduce((s, k) => s.replace(new RegExp(`("${k}": ?)1,`, 'g'), '$11.0,'), json);
export const sseEvent = (event: string | null, data: unknown) =>
  `${event === null ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

export const WEATHER_ARGS = { city: 'Zürich' };
const MODEL = { chat: 'gpt-4.1-2025-04-14', responses: 'gpt-5-2025-08-07', messages: 'claude-sonnet-4-5-20250929' };

// chat ---------------------------------------------------------------------------------------------------

export const CHAT_TEXT = 'Bonjour ! Ça va très bien, merci. 東京は晴れ 🌤️';
export const CHAT_REASONING = 'The user greets in French; answer briefly.';
const CHAT_USAGE = { prompt_tokens: 41, completion_tokens: 23, total_tokens: 64, prompt_tokens_details: { cached_tokens: 32, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 9, audio_tokens: 0 } };

export function chatJson(): string {
  const body = {
    id: 'chatcmpl-9fJson',
    object: 'chat.completion',
    created: 1786032153,
    model: MODEL.chat,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: CHAT_TEXT,
          reasoning_content: CHAT_REASONING,
          tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(WEATHER_ARGS) } }],
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: CHAT_USAGE,
    service_tier: 'default',
    system_fingerprint: 'fp_1a2b',
  };
  return JSON.stringify(body, null, 2);
}

export function chatStream(opts: { terminal?: 'done' | 'none' | 'error-data' | 'error-event' } = {}): string {
  const base = { id: 'chatcmpl-9fStream', object: 'chat.completion.chunk', created: 1786032153, model: MODEL.chat, system_fingerprint: 'fp_1a2b' };
  const chunk = (delta: object, finish: string | null = null) => sseEvent(null, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const parts = [
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: 'The user greets in French; ' }),
    chunk({ reasoning_content: 'answer briefly.' }),
    chunk({ content: 'Bonjour ! Ça va très bien, ' }),
    chunk({ content: 'merci. 東京は晴れ 🌤️' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'Zürich"}' } }] }),
    chunk({}, 'tool_calls'),
    sseEvent(null, { ...base, choices: [], usage: CHAT_USAGE }),
  ];
  const terminal = opts.terminal ?? 'done';
  if (terminal === 'done') parts.push('data: [DONE]\n\n');
  if (terminal === 'error-data') parts.splice(5, 5, sseEvent(null, { error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } }));
  if (terminal === 'error-event') parts.splice(5, 5, sseEvent('error', { message: 'overloaded', type: 'server_error' }));
  return parts.join('');
}

// responses ----------------------------------------------------------------------------------------------

export const RESPONSES_TEXT = 'Je vérifie la météo à Zürich… 🌦️';
export const RESPONSES_REASONING = 'Look up the weather first.';

function responseObject(status: 'completed' | 'in_progress' | 'incomplete' | 'failed') {
  const done = status !== 'in_progress';
  return {
    id: 'resp_68a1',
    object: 'response',
    created_at: 1786032153,
    status,
    background: false,
    error: status === 'failed' ? { code: 'server_error', message: 'The model failed.' } : null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model: MODEL.responses,
    output: done
      ? [
          { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: RESPONSES_REASONING }] },
          { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: RESPONSES_TEXT }] },
          { id: 'fc_1', type: 'function_call', status: 'completed', arguments: JSON.stringify(WEATHER_ARGS), call_id: 'call_r1', name: 'get_weather' },
        ]
      : [],
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [{ type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true }],
    top_p: 1,
    usage: done ? { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 58, output_tokens_details: { reasoning_tokens: 32 }, total_tokens: 178 } : null,
  };
}

export function responsesJson(): string {
  return withFloats(JSON.stringify(responseObject('completed'), null, 2), ['temperature', 'top_p']);
}

export function responsesStream(opts: { terminal?: 'completed' | 'incomplete' | 'failed' | 'error' | 'none' } = {}): string {
  let n = 0;
  const ev = (type: string, fields: object) => sseEvent(type, { type, sequence_number: n++, ...fields });
  const item = responseObject('completed').output;
  const parts = [
    ev('response.created', { response: responseObject('in_progress') }),
    ev('response.in_progress', { response: responseObject('in_progress') }),
    ev('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
    ev('response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } }),
    ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'Look up the weather' }),
    ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: ' first.' }),
    ev('response.reasoning_summary_text.done', { item_id: 'rs_1', output_index: 0, summary_index: 0, text: RESPONSES_REASONING }),
    ev('response.reasoning_summary_part.done', { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: RESPONSES_REASONING } }),
    ev('response.output_item.done', { output_index: 0, item: item[0] }),
    ev('response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
    ev('response.content_part.added', { item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }),
    ev('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Je vérifie la météo ', logprobs: [] }),
    ev('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'à Zürich… 🌦️', logprobs: [] }),
    ev('response.output_text.done', { item_id: 'msg_1', output_index: 1, content_index: 0, text: RESPONSES_TEXT, logprobs: [] }),
    ev('response.content_part.done', { item_id: 'msg_1', output_index: 1, content_index: 0, part: item[1].content![0] }),
    ev('response.output_item.done', { output_index: 1, item: item[1] }),
    ev('response.output_item.added', { output_index: 2, item: { ...item[2], status: 'in_progress', arguments: '' } }),
    ev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '{"city":' }),
    ev('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 2, delta: '"Zürich"}' }),
    ev('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 2, arguments: JSON.stringify(WEATHER_ARGS) }),
    ev('response.output_item.done', { output_index: 2, item: item[2] }),
  ];
  const terminal = opts.terminal ?? 'completed';
  if (terminal === 'completed') parts.push(ev('response.completed', { response: responseObject('completed') }));
  if (terminal === 'incomplete') parts.push(ev('response.incomplete', { response: responseObject('incomplete') }));
  if (terminal === 'failed') parts.push(ev('response.failed', { response: responseObject('failed') }));
  if (terminal === 'error') parts.push(ev('error', { code: 'server_error', message: 'The server had an error.', param: null }));
  return withFloats(parts.join(''), ['temperature', 'top_p']);
}

// messages -----------------------------------------------------------------------------------------------

export const MESSAGES_TEXT = 'Je regarde la météo à Zürich 🌦️.';
export const MESSAGES_THINKING = 'The user wants the weather; call the tool.';

export function messagesJson(): string {
  return JSON.stringify({
    id: 'msg_01Json',
    type: 'message',
    role: 'assistant',
    model: MODEL.messages,
    content: [
      { type: 'thinking', thinking: MESSAGES_THINKING, signature: 'EqQBCkYIBxgCKkA' },
      { type: 'text', text: MESSAGES_TEXT },
      { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: WEATHER_ARGS },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 412, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 87, service_tier: 'standard' },
  });
}

export function messagesStream(opts: { terminal?: 'stop' | 'none' | 'error' } = {}): string {
  const ev = (type: string, fields: object) => sseEvent(type, { type, ...fields });
  const delta = (index: number, d: object) => ev('content_block_delta', { index, delta: d });
  const parts = [
    ev('message_start', {
      message: { id: 'msg_01Stream', type: 'message', role: 'assistant', model: MODEL.messages, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 412, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 1, service_tier: 'standard' } },
    }),
    ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    delta(0, { type: 'thinking_delta', thinking: 'The user wants the weather; ' }),
    delta(0, { type: 'thinking_delta', thinking: 'call the tool.' }),
    delta(0, { type: 'signature_delta', signature: 'EqQBCkYIBxgCKkA' }),
    ev('content_block_stop', { index: 0 }),
    ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    ev('ping', {}),
    delta(1, { type: 'text_delta', text: 'Je regarde la météo ' }),
    delta(1, { type: 'text_delta', text: 'à Zürich 🌦️.' }),
    ev('content_block_stop', { index: 1 }),
    ev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: {} } }),
    delta(2, { type: 'input_json_delta', partial_json: '' }),
    delta(2, { type: 'input_json_delta', partial_json: '{"city": "Z' }),
    delta(2, { type: 'input_json_delta', partial_json: 'ürich"}' }),
    ev('content_block_stop', { index: 2 }),
    ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 87 } }),
  ];
  const terminal = opts.terminal ?? 'stop';
  if (terminal === 'stop') parts.push(ev('message_stop', {}));
  if (terminal === 'error') parts.splice(8, parts.length, ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }));
  return parts.join('');
}

// chunking -----------------------------------------------------------------------------------------------

/** Offsets that cut inside multi-byte characters and inside the blank line between events. */
export function awkwardCuts(body: string): number[] {
  const b = Buffer.from(body, 'utf8');
  const cuts: number[] = [];
  for (const ch of ['é', '東', '🌤', '🌦', 'ü', '…']) {
    const at = b.indexOf(Buffer.from(ch, 'utf8'));
    if (at >= 0) cuts.push(at + 1);
  }
  for (let at = b.indexOf('\n\n'), k = 0; at >= 0; at = b.indexOf('\n\n', at + 2), k++) if (k % 3 === 0) cuts.push(at + 1);
  return cuts;
}

export const SSE_HEADERS: [string, string][] = [
  ['Content-Type', 'text/event-stream; charset=utf-8'],
  ['Cache-Control', 'no-cache'],
  ['X-Request-Id', 'req_mock_1'],
];
export const JSON_HEADERS: [string, string][] = [
  ['Content-Type', 'application/json'],
  ['X-Request-Id', 'req_mock_1'],
  ['openai-processing-ms', '412'],
];

/** A stream scenario cut at awkward places, with a small delay between chunks so cuts survive TCP. */
export function streamScenario(body: string, extra: Partial<Scenario> = {}): Scenario {
  return { headers: SSE_HEADERS, chunks: cutAt(body, awkwardCuts(body)), delayMs: 2, ...extra };
}

export function jsonScenario(body: string, extra: Partial<Scenario> = {}): Scenario {
  return { headers: JSON_HEADERS, chunks: cutAt(body, awkwardCuts(body)), delayMs: 1, ...extra };
}
