import { describe, expect, it } from 'vitest';
import { conversationKey, deepEqual, jsonDiff, requestDelta } from '../../../lib/view/delta';

const sys = { role: 'system', content: 'be brief' };
const user = { role: 'user', content: 'add 2 and 3' };
const call = { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }] };
const result = { role: 'tool', tool_call_id: 't1', content: '5' };

describe('requestDelta', () => {
  it('shows what a turn adds after the common prefix of the resent conversation (Chat)', () => {
    const d = requestDelta('chat', { model: 'm', messages: [sys, user] }, { model: 'm', messages: [sys, user, call, result] });
    expect(d).toMatchObject({ kind: 'messages', listPointer: '/request/messages', previousLength: 2, currentLength: 4, commonPrefix: 2, removed: 0, changes: [] });
    expect(d.added).toEqual([
      { index: 2, pointer: '/request/messages/2', value: call },
      { index: 3, pointer: '/request/messages/3', value: result },
    ]);
  });

  it('uses `input` for Responses and lists changes outside the conversation', () => {
    const prev = { input: [{ role: 'user', content: 'hi' }], tools: [{ name: 'a' }], temperature: 0 };
    const cur = { input: [{ role: 'user', content: 'hi' }, { type: 'function_call_output', call_id: 'c', output: 'ok' }], tools: [{ name: 'a' }, { name: 'b' }], temperature: 1 };
    const d = requestDelta('responses', prev, cur);
    expect(d.listPointer).toBe('/request/input');
    expect(d.added.map((a) => a.index)).toEqual([1]);
    expect(d.changes).toEqual([
      { pointer: '/request/tools/1', change: 'added', after: { name: 'b' } },
      { pointer: '/request/temperature', change: 'changed', before: 0, after: 1 },
    ]);
  });

  it('reports a rewritten history: the prefix ends at the first difference and the dropped items are counted', () => {
    const d = requestDelta('messages', { messages: [user, { role: 'assistant', content: 'x' }, user] }, { messages: [user, { role: 'assistant', content: 'summary' }] });
    expect(d).toMatchObject({ commonPrefix: 1, removed: 2, previousLength: 3, currentLength: 2 });
    expect(d.added.map((a) => a.pointer)).toEqual(['/request/messages/1']);
  });

  it('treats everything as added when there is no previous call', () => {
    const d = requestDelta('chat', null, { messages: [sys, user] });
    expect(d).toMatchObject({ kind: 'messages', commonPrefix: 0, previousLength: 0, removed: 0 });
    expect(d.added).toHaveLength(2);
  });

  it('handles a Responses string input as a one-item conversation', () => {
    const d = requestDelta('responses', { input: 'hi' }, { input: 'hello' });
    expect(d).toMatchObject({ commonPrefix: 0, removed: 1, added: [{ index: 0, pointer: '/request/input', value: 'hello' }] });
  });

  it('falls back to a JSON diff when the request has no conversation', () => {
    const d = requestDelta('chat', { prompt: 'a', n: 1 }, { prompt: 'b', n: 1, echo: true });
    expect(d.kind).toBe('json');
    expect(d.changes).toEqual([
      { pointer: '/request/prompt', change: 'changed', before: 'a', after: 'b' },
      { pointer: '/request/echo', change: 'added', after: true },
    ]);
  });
});

describe('jsonDiff and deepEqual', () => {
  it('compares structurally, key order aside', () => {
    expect(deepEqual({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(deepEqual([], {})).toBe(false);
  });

  it('stops at the limit and says so', () => {
    const a = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const b = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, -i - 1]));
    const r = jsonDiff(a, b, '', 10);
    expect(r.changes).toHaveLength(10);
    expect(r.truncated).toBe(true);
    expect(jsonDiff(a, a).changes).toEqual([]);
  });

  it('escapes keys in pointers and reports removed array items', () => {
    expect(jsonDiff({ 'a/b': [1, 2] }, { 'a/b': [1] }).changes).toEqual([{ pointer: '/a~1b/1', change: 'removed', before: 2 }]);
  });
});

describe('conversationKey', () => {
  it('finds the conversation of each dialect', () => {
    expect(conversationKey('chat', { messages: [] })).toBe('messages');
    expect(conversationKey('messages', { messages: [], system: 'x' })).toBe('messages');
    expect(conversationKey('responses', { input: 'x' })).toBe('input');
    expect(conversationKey(null, { input: [] })).toBe('input');
    expect(conversationKey('chat', { prompt: 'x' })).toBeNull();
    expect(conversationKey('chat', null)).toBeNull();
  });
});
