import { describe, expect, it } from 'vitest';
import { Kept } from '../../../../lib/index/clickhouse/kept';

describe('Kept: what a ClickHouse reader keeps per run version', () => {
  it('answers only at the version a value was kept at', () => {
    const k = new Kept<string>();
    k.set('run', 5, 'totals at 5');
    expect(k.get('run', 5)).toBe('totals at 5');
    expect(k.get('run', 6)).toBeUndefined();
    expect(k.has('run')).toBe(true);
    k.set('run', 6, 'totals at 6');
    expect(k.get('run', 5)).toBeUndefined();
    expect(k.get('run', 6)).toBe('totals at 6');
  });

  it('drops the key kept longest beyond its cap; a key set again counts as new', () => {
    const k = new Kept<number>(2);
    k.set('a', 1, 1);
    k.set('b', 1, 2);
    k.set('a', 2, 3); // a is now the newest
    k.set('c', 1, 4);
    expect(k.has('b')).toBe(false);
    expect(k.get('a', 2)).toBe(3);
    expect(k.get('c', 1)).toBe(4);
  });

  it('forgets a failed read only while it is still the one kept', () => {
    const k = new Kept<object>();
    const first = {};
    const second = {};
    k.set('run', 1, first);
    k.set('run', 2, second);
    k.forget('run', first);
    expect(k.get('run', 2)).toBe(second);
    k.forget('run', second);
    expect(k.has('run')).toBe(false);
  });
});
