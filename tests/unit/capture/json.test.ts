import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { JsonFloat, keysOf, type JsonValue } from '../../../lib/capture/json-value';
import { parsePython, parseStrict } from '../../../lib/capture/json-parse';
import { formatFloat, serialize } from '../../../lib/capture/json-serialize';

describe('§1.6 line serialization (orjson)', () => {
  it('whole floats keep their decimal point; ints stay ints', () => {
    expect(serialize(parseStrict('[1.0,1,842.0,100,-0.0,0]'))).toBe('[1.0,1,842.0,100,-0.0,0]');
  });

  it("whole floats another copy of the module parsed keep theirs too (serve's index, a Next route's serialize)", async () => {
    vi.resetModules();
    const other = await import('../../../lib/capture/json-parse');
    const value = other.parseStrict('{"latency_ttft_ms":537.0,"n":[1.0,2]}');
    expect((value as { latency_ttft_ms: unknown }).latency_ttft_ms).not.toBeInstanceOf(JsonFloat);
    expect(serialize(value)).toBe('{"latency_ttft_ms":537.0,"n":[1.0,2]}');
  });

  it.each([
    [1e16, '1e16'],
    [1e-7, '1e-7'],
    [1.2345678901234568e16, '1.2345678901234568e16'],
    [0.00001, '0.00001'],
    [1e-6, '1e-6'],
    [1786032153.4107, '1786032153.4107'],
    [614.73, '614.73'],
    [1e15, '1000000000000000.0'],
    [123.456e-10, '1.23456e-8'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e308'],
    [-2.5e20, '-2.5e20'],
  ])('float %d is written %s', (n, text) => {
    expect(formatFloat(n)).toBe(text);
  });

  it('NaN and Infinity (accepted by Python json) are written as null', () => {
    expect(serialize(parsePython('[NaN, Infinity, -Infinity, 1e400]'))).toBe('[null,null,null,null]');
  });

  it('20-digit integers stay exact; beyond 64 bits serialization fails', () => {
    expect(serialize(parsePython('[18446744073709551615,-9223372036854775808,12345678901234567890]'))).toBe(
      '[18446744073709551615,-9223372036854775808,12345678901234567890]',
    );
    expect(() => serialize(parsePython('[18446744073709551616]'))).toThrow(/64-bit/);
  });

  it('lone surrogates make serialization fail', () => {
    expect(() => serialize(parsePython('{"s":"\\ud800"}'))).toThrow(/surrogates/);
    expect(serialize(parsePython('{"s":"\\ud83d\\ude00"}'))).toBe('{"s":"😀"}');
  });

  it('escapes control characters as orjson does; non-ASCII, /, <, U+2028 and DEL raw', () => {
    const v = parsePython('"\\n\\r\\t\\b\\f\\u0001\\u001f / < \\u2028 \\u007f caf\\u00e9 東京 \\""');
    expect(serialize(v)).toBe('"\\n\\r\\t\\b\\f\\u0001\\u001f / < \u2028 \u007f café 東京 \\""');
  });

  it('compact output with keys in insertion order, including array-index-like keys', () => {
    const v = parsePython('{ "b" : 1 , "10": 2, "a": [ ], "2": {"z":1,"0":2} }');
    expect(serialize(v)).toBe('{"b":1,"10":2,"a":[],"2":{"z":1,"0":2}}');
    expect(keysOf(v as never)).toEqual(['b', '10', 'a', '2']);
  });

  it('duplicate keys: the last value wins at the first position', () => {
    expect(serialize(parsePython('{"a":1,"b":2,"a":3}'))).toBe('{"a":3,"b":2}');
  });

  it('__proto__ is an own key, never a prototype', () => {
    const v = parseStrict('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((v as { polluted?: unknown }).polluted).toBeUndefined();
    expect(serialize(v as never)).toBe('{"__proto__":{"polluted":true},"x":1}');
  });
});

describe('parsing: Python json.loads vs orjson.loads', () => {
  it('Python mode detects UTF-8 BOM and UTF-16/32; strict mode refuses a BOM', () => {
    const body = '{"a":"é"}';
    expect(parsePython(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]))).toEqual({ a: 'é' });
    expect(parsePython(Buffer.from('\ufeff' + body, 'utf16le'))).toEqual({ a: 'é' });
    expect(parsePython(Buffer.from(body, 'utf16le'))).toEqual({ a: 'é' });
    expect(() => parseStrict(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]))).toThrow();
  });

  it('invalid UTF-8 is refused by both', () => {
    const bad = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
    expect(() => parsePython(bad)).toThrow(/UTF-8/);
    expect(() => parseStrict(bad)).toThrow(/UTF-8/);
  });

  it('NaN/Infinity literals only in Python mode', () => {
    expect(() => parseStrict('[NaN]')).toThrow();
    expect(() => parseStrict('[Infinity]')).toThrow();
    expect((parsePython('[-Infinity]') as JsonFloat[])[0].value).toBe(-Infinity);
  });

  it.each(['', ' ', '{', '[1,]', '{"a":1,}', '01', '1.', '.5', '-', 'tru', '"\\x"', '"a\nb"', '[1] 2', "{'a':1}", '+1'])(
    'refuses %j',
    (text) => {
      expect(() => parsePython(text)).toThrow();
      expect(() => parseStrict(text)).toThrow();
    },
  );

  it('refuses nesting past the depth limits instead of overflowing the stack', () => {
    expect(() => parseStrict('['.repeat(2000) + ']'.repeat(2000))).toThrow(/depth/);
    expect(parseStrict('['.repeat(500) + ']'.repeat(500))).toBeTruthy();
    expect(() => serialize(parseStrict('['.repeat(300) + ']'.repeat(300)))).toThrow(/Recursion/);
  });

  it('a float whose value is integral keeps being a float', () => {
    const v = parseStrict('{"a":5.0,"b":5,"c":5e0,"d":5.5}') as Record<string, JsonValue>;
    expect(v.a).toBeInstanceOf(JsonFloat);
    expect(v.b).toBe(5);
    expect(v.c).toBeInstanceOf(JsonFloat);
    expect(v.d).toBe(5.5);
  });
});

describe('property: exact round trips', () => {
  const floatText = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => formatFloat(n));
  const intText = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).map(String);
  const value: fc.Arbitrary<string> = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      floatText,
      intText,
      fc.string({ unit: 'grapheme' }).map((s) => JSON.stringify(s)),
      fc.constantFrom('true', 'false', 'null'),
      fc.array(tie('v'), { maxLength: 4 }).map((a) => `[${a.join(',')}]`),
      fc.uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), tie('v')), { maxLength: 4, selector: (p) => p[0] }).map(
        (ps) => `{${ps.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`,
      ),
    ),
  })).v;

  it('orjson-shaped text parses and serializes back byte for byte', () => {
    fc.assert(
      fc.property(value, (text) => {
        expect(serialize(parseStrict(text))).toBe(text);
        expect(serialize(parsePython(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('every double formats to text that parses back to the same double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const back = parseStrict(formatFloat(n));
        expect(Object.is(Number(back as never), n) || (n === 0 && Number(back as never) === 0)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('whitespace and escapes are normalized the same whatever the input layout', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
        const pretty = JSON.stringify(v, null, 2);
        const compact = JSON.stringify(v);
        const attempt = (text: string) => {
          try {
            return serialize(parsePython(text));
          } catch (err) {
            return (err as Error).message; // e.g. an integer beyond 64 bits fails both ways
          }
        };
        expect(attempt(pretty)).toBe(attempt(compact));
      }),
      { numRuns: 300 },
    );
  });
});
