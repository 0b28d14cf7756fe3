import { describe, expect, it } from 'vitest';
import { flattenTree, type TreeRow } from '../../../lib/view/json-tree';
import { LINE_PX, ROW_PAD_PX, estimateRowHeight, wrappedLines } from '../../../lib/view/json-tree-layout';

const row = (overrides: Partial<TreeRow>): TreeRow => ({ pointer: '/x', depth: 1, key: 'x', type: 'string', size: 0, open: false, text: '', clip: null, ...overrides });

describe('wrappedLines', () => {
  it('counts each newline-separated line, wrapped at the width, an empty line as one', () => {
    expect(wrappedLines('', 10)).toBe(1);
    expect(wrappedLines('0123456789', 10)).toBe(1);
    expect(wrappedLines('0123456789a', 10)).toBe(2);
    expect(wrappedLines('a\nb\n', 10)).toBe(3);
    expect(wrappedLines('0123456789abc\nd', 10)).toBe(3);
  });
});

describe('estimateRowHeight', () => {
  it('gives containers, numbers and short strings one line', () => {
    const rows = flattenTree({ a: 1, b: 'short', c: [true, null] });
    for (const r of rows) expect(estimateRowHeight(r, 1000)).toBe(LINE_PX + ROW_PAD_PX);
  });

  it('wraps long text at the width left beside the key, and more of it in a narrower tree', () => {
    const text = 'word '.repeat(80); // 400 characters
    const wide = estimateRowHeight(row({ text }), 1400);
    const narrow = estimateRowHeight(row({ text }), 600);
    expect(wide).toBeGreaterThanOrEqual(2 * LINE_PX + ROW_PAD_PX);
    expect(narrow).toBeGreaterThan(wide);
    expect(estimateRowHeight(row({ text, depth: 8 }), 600)).toBeGreaterThanOrEqual(narrow);
  });

  it('counts the lines of text with newlines, and leaves room for the expand button of a clipped string', () => {
    expect(estimateRowHeight(row({ text: 'a\nb\nc' }), 1000)).toBe(3 * LINE_PX + ROW_PAD_PX);
    const clipped = row({ text: 'a\nb', clip: { reason: 'long', length: 5000, bytes: 5000, mime: null } });
    expect(estimateRowHeight(clipped, 1000)).toBe(2 * LINE_PX + ROW_PAD_PX + 2);
  });
});
