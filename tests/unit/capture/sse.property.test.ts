import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../lib/capture/json-value';
import { serialize } from '../../../lib/capture/json-serialize';
import { reassemble, TerminalScanner, type Dialect, type TerminalKind } from '../../../lib/capture/sse';

// Streams are built from known deltas, with the byte offset where the terminal block's blank line ends
// (the byte whose arrival completes the terminal event), so both detection and reassembly have an oracle.

interface Stream {
  dialect: Dialect;
  body: Buffer;
  terminal: TerminalKind | null;
  /** Index of the last byte of the terminal block's separator; -1 when no terminal is detectable. */
  completesAt: number;
  expected: string | null;
}

// Raw multi-byte UTF-8 in payloads and comments; no Unicode line boundaries (U+2028, NEL), which Python's
// splitlines would break on inside a JSON string.
const text = fc.string({
  unit: fc.constantFrom('a', 'Z', ' ', ':', '"', '\\', '\n', '\r', '\t', 'é', '東', '京', '😀', '\u{10FFFF}', '[DONE]'),
  maxLength: 6,
});
const separator = fc.constantFrom('\n\n', '\r\n\r\n', '\n\r\n', '\r\n\n');
const eol = fc.constantFrom('\n', '\r\n', '\r');
const comment = fc.option(text.map((t) => `: ${t.replace(/[\r\n]/g, '')} 東京`), { nil: undefined });
const data = (v: unknown) => `data: ${JSON.stringify(v)}`;

interface Event {
  lines: string[];
  terminal?: TerminalKind;
}

function assemble(
  dialect: Dialect,
  events: Event[],
  seps: string[],
  eols: string[],
  truncated: boolean,
  expected: JsonValue | null,
): Stream {
  const parts: Buffer[] = [];
  let offset = 0;
  let terminal: TerminalKind | null = null;
  let completesAt = -1;
  events.forEach((event, k) => {
    const last = k === events.length - 1;
    const block = Buffer.from(event.lines.join(eols[k % eols.length]) + (last && truncated ? '' : seps[k % seps.length]));
    parts.push(block);
    offset += block.length;
    if (event.terminal && terminal === null && !(last && truncated)) {
      terminal = event.terminal;
      completesAt = offset - 1;
    }
  });
  return { dialect, body: Buffer.concat(parts), terminal, completesAt, expected: expected === null ? null : serialize(expected) };
}

const common = { seps: fc.array(separator, { minLength: 1, maxLength: 4 }), eols: fc.array(eol, { minLength: 1, maxLength: 3 }), truncated: fc.boolean(), comment };

const chatStream: fc.Arbitrary<Stream> = fc
  .record({
    ...common,
    contents: fc.array(text, { maxLength: 6 }),
    args: fc.array(text, { maxLength: 3 }),
    end: fc.constantFrom<'done' | 'error' | 'none'>('done', 'error', 'none'),
    done: fc.constantFrom('data: [DONE]', 'data:[DONE]', 'data: \t[DONE]'),
  })
  .map(({ seps, eols, truncated, comment, contents, args, end, done }) => {
    const chunk = (d: object) => ({ lines: [...(comment ? [comment] : []), data({ id: 'c', model: 'm', choices: [{ index: 0, delta: d }] })] });
    const events: Event[] = [
      chunk({ role: 'assistant' }),
      ...contents.map((c) => chunk({ content: c })),
      ...args.map((a, k) => chunk({ tool_calls: [{ index: 0, ...(k === 0 ? { id: 'call', function: { name: 'f', arguments: a } } : { function: { arguments: a } }) }] })),
    ];
    if (end === 'done') events.push({ lines: [done], terminal: 'complete' });
    if (end === 'error') events.push({ lines: ['event: error', data({ error: { message: 'boom' } })], terminal: 'error' });
    const message: JsonObject = { role: 'assistant', content: contents.join('') || null };
    if (args.length > 0) message.tool_calls = [{ id: 'call', type: 'function', function: { name: 'f', arguments: args.join('') } }];
    const expected = { object: 'chat.completion', model: 'm', choices: [{ index: 0, message, finish_reason: null }], id: 'c' };
    return assemble('chat', events, seps, eols, truncated, expected);
  });

const messagesStream: fc.Arbitrary<Stream> = fc
  .record({
    ...common,
    texts: fc.array(text, { maxLength: 5 }),
    input: fc.dictionary(text, fc.oneof(text, fc.integer()), { maxKeys: 3 }),
    cuts: fc.array(fc.nat(), { maxLength: 3 }),
    end: fc.constantFrom<'stop' | 'error' | 'none'>('stop', 'error', 'none'),
  })
  .map(({ seps, eols, truncated, comment, texts, input, cuts, end }) => {
    const event = (type: string, v: object): Event => ({ lines: [`event: ${type}`, ...(comment ? [comment] : []), data({ type, ...v })] });
    const json = JSON.stringify(input);
    const points = [...new Set(cuts.map((c) => c % (json.length + 1)))].sort((a, b) => a - b);
    const pieces = [0, ...points].map((p, k, all) => json.slice(p, all[k + 1] ?? json.length));
    const events: Event[] = [
      event('message_start', { message: { id: 'msg', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } }),
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...texts.map((t) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: t } })),
      event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 't', name: 'g', input: {} } }),
      ...pieces.map((p) => event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: p } })),
      event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
    ];
    if (end === 'stop') events.push({ ...event('message_stop', {}), terminal: 'complete' });
    if (end === 'error') events.push({ ...event('error', { error: { type: 'overloaded_error' } }), terminal: 'error' });
    const expected: JsonObject = {
      id: 'msg', type: 'message', role: 'assistant', model: 'claude', stop_reason: 'tool_use',
      content: [{ type: 'text', text: texts.join('') }, { type: 'tool_use', id: 't', name: 'g', input }],
      usage: { input_tokens: 3, output_tokens: 9 },
    };
    return assemble('messages', events, seps, eols, truncated, expected);
  });

const responsesStream: fc.Arbitrary<Stream> = fc
  .record({
    ...common,
    deltas: fc.array(text, { maxLength: 5 }),
    end: fc.constantFrom<'response.completed' | 'response.incomplete' | 'response.failed' | 'none'>('response.completed', 'response.incomplete', 'response.failed', 'none'),
  })
  .map(({ seps, eols, truncated, comment, deltas, end }) => {
    const event = (type: string, v: object): Event => ({ lines: [...(comment ? [comment] : []), `event: ${type}`, data({ type, ...v })] });
    const envelope = (status: string, output: unknown[]) => `{"id":"r","object":"response","created_at":1786032154.0,"status":"${status}","output":${JSON.stringify(output)}}`;
    const events: Event[] = [
      { lines: ['event: response.created', `data: {"type":"response.created","response":${envelope('in_progress', [])}}`] },
      ...deltas.map((d) => event('response.output_text.delta', { delta: d })),
    ];
    const output = [{ type: 'message', content: [{ type: 'output_text', text: deltas.join('') }] }];
    let expected = envelope('in_progress', []);
    if (end !== 'none') {
      const status = end.slice('response.'.length);
      expected = envelope(status, output);
      const kind = end === 'response.completed' ? 'complete' : end === 'response.incomplete' ? 'incomplete' : 'error';
      events.push({ lines: [`event: ${end}`, `data: {"type":"${end}","response":${expected}}`], terminal: kind });
    }
    const stream = assemble('responses', events, seps, eols, truncated, null);
    return { ...stream, expected };
  });

const anyStream = fc.oneof(chatStream, messagesStream, responsesStream);

/** Split `body` at the given offsets (deduplicated, in range). */
function split(body: Buffer, offsets: number[]): Buffer[] {
  const cuts = [...new Set(offsets.map((o) => o % (body.length + 1)))].sort((a, b) => a - b);
  return [0, ...cuts].map((c, k, all) => body.subarray(c, all[k + 1] ?? body.length));
}

/** Only the push whose chunk holds the terminal block's last separator byte reports, with the right kind. */
function expectDetection(stream: Stream, chunks: Buffer[]): void {
  const scanner = new TerminalScanner(stream.dialect);
  const results = chunks.map((c) => scanner.push(c));
  expect(scanner.terminal).toBe(stream.terminal);
  let start = 0;
  chunks.forEach((chunk, k) => {
    const end = start + chunk.length;
    const completes = chunk.length > 0 && stream.completesAt >= start && stream.completesAt < end;
    expect(results[k]).toBe(completes ? stream.terminal : null);
    start = end;
  });
}

describe('§6.5 terminal detection is independent of chunking', () => {
  it('random chunkings report the terminal exactly on the chunk holding its last separator byte', () => {
    fc.assert(
      fc.property(anyStream, fc.array(fc.nat(), { maxLength: 12 }), (stream, offsets) => {
        expectDetection(stream, split(stream.body, offsets));
      }),
      { numRuns: 300 },
    );
  });

  it('every two-way split, including inside multi-byte characters and blank lines, and byte-by-byte pushes', () => {
    fc.assert(
      fc.property(anyStream, (stream) => {
        for (let cut = 0; cut <= stream.body.length; cut++) expectDetection(stream, split(stream.body, [cut]));
        expectDetection(stream, [...stream.body].map((b) => Buffer.from([b])));
      }),
      { numRuns: 25 },
    );
  });

  it('the generated streams do exercise multi-byte characters and every separator form', () => {
    const samples = fc.sample(anyStream, { numRuns: 200, seed: 7 });
    const bodies = samples.map((s) => s.body.toString('latin1'));
    expect(samples.some((s) => s.body.length !== s.body.toString('utf8').length)).toBe(true);
    for (const sep of ['\n\n', '\r\n\r\n', '\n\r\n', '\r\n\n']) expect(bodies.some((b) => b.includes(`}${sep}`))).toBe(true);
    expect(samples.filter((s) => s.terminal !== null).length).toBeGreaterThan(50);
  });
});

describe('§7 reassembly reproduces the deltas, however the stream was chunked', () => {
  it('reassembling the concatenated chunks gives the response built from the known deltas', () => {
    fc.assert(
      fc.property(anyStream, fc.array(fc.nat(), { maxLength: 12 }), (stream, offsets) => {
        const body = Buffer.concat(split(stream.body, offsets));
        const result = reassemble(stream.dialect, body);
        expect(result === null ? null : serialize(result)).toBe(stream.expected);
        const fromText = reassemble(stream.dialect, stream.body.toString('utf8'));
        expect(fromText === null ? null : serialize(fromText)).toBe(stream.expected);
      }),
      { numRuns: 300 },
    );
  });
});
