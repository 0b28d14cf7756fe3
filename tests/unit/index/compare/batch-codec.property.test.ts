// The compare figures stored per batch (compare_batches) must come back exactly: every sorted value bit for bit,
// whatever the numbers, and in few bytes for the values the spec produces (two-decimal latencies, integer
// token counts), which is what keeps the index within its per-call size budget.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '../../../../lib/index/compare/batch-codec';
import { decodeBatch, encodeBatch, type Batch } from '../../../../lib/index/compare/compare';

const sorted = (xs: number[]) => Float64Array.from(xs).sort();
const roundTrip = (a: Float64Array) => {
  const w = new ByteWriter();
  w.sorted(a);
  const r = new ByteReader(w.bytes());
  const out = r.sorted();
  expect(r.done).toBe(true);
  return { out, bytes: w.bytes().length };
};
const sameBits = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

describe('sorted arrays', () => {
  it('any doubles come back bit for bit', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 200 }), (xs) => {
        const a = sorted(xs);
        expect(sameBits(roundTrip(a).out, a)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('two-decimal values and integers, as the spec writes them, come back exactly in under 3 bytes each', () => {
    const hundredths = fc.integer({ min: -1e6, max: 1e9 }).map((c) => Math.round(c) / 100);
    fc.assert(
      fc.property(fc.array(fc.oneof(hundredths, fc.integer({ min: -1e9, max: 1e9 })), { minLength: 1, maxLength: 300 }), (xs) => {
        const a = sorted(xs);
        const { out } = roundTrip(a);
        expect(sameBits(out, a)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // 10,000 latencies of a batch, 0–60 s in hundredths: deltas are small.
    let seed = 1;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const latencies = sorted(Array.from({ length: 10_000 }, () => Math.round(rand() * 6_000_000) / 100));
    const { out, bytes } = roundTrip(latencies);
    expect(sameBits(out, latencies)).toBe(true);
    expect(bytes / latencies.length).toBeLessThan(3);
  });

  it('huge integers, -0 and infinities keep their exact value', () => {
    for (const xs of [[2 ** 53, 2 ** 60, -(2 ** 53)], [-0, 0, 1], [-Infinity, 0.5, Infinity], [Number.MIN_VALUE, 1e-300, 0.1 + 0.2]]) {
      const a = sorted(xs);
      expect(sameBits(roundTrip(a).out, a)).toBe(true);
    }
  });
});

describe('batches', () => {
  const batch = fc.record({
    servers: fc.array(
      fc.record({
        model_server: fc.option(fc.string(), { nil: null }),
        calls: fc.nat(),
        tokens_in: fc.option(fc.nat(), { nil: null }),
        tokens_out: fc.option(fc.nat(), { nil: null }),
        tokens_reasoning: fc.option(fc.nat(), { nil: null }),
        tokens_total: fc.option(fc.nat(), { nil: null }),
        cached_tokens: fc.option(fc.nat(), { nil: null }),
        errors: fc.nat(),
      }),
      { maxLength: 4 },
    ),
    categories: fc.array(fc.tuple(fc.string(), fc.nat()), { maxLength: 4 }),
    gaps: fc.array(fc.tuple(fc.string(), fc.nat()), { maxLength: 4 }),
    tasks: fc
      .uniqueArray(fc.integer({ min: -5, max: 1e7 }), { maxLength: 30 })
      .chain((ts) =>
        fc.tuple(
          ...ts.sort((a, b) => a - b).map((t) =>
            fc.record({ t: fc.constant(t), n: fc.nat(), tokSum: fc.double({ noNaN: true }), tokN: fc.nat(), rewSum: fc.double({ noNaN: true }), rewN: fc.nat() }),
          ),
        ),
      ),
    latency: fc.array(fc.double({ noNaN: true })).map(sorted),
    ttft: fc.array(fc.double({ noNaN: true })).map(sorted),
    tokens: fc.record({
      tokens_in: fc.array(fc.nat()).map(sorted),
      tokens_out: fc.array(fc.nat()).map(sorted),
      tokens_reasoning: fc.array(fc.nat()).map(sorted),
      tokens_total: fc.array(fc.nat()).map(sorted),
    }),
    reward: fc.array(fc.double({ noNaN: true, min: -10, max: 10 })).map(sorted),
    toolCalls: fc.array(fc.integer({ min: 0, max: 10_000 })).map(sorted),
    toolTime: fc.array(fc.double({ noNaN: true, min: 0, max: 1e9 })).map(sorted),
  });

  it('come back equal, and a batch stored for another batch size is refused', () => {
    fc.assert(
      fc.property(batch, (b) => {
        const data = encodeBatch(b as Batch, 10);
        expect(decodeBatch(data, 10)).toEqual(b);
        expect(() => decodeBatch(data, 11)).toThrow(/batch size/);
        expect(() => decodeBatch(data.subarray(0, data.length - 1), 10)).toThrow();
      }),
      { numRuns: 500 },
    );
  });
});
