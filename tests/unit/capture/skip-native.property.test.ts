// The native structural skip (native/scan.cc skipContainer) against json.ts's own (skippedContainerEndJs): the
// rollouts-file scan and the request skip rely on it ending every container where the JavaScript walk does, and
// declining (-1) exactly where it declines: broken strings and brackets, bytes that cannot occur outside a JSON
// string, nesting at the depth limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skippedContainerEndJs } from '../../../lib/capture/json';
import { nativeAddon } from '../../../lib/util/native-addon';

const native = nativeAddon();

function check(b: Buffer, depth: number): void {
  expect(native, 'the native addon is built (npm install)').not.toBeNull();
  for (let i = 0; i < b.length; i++) {
    if (b[i] !== 0x7b && b[i] !== 0x5b) continue;
    expect(native!.skipContainer(b, i, depth), `at ${i}, depth ${depth}: ${b.toString('latin1').slice(0, 200)}`).toBe(skippedContainerEndJs(b, i, depth));
  }
}

const piece = fc.constantFrom(
  '{', '}', '[', ']', '"', '\\', '\\"', '\\\\', ',', ':', ' ', '\n', '1', '-2.5e3', 'true', 'null', 'NaN', 'x', '\u0000', '\u00ff', 'é', '"a\\"b"',
  '"key":', '{"a":[1,{"b":"}"}]}', '"\\\\"', 'Infinity',
);
const text = fc.array(piece, { maxLength: 60 }).map((p) => p.join(''));
const json = fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v));

describe('native skipContainer = skippedContainerEndJs', () => {
  it('random structural text', () => {
    fc.assert(fc.property(text, fc.nat(520), (t, depth) => check(Buffer.from(t, 'utf8'), depth)), { numRuns: 3000 });
  });

  it('JSON values, whole and cut short', () => {
    fc.assert(
      fc.property(json, fc.nat(), fc.nat(8), (t, cut, depth) => {
        const b = Buffer.from(t, 'utf8');
        check(b, depth);
        check(b.subarray(0, cut % (b.length + 1)), depth);
      }),
      { numRuns: 2000 },
    );
  });

  it('nesting around the depth limit', () => {
    for (const levels of [1, 100, 511, 512, 513, 600]) {
      for (const depth of [0, 1, 2, 511, 512]) check(Buffer.from('['.repeat(levels) + '"x"' + ']'.repeat(levels)), depth);
    }
  });

  it('inside a larger buffer (a view at an offset)', () => {
    const whole = Buffer.from('xx{"a":[1,2,"]"]}yy');
    const view = whole.subarray(2, 17);
    expect(native!.skipContainer(view, 0, 1)).toBe(15);
    expect(skippedContainerEndJs(view, 0, 1)).toBe(15);
  });
});
