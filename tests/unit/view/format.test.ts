import { format } from 'date-fns';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cn } from '../../../components/ui/cn';
import { formatClock, formatCompact, formatCount, formatMs, formatReward, formatWhen, formatZone, groupDigits } from '../../../lib/view/format';

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

describe('formatClock', () => {
  const dates = [new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)), new Date(1786000000123)];
  const patterns = ['yyyy-MM-dd HH:mm:ss', 'yyyy-MM-dd HH:mm:ss.SSS', 'MM-dd HH:mm:ss'];

  it("writes the viewer's local time as date-fns' format does", () => {
    for (const d of dates) for (const p of patterns) expect(formatClock(d, p)).toBe(format(d, p));
  });

  it('writes UTC wall-clock time on request', () => {
    expect(formatClock(dates[0], 'yyyy-MM-dd HH:mm:ss.SSS', 'utc')).toBe('2026-01-02 03:04:05.006');
    expect(formatClock(dates[1], 'MM-dd HH:mm:ss', 'utc')).toBe('12-31 23:59:59');
  });
});

describe('formatWhen and formatZone', () => {
  const now = new Date(Date.UTC(2026, 5, 1));
  it('puts the year in front of a pattern without one when the time is not in this year', () => {
    expect(formatWhen(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), 'MM-dd HH:mm:ss', 'utc', now)).toBe('01-02 03:04:05');
    expect(formatWhen(new Date(Date.UTC(2025, 11, 31, 23, 59, 59)), 'MM-dd HH:mm:ss', 'utc', now)).toBe('2025-12-31 23:59:59');
    expect(formatWhen(new Date(Date.UTC(2026, 0, 2)), 'yyyy-MM-dd', 'utc', now)).toBe('2026-01-02');
    expect(formatWhen(new Date(Date.UTC(2025, 11, 31, 23, 59, 59)), 'MM-dd HH:mm:ss', 'utc', null)).toBe('12-31 23:59:59');
    const local = new Date(2024, 1, 3, 4, 5, 6);
    expect(formatWhen(local, 'MM-dd HH:mm', 'local', new Date(2026, 0, 1))).toBe('2024-02-03 04:05');
  });

  it('names the zone as an offset from UTC', () => {
    const d = new Date(Date.UTC(2026, 0, 2));
    expect(formatZone(d, 'utc')).toBe('UTC');
    const east = -d.getTimezoneOffset();
    const expected = east === 0 ? 'UTC' : `UTC${east > 0 ? '+' : '−'}${Math.floor(Math.abs(east) / 60)}${Math.abs(east) % 60 ? `:${String(Math.abs(east) % 60).padStart(2, '0')}` : ''}`;
    expect(formatZone(d)).toBe(expected);
  });
});

describe('formatReward', () => {
  it('writes every reward with three decimals, integers too, so that a column lines up', () => {
    expect([0, 1, 0.48, 0.123456, -0.5, 12].map(formatReward)).toEqual(['0.000', '1.000', '0.480', '0.123', '-0.500', '12.000']);
    expect(formatReward(null)).toBe('—');
  });
});

describe('cn', () => {
  it('lets later classes override earlier ones, and returns a single class string as it is', () => {
    expect(cn('px-1 py-0.5 text-muted', 'px-2')).toBe('py-0.5 text-muted px-2');
    expect(cn('px-1 text-muted', false, 'text-good')).toBe('px-1 text-good');
    expect(cn('rounded-lg border border-line', undefined)).toBe('rounded-lg border border-line');
  });
});

describe('formatMs', () => {
  it('writes durations as people do, past an hour and a day too', () => {
    const cases: [number, string][] = [
      [0.5, '0.50 ms'], [850, '850 ms'], [999.6, '1.00 s'], [12_400, '12.4 s'], [59_960, '1 min 00 s'], [185_000, '3 min 05 s'],
      [3_599_600, '1 h 00 min 00 s'], [23_272_000, '6 h 27 min 52 s'], [86_400_000, '1 d 00 h 00 min'], [183_000_000, '2 d 02 h 50 min'], [-1500, '-1.50 s'],
    ];
    for (const [ms, text] of cases) expect(formatMs(ms), String(ms)).toBe(text);
    expect(formatMs(null)).toBe('—');
    expect(formatMs(Number.NaN)).toBe('—');
  });

  it('never writes 60 seconds or 60 minutes (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e10, noNaN: true }), (ms) => {
        expect(formatMs(ms)).not.toMatch(/(^|\D)60 (s|min)|1000 ms/);
      }),
    );
  });
});
