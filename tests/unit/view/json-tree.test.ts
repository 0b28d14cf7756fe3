import { describe, expect, it } from 'vitest';
import { classifyString, flattenTree, revealPointer, searchTree, utf8Length } from '../../../lib/view/json-tree';

const IMAGE_URL = 'data:image/png;base64,' + 'A'.repeat(5000);
const REQUEST = {
  model: 'm',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: IMAGE_URL } }] },
  ],
  temperature: 0.5,
  stream: false,
  stop: null,
};

describe('flattenTree', () => {
  it('lists visible rows in document order with pointers relative to the record', () => {
    const rows = flattenTree(REQUEST, { basePointer: '/request', defaultDepth: 1 });
    expect(rows.map((r) => r.pointer)).toEqual(['/request', '/request/model', '/request/messages', '/request/temperature', '/request/stream', '/request/stop']);
    expect(rows[0]).toMatchObject({ depth: 0, key: null, type: 'object', size: 5, open: true });
    expect(rows[2]).toMatchObject({ depth: 1, key: 'messages', type: 'array', size: 2, open: false });
    expect(rows.slice(3).map((r) => [r.type, r.text])).toEqual([
      ['number', '0.5'],
      ['boolean', 'false'],
      ['null', 'null'],
    ]);
  });

  it('opens containers shallower than the default depth, and toggling flips a default either way', () => {
    const open = flattenTree(REQUEST, { basePointer: '/request', defaultDepth: 2 });
    expect(open.find((r) => r.pointer === '/request/messages')!.open).toBe(true);
    expect(open.find((r) => r.pointer === '/request/messages/0')!.open).toBe(false);
    const toggled = flattenTree(REQUEST, { basePointer: '/request', defaultDepth: 2, toggled: new Set(['/request/messages', '/request/messages/0']) });
    expect(toggled.some((r) => r.pointer === '/request/messages/0')).toBe(false);
    const deeper = flattenTree(REQUEST, { basePointer: '/request', defaultDepth: 2, toggled: new Set(['/request/messages/0']) });
    expect(deeper.filter((r) => r.pointer.startsWith('/request/messages/0/')).map((r) => r.key)).toEqual(['role', 'content']);
  });

  it('keeps huge containers closed by default so a first paint stays small', () => {
    const rows = flattenTree({ items: Array.from({ length: 5000 }, (_, i) => i) }, { openMaxChildren: 1000 });
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ size: 5000, open: false });
  });

  it('clips long strings and base64 to a preview until expanded', () => {
    const all = new Set(['', '/messages', '/messages/1', '/messages/1/content', '/messages/1/content/1', '/messages/1/content/1/image_url']);
    const rows = flattenTree(REQUEST, { defaultDepth: 0, toggled: all });
    const url = rows.find((r) => r.pointer === '/messages/1/content/1/image_url/url')!;
    expect(url.clip).toEqual({ reason: 'base64', length: 5022, bytes: 5022, mime: 'image/png' });
    expect(url.text.length).toBeLessThanOrEqual(48);
    const expanded = flattenTree(REQUEST, { defaultDepth: 0, toggled: all, expandedStrings: new Set([url.pointer]) });
    expect(expanded.find((r) => r.pointer === url.pointer)).toMatchObject({ clip: null, text: IMAGE_URL });
  });

  it('walks only opened containers (a deep, wide value with everything closed is one row)', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(flattenTree(deep, { defaultDepth: 0 })).toHaveLength(1);
    expect(flattenTree(deep, { defaultDepth: 10_000 })).toHaveLength(5001);
  });

  it('treats empty containers as closed and keeps escaped keys in pointers', () => {
    const rows = flattenTree({ 'a/b': {}, 'c~d': [] });
    expect(rows.map((r) => [r.pointer, r.open])).toEqual([
      ['', true],
      ['/a~1b', false],
      ['/c~0d', false],
    ]);
  });
});

describe('classifyString', () => {
  it('leaves short text alone and clips long text', () => {
    expect(classifyString('hello')).toBeNull();
    expect(classifyString('x '.repeat(300))).toMatchObject({ reason: 'long', length: 600 });
  });

  it('recognizes data URLs and bare base64, but not long prose', () => {
    expect(classifyString('data:image/jpeg;base64,/9j/4AAQ')).toMatchObject({ reason: 'base64', mime: 'image/jpeg' });
    expect(classifyString('QUJD'.repeat(100))).toMatchObject({ reason: 'base64', mime: null });
    expect(classifyString('word '.repeat(100))!.reason).toBe('long');
  });

  it('counts UTF-8 bytes, surrogate pairs as 4', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('plain ASCII text\n')).toBe(17);
    expect(classifyString('é'.repeat(500))).toMatchObject({ length: 500, bytes: 1000 });
  });
});

describe('revealPointer', () => {
  it('opens every closed ancestor of the target and nothing else', () => {
    const toggled = revealPointer(REQUEST, '/request/messages/1/content/0/text', new Set(), { basePointer: '/request', defaultDepth: 1 })!;
    expect([...toggled].sort()).toEqual(['/request/messages', '/request/messages/1', '/request/messages/1/content', '/request/messages/1/content/0']);
    const rows = flattenTree(REQUEST, { basePointer: '/request', defaultDepth: 1, toggled });
    expect(rows.some((r) => r.pointer === '/request/messages/1/content/0/text')).toBe(true);
  });

  it('un-toggles an ancestor the user had closed against its default', () => {
    const toggled = revealPointer(REQUEST, '/request/messages/0/role', new Set(['/request']), { basePointer: '/request', defaultDepth: 1 })!;
    expect(toggled.has('/request')).toBe(false);
  });

  it('returns null for a target outside the value or missing from it', () => {
    expect(revealPointer(REQUEST, '/response/id', new Set(), { basePointer: '/request' })).toBeNull();
    expect(revealPointer(REQUEST, '/request/messages/7', new Set(), { basePointer: '/request' })).toBeNull();
    expect(revealPointer(REQUEST, '/requestX', new Set(), { basePointer: '/request' })).toBeNull();
  });
});

describe('searchTree', () => {
  it('finds keys and scalar values case-insensitively, in document order', () => {
    expect(searchTree(REQUEST, 'ROLE', '/request').pointers).toEqual(['/request/messages/0/role', '/request/messages/1/role']);
    expect(searchTree(REQUEST, 'brief', '/request').pointers).toEqual(['/request/messages/0/content']);
    expect(searchTree(REQUEST, '0.5').pointers).toEqual(['/temperature']);
    expect(searchTree(REQUEST, 'image_url').pointers).toEqual(['/messages/1/content/1/type', '/messages/1/content/1/image_url']);
  });

  it('stops at the limit and says there are more', () => {
    const r = searchTree({ a: Array.from({ length: 50 }, () => 'x') }, 'x', '', 10);
    expect(r.pointers).toHaveLength(10);
    expect(r.more).toBe(true);
    expect(searchTree(REQUEST, '').pointers).toEqual([]);
  });
});
