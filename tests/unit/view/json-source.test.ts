// Payload numbers shown as written: `1.0` stays `1.0` and a 20-digit integer keeps its digits, in the tree's rows,
// its search, a copied value and the indented raw line; numbers JavaScript prints the same way are untouched.
import { describe, expect, it } from 'vitest';
import { indentKeepingNumbers, numberText, parseKeepingNumbers, stringifyKeepingNumbers } from '../../../lib/view/json-source';
import { flattenTree, searchTree } from '../../../lib/view/json-tree';

const TEXT = '{"temperature":1.0,"seed":12345678901234567891,"eps":1e-07,"neg":-0,"n":42,"p":0.5,"list":[2.50,3],"s":"1.0"}';
const texts = (value: unknown) => Object.fromEntries(flattenTree(value, { basePointer: '/request' }).map((r) => [r.pointer, r.text]));

describe('parseKeepingNumbers', () => {
  it('the tree shows each number as its payload wrote it', () => {
    const rows = texts(parseKeepingNumbers(TEXT));
    expect(rows).toMatchObject({
      '/request/temperature': '1.0',
      '/request/seed': '12345678901234567891',
      '/request/eps': '1e-07',
      '/request/neg': '-0',
      '/request/n': '42',
      '/request/p': '0.5',
      '/request/list/0': '2.50',
      '/request/list/1': '3',
      '/request/s': '1.0',
    });
    // JSON.parse alone would have shown these.
    expect(texts(JSON.parse(TEXT))).toMatchObject({ '/request/temperature': '1', '/request/seed': '12345678901234567000', '/request/eps': '1e-7', '/request/list/0': '2.5' });
  });

  it('search, a copied number and a copied subtree use the written form', () => {
    const v = parseKeepingNumbers(TEXT) as Record<string, unknown>;
    expect(searchTree(v, '12345678901234567891', '/request').pointers).toEqual(['/request/seed']);
    expect(searchTree(v, '2.50', '/request').pointers).toEqual(['/request/list/0']);
    expect(numberText(v, 'seed', v.seed as number)).toBe('12345678901234567891');
    expect(JSON.parse(JSON.stringify(stringifyKeepingNumbers(v)))).toBe(
      '{\n  "temperature": 1.0,\n  "seed": 12345678901234567891,\n  "eps": 1e-07,\n  "neg": -0,\n  "n": 42,\n  "p": 0.5,\n  "list": [\n    2.50,\n    3\n  ],\n  "s": "1.0"\n}',
    );
  });

  it('over 1 MB, only an integer JavaScript cannot hold makes it keep the written forms (a reviver costs up to 12× the parse)', () => {
    const pad = 'x'.repeat(1 << 20);
    expect(texts(parseKeepingNumbers(`{"pad":"${pad}","t":1.0}`))['/request/t']).toBe('1');
    const rows = texts(parseKeepingNumbers(`{"pad":"${pad}","t":1.0,"id":98765432109876543210}`));
    expect([rows['/request/t'], rows['/request/id']]).toEqual(['1.0', '98765432109876543210']);
  });

  it('a value parsed without it prints as JavaScript prints it', () => {
    expect(numberText({ a: 1 }, 'a', 1)).toBe('1');
    expect(numberText(null, null, 2.5)).toBe('2.5');
  });
});

describe('indentKeepingNumbers', () => {
  it('indents a stored line with every number as stored; a damaged line is not JSON', () => {
    expect(indentKeepingNumbers('{"a":1.0,"b":[12345678901234567891]}')).toEqual({ text: '{\n  "a": 1.0,\n  "b": [\n    12345678901234567891\n  ]\n}', exact: true });
    expect(indentKeepingNumbers('{"a":1.0,')).toBeNull();
  });
});
