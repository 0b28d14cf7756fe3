import { describe, expect, it } from 'vitest';
import { inferDialect, normalizeConversation, parseArguments, type Conversation } from '../../../lib/view/conversation';
import { parsePointer, resolvePointer } from '../../../lib/view/json-pointer';

describe('Responses', () => {
  const request = {
    instructions: 'You are terse.',
    input: [
      { role: 'user', content: 'Find Sofia', type: 'message' },
      { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'look her up' }], encrypted_content: null },
      { type: 'function_call', call_id: 'call_1', name: 'find_email', arguments: '{"name":"Sofia"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"output":["sofia@atlas.com"]}' },
      { role: 'user', type: 'message', content: [{ type: 'input_text', text: 'and' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] },
    ],
  };
  const response = { output: [{ type: 'reasoning', summary: [], encrypted_content: 'gAAAA' }, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }] };

  it('turns input and output items into messages, grouping one assistant turn', () => {
    const c = normalizeConversation('responses', request, response);
    expect(c.dialect).toBe('responses');
    expect(c.messages.map((m) => [m.role, m.source, m.pointer, m.parts.map((p) => p.kind)])).toEqual([
      ['system', 'request', '/request/instructions', ['text']],
      ['user', 'request', '/request/input/0', ['text']],
      ['assistant', 'request', '/request/input/1', ['reasoning', 'tool_call']],
      ['tool', 'request', '/request/input/3', ['tool_result']],
      ['user', 'request', '/request/input/4', ['text', 'media']],
      ['assistant', 'response', '/response/output/0', ['reasoning', 'text']],
    ]);
  });

  it('parses tool arguments, names tool results after their call, and marks encrypted reasoning', () => {
    const c = normalizeConversation('responses', request, response);
    expect(c.messages[2].parts[1]).toEqual({ kind: 'tool_call', pointer: '/request/input/2', id: 'call_1', name: 'find_email', arguments: { name: 'Sofia' } });
    expect(c.messages[3].parts[0]).toMatchObject({ kind: 'tool_result', id: 'call_1', name: 'find_email', text: '{"output":["sofia@atlas.com"]}' });
    expect(c.messages[2].parts[0]).toEqual({ kind: 'reasoning', pointer: '/request/input/1/summary/0', text: 'look her up' });
    expect(c.messages[5].parts[0]).toMatchObject({ kind: 'reasoning', encrypted: true });
    expect(c.messages[4].parts[1]).toEqual({ kind: 'media', pointer: '/request/input/4/content/1', media: 'image', size: 26 });
  });

  it('accepts a plain string input', () => {
    expect(normalizeConversation('responses', { input: 'hi' }, null).messages).toEqual([{ role: 'user', source: 'request', pointer: '/request/input', parts: [{ kind: 'text', pointer: '/request/input', text: 'hi' }] }]);
  });
});

describe('Chat', () => {
  it('reads messages, tool calls, reasoning and the first choice', () => {
    const request = {
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'run', arguments: '{"code":"1+1"}' } }] },
        { role: 'tool', tool_call_id: 't1', content: '2' },
      ],
      tools: [{ type: 'function', function: { name: 'run' } }],
    };
    const response = { choices: [{ message: { role: 'assistant', reasoning_content: 'easy', content: 'It is 2.' }, finish_reason: 'stop' }, { message: { role: 'assistant', content: 'alt' } }] };
    const c = normalizeConversation('chat', request, response);
    expect(c.tools).toEqual(['run']);
    expect(c.messages.map((m) => [m.role, m.pointer, m.parts.map((p) => p.kind)])).toEqual([
      ['system', '/request/messages/0', ['text']],
      ['user', '/request/messages/1', ['text']],
      ['assistant', '/request/messages/2', ['tool_call']],
      ['tool', '/request/messages/3', ['tool_result']],
      ['assistant', '/response/choices/0/message', ['reasoning', 'text']],
    ]);
    expect(c.messages[3].parts[0]).toMatchObject({ name: 'run', text: '2' });
    expect(c.messages[4].parts[0]).toEqual({ kind: 'reasoning', pointer: '/response/choices/0/message/reasoning_content', text: 'easy' });
    expect(c.notes).toHaveLength(1);
  });

  it('notes a missing response and an error body', () => {
    expect(normalizeConversation('chat', { messages: [] }, null).notes.join(' ')).toMatch(/No response/);
    expect(normalizeConversation('chat', { messages: [] }, { error: { message: 'overloaded' } }).notes.join(' ')).toMatch(/overloaded/);
  });
});

describe('Anthropic Messages', () => {
  it('reads system, content blocks, tool use and results, thinking, and the response content', () => {
    const request = {
      system: [{ type: 'text', text: 'You are Claude Code.' }],
      messages: [
        { role: 'user', content: 'fix the bug' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'grep first', signature: 'x' }, { type: 'tool_use', id: 'tu1', name: 'Grep', input: { pattern: 'bug' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: 'a.py:1' }], is_error: true }] },
      ],
    };
    const response = { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'zz' }, { type: 'text', text: 'Fixed.' }], stop_reason: 'end_turn' };
    const c = normalizeConversation('messages', request, response);
    expect(c.messages.map((m) => [m.role, m.pointer, m.parts.map((p) => p.kind)])).toEqual([
      ['system', '/request/system', ['text']],
      ['user', '/request/messages/0', ['text']],
      ['assistant', '/request/messages/1', ['reasoning', 'tool_call']],
      ['tool', '/request/messages/2', ['tool_result']],
      ['assistant', '/response', ['reasoning', 'text']],
    ]);
    expect(c.messages[2].parts[1]).toMatchObject({ id: 'tu1', name: 'Grep', arguments: { pattern: 'bug' } });
    expect(c.messages[3].parts[0]).toMatchObject({ name: 'Grep', text: 'a.py:1', isError: true, pointer: '/request/messages/2/content/0' });
    expect(c.messages[4].parts[0]).toMatchObject({ encrypted: true });
  });

  it('keeps unknown blocks as JSON rather than dropping them', () => {
    const c = normalizeConversation('messages', { messages: [{ role: 'user', content: [{ type: 'mystery', x: 1 }] }] }, null);
    expect(c.messages[0].parts[0]).toEqual({ kind: 'other', pointer: '/request/messages/0/content/0', type: 'mystery', value: { type: 'mystery', x: 1 } });
  });
});

describe('pointers under other bases (a rollout line holds the request and response at other places)', () => {
  const cases: [string, unknown, unknown][] = [
    ['responses', { instructions: 'terse', input: [{ role: 'user', content: 'q', type: 'message' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] }, { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] }] }],
    ['chat', { messages: [{ role: 'user', content: 'q' }] }, { choices: [{ message: { role: 'assistant', reasoning_content: 'r', content: 'a' } }] }],
    ['messages', { system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] }, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }],
  ];
  const pointers = (c: Conversation) => c.messages.flatMap((m) => [m.pointer, ...m.parts.map((p) => p.pointer)]);

  it.each(cases)('%s: the same conversation, each pointer under its base and resolving in the document that holds them', (dialect, request, response) => {
    const at = { request: '/line/responses_create_params', response: '/line/re~1sponse' };
    const doc = { line: { responses_create_params: request, 're/sponse': response } };
    const record = normalizeConversation(dialect, request, response);
    const line = normalizeConversation(dialect, request, response, at);
    const rebased = (p: string) => p.replace(/^\/request/, at.request).replace(/^\/response/, at.response);
    expect(pointers(line)).toEqual(pointers(record).map(rebased));
    expect(line.messages.map((m) => m.parts.map((p) => p.kind))).toEqual(record.messages.map((m) => m.parts.map((p) => p.kind)));
    for (const p of pointers(line)) expect(resolvePointer(doc, parsePointer(p)).found, p).toBe(true);
  });
});

describe('helpers', () => {
  it('infers the dialect from the shapes when the record has none', () => {
    expect(inferDialect(null, { input: [] }, null)).toBe('responses');
    expect(inferDialect(null, {}, { choices: [] })).toBe('chat');
    expect(inferDialect(null, { system: 's', messages: [] }, null)).toBe('messages');
    expect(inferDialect(null, { messages: [] }, null)).toBe('chat');
    expect(inferDialect('bogus', null, null)).toBeNull();
  });

  it('parses argument strings that are JSON and keeps the rest', () => {
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseArguments('not json')).toBe('not json');
    expect(parseArguments({ a: 1 })).toEqual({ a: 1 });
    expect(parseArguments(undefined)).toBeNull();
  });
});
