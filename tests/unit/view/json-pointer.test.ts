import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ancestorPointers, childPointer, encodePointer, hashFromPointer, parsePointer, pointerFromHash, resolvePointer } from '../../../lib/view/json-pointer';

// The examples of RFC 6901 §5.
const deepEq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const DOC = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };

describe('parsePointer / resolvePointer', () => {
  it('resolves every example of RFC 6901 §5', () => {
    const cases: [string, unknown][] = [
      ['', DOC],
      ['/foo', ['bar', 'baz']],
      ['/foo/0', 'bar'],
      ['/', 0],
      ['/a~1b', 1],
      ['/c%d', 2],
      ['/e^f', 3],
      ['/g|h', 4],
      ['/i\\j', 5],
      ['/k"l', 6],
      ['/ ', 7],
      ['/m~0n', 8],
    ];
    for (const [p, v] of cases) expect(resolvePointer(DOC, parsePointer(p))).toEqual({ found: true, value: v });
  });

  it('decodes ~01 as "~1", not "/" (order of unescaping)', () => {
    expect(parsePointer('/~01')).toEqual(['~1']);
  });

  it('rejects pointers that break the grammar', () => {
    expect(() => parsePointer('foo')).toThrow();
    expect(() => parsePointer('/a~2')).toThrow();
    expect(() => parsePointer('/a~')).toThrow();
  });

  it('reports how far a missing node matched; array indices must be canonical and in range', () => {
    expect(resolvePointer(DOC, parsePointer('/foo/2'))).toEqual({ found: false, depth: 1 });
    expect(resolvePointer(DOC, parsePointer('/foo/01'))).toEqual({ found: false, depth: 1 });
    expect(resolvePointer(DOC, parsePointer('/foo/-'))).toEqual({ found: false, depth: 1 });
    expect(resolvePointer(DOC, parsePointer('/nope/x'))).toEqual({ found: false, depth: 0 });
    expect(resolvePointer({ a: 1 }, parsePointer('/a/b'))).toEqual({ found: false, depth: 1 });
  });

  it('does not walk into the prototype', () => {
    expect(resolvePointer({}, parsePointer('/constructor')).found).toBe(false);
    expect(resolvePointer({}, parsePointer('/__proto__')).found).toBe(false);
  });
});

describe('encodePointer and helpers', () => {
  it('round-trips any list of tokens', () => {
    fc.assert(fc.property(fc.array(fc.string()), (tokens) => deepEq(parsePointer(encodePointer(tokens)), tokens)));
  });

  it('builds child pointers and lists ancestors outermost first', () => {
    expect(childPointer('/request', 'a/b~c')).toBe('/request/a~1b~0c');
    expect(childPointer('', 3)).toBe('/3');
    expect(ancestorPointers('/request/messages/3/content')).toEqual(['', '/request', '/request/messages', '/request/messages/3']);
    expect(ancestorPointers('/a')).toEqual(['']);
    expect(ancestorPointers('')).toEqual([]);
  });
});

describe('URL fragments', () => {
  it('reads a percent-encoded fragment (RFC 6901 §6)', () => {
    expect(pointerFromHash('#/request/messages/3/content')).toBe('/request/messages/3/content');
    expect(pointerFromHash('#/c%25d')).toBe('/c%d');
    expect(pointerFromHash('#/a%20b')).toBe('/a b');
  });

  it('ignores fragments that are not pointers', () => {
    expect(pointerFromHash('')).toBeNull();
    expect(pointerFromHash('#top')).toBeNull();
    expect(pointerFromHash('#/bad%zz')).toBeNull();
    expect(pointerFromHash('#/a~2')).toBeNull();
  });

  it('round-trips any pointer through a fragment, which never contains a raw "#" or space', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1 }), (tokens) => {
        const p = encodePointer(tokens);
        const hash = hashFromPointer(p);
        expect(hash.slice(1)).not.toMatch(/[# ]/);
        expect(pointerFromHash(hash)).toBe(p);
      }),
    );
  });
});
