import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JsonFloat, type JsonObject, type JsonValue } from '../../../lib/capture/json-value';
import { serialize } from '../../../lib/capture/json-serialize';
import { parseSseEvents, reassemble, TerminalScanner, type TerminalKind } from '../../../lib/capture/sse';

const bytes = (text: string) => Buffer.from(text, 'utf8');
/** The value each push returned, in order. */
const scan = (dialect: string, ...chunks: (string | Uint8Array)[]): (TerminalKind | null)[] => {
  const scanner = new TerminalScanner(dialect);
  return chunks.map((c) => scanner.push(typeof c === 'string' ? bytes(c) : c));
};
/** The terminal kind of a whole body pushed as one chunk. */
const kindOf = (dialect: string, body: string) => scan(dialect, body)[0];
const json = (v: JsonValue | null) => (v === null ? null : serialize(v));
const rebuilt = (dialect: string, body: string | Uint8Array) => json(reassemble(dialect, body));
const sse = (...events: string[]) => events.map((e) => `${e}\n\n`).join('');
const data = (payload: unknown) => `data: ${JSON.stringify(payload)}`;
const chat = (choices: unknown, extra: object = {}) => data({ id: 'chatcmpl-1', model: 'm', choices, ...extra });
const delta = (d: unknown, extra: object = {}) => chat([{ index: 0, delta: d, ...extra }]);

const MESSAGES_TOOL_USE = readFileSync(new URL('../../fixtures/sse/messages-tool-use.sse', import.meta.url));

const CHAT_CRLF = [
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"lo","reasoning_content":"hmm"},"finish_reason":null}]}',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\":"}}]},"finish_reason":null}]}',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}',
  'data: [DONE]',
]
  .map((e) => `${e}\r\n\r\n`)
  .join('');

describe('§6.4 streaming hold-back', () => {
  it('test_capture_is_durable_before_stream_terminal_event_is_sent: the second chunk completes the terminal block', () => {
    const scanner = new TerminalScanner('messages');
    expect(scanner.push(bytes('event: message_'))).toBeNull();
    expect(scanner.terminal).toBeNull();
    expect(scanner.push(bytes('stop\ndata: {"type":"message_stop"}\n\n'))).toBe('complete');
    expect(scanner.push(bytes(''))).toBeNull();
    expect(scanner.terminal).toBe('complete');
  });

  it('the completing chunk may also carry earlier events', () => {
    const head = 'event: message_start\ndata: {"type":"message_start","message":{}}\n\n';
    expect(scan('messages', head, 'event: ping\ndata: {}\n\nevent: message_stop\ndata: {}\n\n')).toEqual([null, 'complete']);
  });

  it('a terminal block is complete only when its blank line has fully arrived', () => {
    expect(scan('messages', 'event: message_stop\r\n', 'data: {}\r\n', '\r', '\n')).toEqual([null, null, null, 'complete']);
    expect(scan('chat', 'data: [DONE]\n', '\n')).toEqual([null, 'complete']);
  });

  it('after a terminal, pushes return null and the kind stays the first one', () => {
    const scanner = new TerminalScanner('responses');
    expect(scanner.push(bytes('event: response.incomplete\ndata: {}\n\n'))).toBe('incomplete');
    expect(scanner.push(bytes('event: error\ndata: {}\n\n'))).toBeNull();
    expect(scanner.terminal).toBe('incomplete');
  });

  it('empty chunks are ignored', () => {
    expect(scan('chat', '', 'data: [DONE]', '', '\n\n')).toEqual([null, null, null, 'complete']);
  });
});

describe('§6.5 terminal detection', () => {
  it.each([
    ['responses', 'event: response.completed', 'complete'],
    ['responses', 'event: response.incomplete', 'incomplete'],
    ['responses', 'event: response.failed', 'error'],
    ['responses', 'event: error', 'error'],
    ['chat', 'data: [DONE]', 'complete'],
    ['chat', 'event: error', 'error'],
    ['messages', 'event: message_stop', 'complete'],
    ['messages', 'event: error', 'error'],
  ])('%s: `%s` gives %s', (dialect, line, kind) => {
    expect(kindOf(dialect, `${line}\ndata: {}\n\n`)).toBe(kind);
  });

  it.each([
    ['responses', 'event: error\ndata: {"type":"error","code":"server_error","message":"boom"}', 'error'],
    ['messages', 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'error'],
    ['responses', 'event: response.incomplete\ndata: {"type":"response.incomplete","response":{"id":"r"}}', 'incomplete'],
    ['chat', 'event:error\ndata: {"message":"boom"}', 'error'],
    ['chat', 'data: {"error":{"message":"boom"}}', 'error'],
    ['chat', 'data:[DONE]', 'complete'],
  ])('test_stream_error_events_are_terminal: %s `%s` gives %s', (dialect, block, kind) => {
    expect(kindOf(dialect, `${block}\n\n`)).toBe(kind);
  });

  it('test_http_200_stream_error_is_not_recorded_as_success: a messages error block under 200 is an error terminal', () => {
    const body = sse(
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1"}}',
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}',
    );
    expect(kindOf('messages', body)).toBe('error');
  });

  it('responses and messages terminals come only from `event:` lines: data-only streams never terminate', () => {
    const responses = sse(data({ type: 'response.completed', response: { id: 'r1', status: 'completed' } }));
    expect(kindOf('responses', responses)).toBeNull();
    expect(rebuilt('responses', responses)).toBe('{"id":"r1","status":"completed"}');
    expect(kindOf('messages', sse(data({ type: 'message_stop' })))).toBeNull();
  });

  it('a terminal event not followed by a blank line is never detected', () => {
    expect(kindOf('messages', 'event: message_stop\ndata: {"type":"message_stop"}\n')).toBeNull();
    expect(kindOf('chat', 'data: [DONE]')).toBeNull();
    expect(kindOf('responses', 'event: response.completed\r\ndata: {}\r\n')).toBeNull();
  });

  it('CR-only separators are not split', () => {
    const scanner = new TerminalScanner('messages');
    expect(scanner.push(bytes('event: message_stop\r\rdata: {}\r\r'))).toBeNull();
    expect(scanner.push(bytes('\n\n'))).toBe('complete');
  });

  it.each(['\n\n', '\r\n\r\n', '\n\r\n', '\r\n\n'])('the separator %j ends a block', (separator) => {
    expect(kindOf('messages', `event: message_stop\ndata: {}${separator}`)).toBe('complete');
  });

  it.each(['\n', '\r', '\r\n'])('lines within a block split on %j', (eol) => {
    expect(kindOf('messages', `: comment${eol}data: {}${eol}event: message_stop\n\n`)).toBe('complete');
  });

  it('`event:error` and `data:[DONE]` are accepted thanks to the normalization', () => {
    expect(kindOf('messages', 'event:error\n\n')).toBe('error');
    expect(kindOf('chat', 'data:[DONE]\n\n')).toBe('complete');
    expect(kindOf('responses', 'event:\t \x0b\x0cresponse.completed\n\n')).toBe('complete');
  });

  it.each([
    ['a leading space before the field', '  event: message_stop'],
    ['trailing whitespace after the value', 'event: message_stop '],
    ['a space before the colon', 'event : message_stop'],
    ['a differently cased field', 'Event: message_stop'],
    ['a differently cased value', 'event: Message_Stop'],
    ['a line without a colon', 'message_stop'],
  ])('%s breaks the match', (_, line) => {
    expect(kindOf('messages', `${line}\n\n`)).toBeNull();
  });

  it('terminal lines belong to their dialect', () => {
    expect(kindOf('messages', 'data: [DONE]\n\n')).toBeNull();
    expect(kindOf('responses', 'data: [DONE]\n\n')).toBeNull();
    expect(kindOf('chat', 'event: message_stop\n\n')).toBeNull();
    expect(kindOf('chat', 'event: response.completed\n\n')).toBeNull();
    expect(kindOf('other', 'event: error\ndata: [DONE]\n\n')).toBeNull();
  });

  it.each(['{}', 'false', '""', '0', '[]', '"x"'])('chat: a data object whose `error` is %s is an error terminal', (v) => {
    expect(kindOf('chat', `data: {"id":"c","error":${v}}\n\n`)).toBe('error');
  });

  it.each([
    ['a null error', 'data: {"error":null}'],
    ['no error key', 'data: {"choices":[]}'],
    ['a nested error', 'data: {"choices":[{"error":"x"}]}'],
    ['a non-object value', 'data: [{"error":"x"}]'],
    ['invalid JSON', 'data: {"error":"x"'],
    ['a line not starting exactly with data:', ' data: {"error":"x"}'],
    ['an uppercase field', 'Data: {"error":"x"}'],
  ])('chat: %s is not an error terminal', (_, line) => {
    expect(kindOf('chat', `${line}\n\n`)).toBeNull();
  });

  it('chat: the error rule parses each data line alone, and an escaped key still counts', () => {
    expect(kindOf('chat', 'data: {"a":1}\ndata: {"error":"x"}\n\n')).toBe('error');
    expect(kindOf('chat', 'data:\t {"\\u0065rror":1}\n\n')).toBe('error');
  });

  it('the JSON error rule applies to chat only', () => {
    expect(kindOf('responses', 'data: {"error":{"message":"boom"}}\n\n')).toBeNull();
    expect(kindOf('messages', 'data: {"error":{"message":"boom"}}\n\n')).toBeNull();
  });

  it('the terminal-line check of a block comes before the chat JSON rule', () => {
    expect(kindOf('chat', 'data: {"error":"x"}\ndata: [DONE]\n\n')).toBe('complete');
  });

  it('the first terminal block wins and the rest of the chunk is not examined', () => {
    expect(kindOf('responses', 'event: response.incomplete\n\nevent: response.completed\n\n')).toBe('incomplete');
    expect(kindOf('chat', 'data: {"error":1}\n\ndata: [DONE]\n\n')).toBe('error');
  });

  it('the whole fixture streams: one terminal, on the last block', () => {
    expect(kindOf('messages', MESSAGES_TOOL_USE.toString())).toBe('complete');
    expect(kindOf('chat', CHAT_CRLF)).toBe('complete');
    expect(scan('chat', CHAT_CRLF.slice(0, -2), '\r\n')).toEqual([null, 'complete']);
  });
});

describe('§7.1 event parsing', () => {
  const events = (body: string | Uint8Array) => parseSseEvents(body).map((e) => serialize(e));

  it('keeps data objects in order; event, id, retry and comment lines are ignored', () => {
    const body = ': hello\n\nevent: a\nid: 1\nretry: 10\ndata: {"type":"x","n":1}\n\nevent: b\ndata: {"n":2}\n\n';
    expect(events(body)).toEqual(['{"type":"x","n":1}', '{"n":2}']);
  });

  it('joins the data lines of a block with \\n before parsing', () => {
    expect(events('data: {"a":\ndata:   [1,\ndata:2]}\n\n')).toEqual(['{"a":[1,2]}']);
  });

  it('skips exactly [DONE], non-objects and parse failures', () => {
    const body = sse('data:  [DONE]', 'data: 123', 'data: [1]', 'data: "s"', 'data: null', 'data: not-json', 'data: {"ok":1}');
    expect(events(body)).toEqual(['{"ok":1}']);
    expect(events('data: [DONE]\ndata: [DONE]\n\n')).toEqual([]);
  });

  it('ignores blocks without data lines, and lines that do not start exactly with data:', () => {
    expect(events(sse('event: ping', ' data: {"a":1}', 'Data: {"a":1}', 'data : {"a":1}'))).toEqual([]);
  });

  it('the last fragment counts even without a trailing blank line', () => {
    expect(events('data: {"a":1}\n\ndata: {"b":2}')).toEqual(['{"a":1}', '{"b":2}']);
  });

  it.each(['\n\n', '\r\n\r\n', '\n\r\n', '\r\n\n'])('splits blocks on %j', (separator) => {
    expect(events(`data: {"a":1}${separator}data: {"b":2}`)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('CR-only separators do not split: both data lines join into one invalid document', () => {
    expect(events('data: {"a":1}\r\rdata: {"b":2}\r\r')).toEqual([]);
  });

  it.each(['\u2028', '\u2029', '\x85', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e'])(
    'str.splitlines breaks on %j, even inside a JSON string',
    (brk) => {
      expect(events(`data: {"t":"a${brk}b"}\n\ndata: {"ok":1}\n\n`)).toEqual(['{"ok":1}']);
      expect(events(`event: x${brk}data: {"a":1}\n\n`)).toEqual(['{"a":1}']);
    },
  );

  it('strips all leading Unicode whitespace after data: (Python str.lstrip)', () => {
    for (const ws of ['\t', ' ', '\x1f', '\xa0', '\u3000', '\u2003', '\u205f']) {
      expect(events(`data:${ws}{"a":1}\n\n`)).toEqual(['{"a":1}']);
    }
    expect(events('data:\ufeff{"a":1}\n\n')).toEqual([]);
  });

  it('decodes as UTF-8 with U+FFFD replacement and keeps a leading BOM (so the first line is not data)', () => {
    const body = Buffer.concat([bytes('data: {"t":"a'), Buffer.from([0xff, 0xc3]), bytes('b"}\n\n')]);
    expect(events(body)).toEqual(['{"t":"a\ufffd\ufffdb"}']);
    expect(events(bytes('\ufeffdata: {"a":1}\n\ndata: {"b":2}\n\n'))).toEqual(['{"b":2}']);
  });

  it('parses with Python json: NaN and big ints accepted, whole floats kept', () => {
    const [event] = parseSseEvents('data: {"a":NaN,"b":1786032154.0,"c":18446744073709551615,"1":0}\n\n');
    expect(event.a).toBeInstanceOf(JsonFloat);
    expect(event.c).toBe(18446744073709551615n);
    expect(serialize(event)).toBe('{"a":null,"b":1786032154.0,"c":18446744073709551615,"1":0}');
  });

  it('text and bytes bodies give the same events', () => {
    expect(events(CHAT_CRLF)).toEqual(events(bytes(CHAT_CRLF)));
    expect(parseSseEvents(CHAT_CRLF)).toHaveLength(5);
  });
});

describe('§7.2 responses', () => {
  const created = 'event: response.created\ndata: {"type":"response.created","response":{"id":"r1","object":"response","created_at":1786032154.0,"status":"in_progress","output":[]}}';
  const completed = 'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r1","object":"response","created_at":1786032154.0,"status":"completed","output":[{"type":"message"}],"usage":{"input_tokens":4,"output_tokens":2,"total_tokens":6}}}';

  it('test_reconstruct_responses_sse_uses_terminal_envelope: created then completed gives the completed envelope', () => {
    const body = sse(created, 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"hi"}', completed);
    expect(rebuilt('responses', body)).toBe(
      '{"id":"r1","object":"response","created_at":1786032154.0,"status":"completed","output":[{"type":"message"}],"usage":{"input_tokens":4,"output_tokens":2,"total_tokens":6}}',
    );
    expect(kindOf('responses', body)).toBe('complete');
  });

  it('test_reconstruct_responses_sse_uses_terminal_envelope: an in_progress-only stream gives its response', () => {
    const body = sse('event: response.in_progress\ndata: {"type":"response.in_progress","response":{"id":"r2"}}');
    expect(rebuilt('responses', body)).toBe('{"id":"r2"}');
    expect(kindOf('responses', body)).toBeNull();
  });

  it('a terminal event beats a later non-terminal event that carries a response', () => {
    const body = sse(
      data({ type: 'response.failed', response: { id: 'r3', status: 'failed' } }),
      data({ type: 'response.output_text.delta', response: { id: 'later' } }),
    );
    expect(rebuilt('responses', body)).toBe('{"id":"r3","status":"failed"}');
  });

  it('the last terminal event wins, incomplete included', () => {
    const body = sse(
      data({ type: 'response.completed', response: { id: 'a' } }),
      data({ type: 'response.incomplete', response: { id: 'b', incomplete_details: { reason: 'max_output_tokens' } } }),
    );
    expect(rebuilt('responses', body)).toBe('{"id":"b","incomplete_details":{"reason":"max_output_tokens"}}');
  });

  it('a terminal type without an object response falls back to the latest object response', () => {
    const body = sse(
      data({ type: 'response.created', response: { id: 'r0' } }),
      data({ type: 'response.in_progress', response: { id: 'r1' } }),
      data({ type: 'response.completed', response: 'not an object' }),
    );
    expect(rebuilt('responses', body)).toBe('{"id":"r1"}');
  });

  it('the envelope is returned unchanged, key order included', () => {
    expect(rebuilt('responses', 'data: {"type":"response.completed","response":{"b":1.0,"1":2,"a":[]}}')).toBe(
      '{"b":1.0,"1":2,"a":[]}',
    );
  });

  it('no event with an object response gives null', () => {
    expect(rebuilt('responses', sse(data({ type: 'ping' }), data({ type: 'response.completed', response: [1] })))).toBeNull();
  });
});

describe('§7.3 chat', () => {
  it('test_reconstruct_chat_sse: the CRLF stream', () => {
    expect(rebuilt('chat', CHAT_CRLF)).toBe(
      '{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello","reasoning_content":"hmm","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]},"finish_reason":"tool_calls"}],"id":"chatcmpl-1","usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}',
    );
  });

  it('any dialect other than messages and responses uses the chat rules', () => {
    expect(rebuilt('completions', CHAT_CRLF)).toBe(rebuilt('chat', CHAT_CRLF));
  });

  it('no choice seen gives null', () => {
    expect(rebuilt('chat', sse(chat([]), chat(null), chat(['x', 1]), chat('abc'), chat({ a: 1 })))).toBeNull();
  });

  it('a minimal choice gives null content and no optional keys', () => {
    expect(rebuilt('chat', sse(data({ choices: [{ delta: {} }] })))).toBe(
      '{"object":"chat.completion","model":null,"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":null}]}',
    );
  });

  it('choices of all indices merge into one message', () => {
    const body = sse(chat([{ index: 0, delta: { content: 'a' } }, { index: 1, delta: { content: 'b' } }]), chat([{ index: 1, delta: { content: 'c' }, finish_reason: 'length' }]));
    expect(rebuilt('chat', body)).toBe(
      '{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"abc"},"finish_reason":"length"}],"id":"chatcmpl-1"}',
    );
  });

  it('the last truthy model, usage, role and finish reason win; the last string id wins, even ""', () => {
    const body = sse(
      data({ id: 'x', model: 'm1', usage: { total_tokens: 1 }, choices: [{ delta: { role: 'tool' }, finish_reason: 'stop' }] }),
      data({ id: '', model: 'm2', usage: [2], choices: [{ delta: { role: 'user' } }] }),
      data({ id: 7, model: '', usage: {}, choices: [{ delta: { role: '' }, finish_reason: '' }] }),
    );
    expect(rebuilt('chat', body)).toBe(
      '{"object":"chat.completion","model":"m2","choices":[{"index":0,"message":{"role":"user","content":null},"finish_reason":"stop"}],"id":"","usage":[2]}',
    );
  });

  it('reasoning_content is preferred over the reasoning alias within one delta', () => {
    const body = sse(delta({ reasoning: 'a' }), delta({ reasoning_content: 'b', reasoning: 'x' }), delta({ reasoning_content: '', reasoning: 'c' }));
    expect(json(reassemble('chat', body))).toContain('"reasoning_content":"abc"');
  });

  it('a tool-only message has null content; slots are keyed by index (default 0) and sorted', () => {
    const body = sse(
      delta({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'g', arguments: '{}' } }] }),
      delta({ tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"a":' } }] }),
      delta({ tool_calls: [{ index: 0, id: '', function: { name: 'f2', arguments: '1}' } }] }),
      delta({ tool_calls: [{ index: 1.0, function: { arguments: '' } }, { index: true, function: { name: '' } }] }),
    );
    expect(rebuilt('chat', body)).toBe(
      '{"object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f2","arguments":"{\\"a\\":1}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":null}],"id":"chatcmpl-1"}',
    );
  });

  it('a lone null index is a valid slot key; string indices sort by code point', () => {
    const lone = sse(delta({ tool_calls: [{ index: null, id: 'n' }] }));
    expect(json(reassemble('chat', lone))).toContain('"tool_calls":[{"id":"n","type":"function","function":{"name":"","arguments":""}}]');
    const strings = sse(delta({ tool_calls: [{ index: '\u{1F600}', id: 'emoji' }, { index: '\uff41', id: 'fullwidth' }, { index: 'b', id: 'b' }] }));
    const ids = JSON.parse(rebuilt('chat', strings)!).choices[0].message.tool_calls.map((t: { id: string }) => t.id);
    expect(ids).toEqual(['b', 'fullwidth', 'emoji']);
  });

  it('falsy non-object deltas count as {}; choices that are not objects are skipped', () => {
    const body = sse(chat([{ delta: [] }, { delta: 0 }, 'junk', null]), delta({ content: 'x' }));
    expect(json(reassemble('chat', body))).toContain('"message":{"role":"assistant","content":"x"}');
  });

  it.each([
    ['a non-object truthy delta', delta('x')],
    ['a list delta', delta([{ content: 'x' }])],
    ['a non-string content', delta({ content: ['a'] })],
    ['a numeric content', delta({ content: 5 })],
    ['a non-string reasoning', delta({ reasoning_content: { t: 1 } })],
    ['a non-string arguments', delta({ tool_calls: [{ index: 0, function: { arguments: { a: 1 } } }] })],
    ['mixed int and string tool indices', `${delta({ tool_calls: [{ index: 0 }] })}\n\n${delta({ tool_calls: [{ index: 'a' }] })}`],
    ['a null index beside an int index', `${delta({ tool_calls: [{ index: null }] })}\n\n${delta({ tool_calls: [{ index: 1 }] })}`],
    ['an unhashable tool index', delta({ tool_calls: [{ index: [0] }] })],
    ['a tool call that is not an object', delta({ tool_calls: ['x'] })],
    ['a string tool_calls', delta({ tool_calls: 'x' })],
    ['a non-object function', delta({ tool_calls: [{ function: 'f' }] })],
    ['non-iterable choices', chat(5)],
  ])('the Python code would raise on %s, so the whole result is null', (_, event) => {
    expect(rebuilt('chat', `${delta({ content: 'ok' })}\n\n${event}\n\n`)).toBeNull();
  });
});

describe('§7.4 messages', () => {
  it('test_capture_reassembles_streamed_anthropic_sse: thinking, text and a tool_use with partial JSON input', () => {
    expect(rebuilt('messages', MESSAGES_TOOL_USE)).toBe(
      '{"id":"msg_1","type":"message","role":"assistant","model":"claude","stop_reason":"tool_use","content":[{"type":"thinking","thinking":"let me think"},{"type":"text","text":"hi there"},{"type":"tool_use","id":"t1","name":"calc","input":{"x":1}}],"usage":{"input_tokens":10,"output_tokens":7,"cache_read_input_tokens":5,"cache_creation_input_tokens":2}}',
    );
  });

  it('deltas with no start', () => {
    const body = sse(
      data({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'hi' } }),
      data({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }),
    );
    expect(rebuilt('messages', body)).toBe('{"type":"message","content":[{"type":"text","text":"hi"}],"usage":{"output_tokens":3}}');
  });

  const toolUse = (partials: string[], input: unknown = {}) =>
    sse(
      data({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'g', input } }),
      ...partials.map((p) => data({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: p } })),
    );
  const inputOf = (body: string) => {
    const [block] = (reassemble('messages', body) as JsonObject).content as JsonObject[];
    return serialize(block.input);
  };

  it.each([
    [['{bad'], '{"_raw":"{bad"}'],
    [['', ''], '{}'],
    [['[1,', '2]'], '[1,2]'],
    [['"s"'], '"s"'],
    [['{"a":1.0}'], '{"a":1.0}'],
  ])('partial JSON %j gives input %s', (partials, expected) => {
    expect(inputOf(toolUse(partials))).toBe(expected);
  });

  it('only a falsy input is replaced, and only on tool_use blocks with partial JSON', () => {
    expect(inputOf(toolUse(['{"x":1}'], { y: 2 }))).toBe('{"y":2}');
    expect(inputOf(toolUse(['{"x":1}'], null))).toBe('{"x":1}');
    expect(inputOf(toolUse([], {}))).toBe('{}');
    const text = sse(
      data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      data({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } }),
    );
    expect(rebuilt('messages', text)).toBe('{"type":"message","content":[{"type":"text","text":""}]}');
  });

  it('message_start keeps its non-null keys in a fixed order; type: "message" overwrites in place', () => {
    const body = sse(data({ type: 'message_start', message: { model: 'c', role: 'assistant', type: 'msg', id: 'm', stop_reason: null, content: [1], stop_sequence: 'x' } }));
    expect(rebuilt('messages', body)).toBe('{"id":"m","type":"message","role":"assistant","model":"c","content":[]}');
    const untyped = sse(data({ type: 'message_start', message: { id: 'm', role: false } }));
    expect(rebuilt('messages', untyped)).toBe('{"id":"m","role":false,"type":"message","content":[]}');
  });

  it('a second message_start replaces the message while usage keeps merging', () => {
    const body = sse(
      data({ type: 'message_start', message: { id: 'a', model: 'x', usage: { input_tokens: 1, output_tokens: 1 } } }),
      data({ type: 'message_start', message: { id: 'b', usage: { output_tokens: 2, cache_read_input_tokens: 3 } } }),
      data({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 4 } }),
    );
    expect(rebuilt('messages', body)).toBe(
      '{"id":"b","stop_reason":"end_turn","type":"message","content":[],"usage":{"input_tokens":4,"output_tokens":2,"cache_read_input_tokens":3}}',
    );
  });

  it('without message_start the stop reason is lost; with no message and no blocks the result is null', () => {
    const body = sse(data({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }), data({ type: 'message_stop' }));
    expect(rebuilt('messages', body)).toBeNull();
  });

  it('content_block_start defaults its index to the block count and replaces a block at the same index', () => {
    const body = sse(
      data({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'b' } }),
      data({ type: 'content_block_start', content_block: { type: 'text', text: 'old' } }),
      data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'a' } }),
      data({ type: 'content_block_start', index: 2, content_block: null }),
    );
    expect(rebuilt('messages', body)).toBe('{"type":"message","content":[{"type":"text","text":"a"},{"type":"text","text":"old"},{}]}');
  });

  it('text and thinking deltas keep an existing block type; other delta types are ignored', () => {
    const body = sse(
      data({ type: 'content_block_start', index: 0, content_block: { type: 'redacted', text: null } }),
      data({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }),
      data({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta' } }),
      data({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 's' } }),
      data({ type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: {} } }),
    );
    expect(rebuilt('messages', body)).toBe('{"type":"message","content":[{"type":"redacted","text":"x","thinking":""}]}');
  });

  it('a non-string block text is added with Python + semantics (numbers add, lists concatenate)', () => {
    const add = (start: unknown, piece: unknown) =>
      rebuilt('messages', sse(
        data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: start } }),
        data({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }),
      ));
    expect(add(1, 2)).toBe('{"type":"message","content":[{"type":"text","text":3}]}');
    expect(add([1], ['a'])).toBe('{"type":"message","content":[{"type":"text","text":[1,"a"]}]}');
    expect(add(5, 'a')).toBeNull();
    expect(add('a', { b: 1 })).toBeNull();
  });

  it.each([
    ['a non-object message', data({ type: 'message_start', message: 'm' })],
    ['a non-object usage', data({ type: 'message_delta', usage: 5 })],
    ['a non-object content_block', data({ type: 'content_block_start', index: 1, content_block: [['type', 'text']] })],
    ['a non-object delta', data({ type: 'content_block_delta', index: 0, delta: 'x' })],
    ['a non-string partial_json', data({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 1 } })],
    ['mixed int and string block indices', data({ type: 'content_block_start', index: 'a', content_block: {} })],
  ])('the Python code would raise on %s, so the whole result is null', (_, event) => {
    const start = data({ type: 'message_start', message: { id: 'm' } });
    const block = data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    expect(rebuilt('messages', sse(start, block, event))).toBeNull();
  });
});

describe('§10.1 best-effort reassembly and truncated streams', () => {
  it.each([
    ['chat', ''],
    ['messages', 'event: ping\ndata: not-json'],
    ['chat', 'data: 123'],
    ['messages', 'event: ping\ndata: {"type":"ping"}\n\n'],
    ['chat', 'event: ping\ndata: {"type":"ping"}\n\n'],
    ['responses', 'event: ping\ndata: {"type":"ping"}\n\n'],
  ])('test_reconstruct_streamed_response_best_effort_none: %s %j gives null', (dialect, body) => {
    expect(reassemble(dialect, bytes(body))).toBeNull();
  });

  it.each([
    ['responses', 'event: response.in_progress\ndata: {"response":{}}\n\n', '{}'],
    [
      'chat',
      'event: \ndata: {"choices":[{"delta":{}}]}\n\n',
      '{"object":"chat.completion","model":null,"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":null}]}',
    ],
    ['messages', 'event: message_start\ndata: {"type":"message_start","message":{}}\n\n', '{"type":"message","content":[]}'],
  ])('test_stream_without_terminal_event_is_truncated[%s]: no terminal, a non-null response', (dialect, body, expected) => {
    expect(kindOf(dialect, body)).toBeNull();
    expect(rebuilt(dialect, bytes(body))).toBe(expected);
  });

  it('reassemble never throws, whatever the input', () => {
    for (const body of ['data: {"choices":[{"delta":"x"}]}', 'data: {"type":"content_block_start","index":[1]}', '\x00\xff']) {
      for (const dialect of ['chat', 'messages', 'responses', '']) expect(() => reassemble(dialect, body)).not.toThrow();
    }
  });
});
