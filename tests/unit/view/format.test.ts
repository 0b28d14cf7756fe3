import { describe, expect, it } from 'vitest';
import { formatCompact, formatCount, groupDigits } from '../../../lib/view/format';

describe('groupDigits', () => {
  it('writes integers as toLocaleString("en-US") does', () => {
    for (const n of [0, 7, 12, 999, 1000, 1234, 99_999, 100_000, 1_234_567, 30_000, -1, -999, -1000, -1_234_567, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('leaves fractions, -0 and huge values to Intl', () => {
    for (const n of [1234.5678, -0.5, -0, 1e21, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY]) expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
  });

  it('backs formatCount and formatCompact, with unknown as a dash', () => {
    expect(formatCount(30000)).toBe('30,000');
    expect(formatCount(null)).toBe('—');
    expect(formatCompact(9999)).toBe('9,999');
    expect(formatCompact(12_345)).toBe('12.3k');
  });
});
