// The canonical-body fast path (lib/capture/canonical.ts) must never change a line: whatever it accepts is
// exactly what the slow path (Python json.loads, then orjson.dumps) writes for those bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCanonicalJsonObject } from '../../../lib/capture/canonical';
import { isJsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { formatFloat, serialize } from '../../../lib/capture/json-serialize';
import { serializeExchange } from '../../../lib/capture/store';
import { CallObservation } from '../../../lib/proxy/observe';

/** What the slow path writes for a body, or null when the body is not a JSON object or cannot be written. */
function slowPath(bytes: Buffer): string | null {
  let value;
  try {
    value = parsePython(bytes);
  } catch {
    return null;
  }
  if (!isJsonObject(value)) return null;
  try {
    return serialize(value);
  } catch {
    return null;
  }
}

const fastPathHolds = (bytes: Buffer) => !isCanonicalJsonObject(bytes) || slowPath(bytes) === bytes.toString('utf8');

// JSON text with every spelling a client might send: canonical and not.
const ws = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ');
const floatText = fc.oneof(
  fc.double().map((n) => formatFloat(n)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(n)),
  fc.constantFrom('1.0', '1.50', '1e5', '1E5', '1e+5', '1.0e-7', '1e-7', '1e16', '0.00001', '-0.0', '-0', '100.0', '1e400', '-1e400', '0.1', '2.5e-300', 'NaN', 'Infinity', '-Infinity'),
);
const intText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom('0', '-0', '9007199254740993', '999999999999999', '-99999999999999', '18446744073709551615', '18446744073709551616'),
);
const rawString = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '/', '<', '"', '\\', '\n', '\t', '\b', '\f', '\r', '\u0000', '\u001f', '\u007f', 'é', '東', '😀', '\u2028', '\ud800', '\udc00'), maxLength: 8 });
const stringText = fc.oneof(
  rawString.map((s) => JSON.stringify(s)),
  rawString.map((s) => `"${s.replace(/["\\]/g, '')}"`), // unescaped: raw control characters

  fc.constantFrom('"\\/"', '"\\u00e9"', '"\\u001F"', '"\\u001f"', '"\\u000a"', '"\\u0008"', '"\\ud83d\\ude00"', '"\\ud800"', '"a\\u0000b"', '"\\x"', '"unterminated'),
);
const keyText = fc.oneof(fc.constantFrom('"a"', '"b"', '"0"', '"1"', '"__proto__"', '"\\u0061"', '"é"'), stringText);

const textWith = (ws: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      floatText,
      intText,
      stringText,
      fc.constantFrom('true', 'false', 'null'),
      tie('array'),
      tie('object'),
    ),
    array: fc.tuple(fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4 }), ws).map(([items, w]) => `[${w}${items.map(([a, v, b]) => a + v + b).join(',')}]`),
    object: fc
      .tuple(fc.array(fc.tuple(ws, keyText, ws, ws, tie('value'), ws), { maxLength: 5 }), ws)
      .map(([entries, w]) => `{${w}${entries.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`),
  })).object as fc.Arbitrary<string>;
// Compact text (as JSON.stringify writes it) reaches the fast path often; spaced text tests the refusals.
const compactText = textWith(fc.constant(''));
const jsonText = fc.oneof(compactText, textWith(ws));

describe('canonical bodies: the fast path equals the slow path', () => {
  it('property: any JSON text the fast path accepts is exactly what the slow path writes', () => {
    fc.assert(
      fc.property(ws, jsonText, ws, (a, text, b) => fastPathHolds(Buffer.from(a + text + b, 'utf8'))),
      { numRuns: 5000 },
    );
  });

  it('the generators reach the fast path (so that the properties above can fail)', () => {
    const accepted = fc.sample(compactText, { numRuns: 1000, seed: 42 }).filter((t) => isCanonicalJsonObject(Buffer.from(t, 'utf8'))).length;
    expect(accepted).toBeGreaterThan(100);
  });

  it('property: the slow path output of any object is accepted (unless it holds an integer of 16+ characters)', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        const out = slowPath(Buffer.from(text, 'utf8'));
        fc.pre(out !== null && !/(^|[^\d.eE+-])-?\d{15,}(?![\d.eE])/.test(out));
        expect(isCanonicalJsonObject(Buffer.from(out!, 'utf8'))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: arbitrary bytes never pass unless the slow path agrees', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => fastPathHolds(Buffer.concat([Buffer.from('{"k":'), Buffer.from(bytes), Buffer.from('}')]))),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['{"model":"gpt","messages":[{"role":"user","content":"Zürich 東京 \\"q\\" \\n"}],"temperature":1.0,"n":1,"stop":null}', true],
    ['{}', true],
    ['{"a":-0.0,"b":1e16,"c":1e-7,"d":0.00001,"e":"\\u001f","f":"/<\u2028\u007f"}', true],
    ['{"a":"x\ny"}', false],
    ['{"a":"\u0000"}', false], // a raw NUL
    ['{"a":1.50}', false],
    ['{"a":1e5}', false],
    ['{"a":-0}', false],
    ['{"a":NaN}', false],
    ['{"a":1,"a":2}', false],
    ['{"a":{"b":1,"c":2,"b":3}}', false],
    ['{ "a":1}', false],
    ['{"a":1} ', false],
    ['{"a":"\\/"}', false],
    ['{"a":"\\u00e9"}', false],
    ['{"a":"\\u001F"}', false],
    ['{"a":"\\u000a"}', false],
    ['{"a":123456789012345678}', false],
    ['[1]', false],
    ['\ufeff{}', false],
  ])('%s: fast path %s', (text, accepted) => {
    const bytes = Buffer.from(text, 'utf8');
    expect(isCanonicalJsonObject(bytes)).toBe(accepted);
    expect(fastPathHolds(bytes)).toBe(true);
  });

  it('nesting deeper than the serializer allows is left to the slow path', () => {
    const deep = (n: number) => Buffer.from('{"a":' + '['.repeat(n) + ']'.repeat(n) + '}');
    expect(isCanonicalJsonObject(deep(100))).toBe(true);
    expect(isCanonicalJsonObject(deep(300))).toBe(false);
    expect(slowPath(deep(300))).toBeNull();
  });
});

describe('the line of an observed call is the same with and without the fast path', () => {
  const observe = (request: Buffer, response: Buffer, contentType: string) => {
    const o = new CallObservation('chat', 'policy_model');
    o.addRequestChunk(request);
    o.head(200, ['content-type', contentType]);
    if (response.length) o.chunk(response);
    return o;
  };

  it('a request prepared early still gets the chunks that came after its preparation', async () => {
    const o = new CallObservation('chat', null);
    o.addRequestChunk(Buffer.from('{"a":'));
    o.requestComplete();
    await new Promise((r) => setImmediate(r));
    o.addRequestChunk(Buffer.from('1.0}'));
    o.head(200, ['content-type', 'application/json']);
    o.chunk(Buffer.from('{"ok": true}'));
    const line = (await o.line()).toString();
    expect(line).toBe(serializeExchange(await o.exchange()).toString());
    expect(line).toContain('"request":{"a":1.0},"response":{"ok":true}}');
  });

  it('property: line() equals serializeExchange(exchange()) for JSON and non-JSON bodies', async () => {
    const body = fc.oneof(jsonText, jsonText.map((t) => ` ${t}`), fc.constantFrom('', 'not json', '[1,2]', '{"a":1,"a":2}'));
    await fc.assert(
      fc.asyncProperty(body, body, fc.constantFrom('application/json', 'text/event-stream'), fc.boolean(), async (req, resp, type, early) => {
        const o = observe(Buffer.from(req), Buffer.from(resp), type);
        if (early) o.requestComplete();
        let expected: string;
        try {
          expected = serializeExchange(await o.exchange()).toString('hex');
        } catch (error) {
          await expect(o.line()).rejects.toThrow((error as Error).message);
          return;
        }
        expect((await o.line()).toString('hex')).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
