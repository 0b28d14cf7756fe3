// The benchmarks' statistics (scripts/bench/stats.ts): nearest-rank percentiles, as every report in reports/ and the
// README's tables were computed. Values worked by hand: rank = ceil(q * n), the rank-th smallest sample.
import { describe, expect, it } from 'vitest';
import { median, pct, round, shortSummary, summary } from '../../../scripts/bench/stats';

const oneToTen = [7, 3, 10, 1, 5, 9, 2, 8, 6, 4];

describe('pct (nearest rank)', () => {
  it('takes the ceil(q·n)-th smallest sample, never interpolating', () => {
    expect(pct(oneToTen, 0.5)).toBe(5); // rank 5
    expect(pct(oneToTen, 0.9)).toBe(9); // rank 9
    expect(pct(oneToTen, 0.95)).toBe(10); // rank ceil(9.5) = 10
    expect(pct(oneToTen, 0.11)).toBe(2); // rank ceil(1.1) = 2
    expect(pct(oneToTen, 0.1)).toBe(1); // rank 1
    expect(pct(oneToTen, 0)).toBe(1); // rank 0 clamps to the smallest
    expect(pct(oneToTen, 1)).toBe(10);
  });

  it('gives the 19th of 20 as p95 and the 95th of 100, not the maximum', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(pct(twenty, 0.95)).toBe(190);
    expect(pct(twenty, 0.99)).toBe(200); // rank ceil(19.8) = 20
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(pct(hundred, 0.95)).toBe(95);
    expect(pct(hundred, 0.99)).toBe(99);
  });

  it('sorts numerically and leaves its input as it was', () => {
    const xs = [10, 9, 100, 1];
    expect(pct(xs, 0.75)).toBe(10); // sorted 1, 9, 10, 100; rank 3 (a string sort would give 100)
    expect(xs).toEqual([10, 9, 100, 1]);
  });

  it('is NaN for an empty sample and the sample itself for one value', () => {
    expect(pct([], 0.5)).toBeNaN();
    expect(pct([42], 0.01)).toBe(42);
    expect(pct([42], 0.99)).toBe(42);
  });
});

describe('median', () => {
  it('is the lower middle value of an even count (T2 compares medians of two runs this way)', () => {
    expect(median([4, 1, 3, 2])).toBe(2);
    expect(median([2000, 1000])).toBe(1000);
    expect(median([3, 1, 2])).toBe(2);
  });
});

describe('round', () => {
  it('rounds to 3 decimals by default, half up, and passes non-finite values', () => {
    expect(round(1.23456)).toBe(1.235);
    expect(round(1.23456, 1)).toBe(1.2);
    expect(round(2.5, 0)).toBe(3);
    expect(round(-2.5, 0)).toBe(-2);
    expect(round(NaN)).toBeNaN();
    expect(round(Infinity)).toBe(Infinity);
  });
});

describe('summary and shortSummary', () => {
  it('summarise with the report keys, rounded to 3 decimals', () => {
    expect(summary([2.5, 1.23456, 3])).toEqual({ n: 3, p50: 2.5, p95: 3, p99: 3, max: 3, mean: 2.245 }); // mean 6.73456 / 3
    expect(shortSummary([2.5, 1.23456, 3, 0.5])).toEqual({ n: 4, p50: 1.235, p99: 3, max: 3 });
    expect(Object.keys(shortSummary([1]))).toEqual(['n', 'p50', 'p99', 'max']);
  });

  it('write an empty sample as nulls in a report', () => {
    expect(JSON.parse(JSON.stringify(summary([])))).toEqual({ n: 0, p50: null, p95: null, p99: null, max: null, mean: null });
    expect(JSON.parse(JSON.stringify(shortSummary([])))).toEqual({ n: 0, p50: null, p99: null, max: null });
  });
});
