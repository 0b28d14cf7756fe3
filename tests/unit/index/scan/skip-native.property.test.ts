// The native structural skip (native/scan.cc skipContainer) against json-skip.ts's own (skippedContainerEndJs): the
// rollouts-file scan and the request skip rely on it ending every container where the JavaScript walk does, and
// declining (-1) exactly where it declines: broken strings and brackets, bytes that cannot occur outside a JSON
// string, nesting at the depth limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skippedContainerEndJs } from '../../../../lib/capture/json-skip';
import { nativeAddon } from '../../../../lib/index/scan/addon';

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

  // The native walk reads 64-byte blocks: escapes and strings carried from one block into the next, a container
  // ending anywhere in a block or in the padded last one, at every alignment of the view.
  it('backslash runs, quotes and brackets across 64-byte blocks', () => {
    const run = fc.oneof(
      fc.nat(9).map((k) => '\\'.repeat(k) + '"'),
      fc.nat(70).map((k) => 'a'.repeat(k)),
      fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', ' ', '7', 'true', '/', '\u0001', 'Y', '_', '\u007f'),
    );
    const long = fc.array(run, { maxLength: 80 }).map((p) => p.join(''));
    fc.assert(
      fc.property(long, fc.nat(63), fc.nat(8), (t, pad, depth) => {
        const b = Buffer.from(' '.repeat(pad) + '[' + t, 'utf8');
        check(b, depth);
        check(b.subarray(pad), depth);
      }),
      { numRuns: 3000 },
    );
  });

  it('strings of every escape parity ending at every position of a block', () => {
    for (let len = 0; len < 130; len++) {
      for (let slashes = 0; slashes < 5; slashes++) {
        const body = 'x'.repeat(len) + '\\'.repeat(slashes);
        check(Buffer.from(`{"k":"${body}"}]"}`), 0);
        check(Buffer.from(`[["${body}"],"${body}"]`), 0);
      }
    }
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
