// The height a payload tree row will take before it is laid out, so that the virtualized tree can place its
// rows and size its scroll area from the first render and measure the real heights after the first paint
// (measuring while mounting forced a layout per render and re-rendered the tree two or three times before
// anything showed). Rows are monospace lines of `LINE_PX`; a scalar's text wraps at the width left beside its
// key and breaks at its own newlines. The estimate only has to be close: measured heights replace it.
import type { TreeRow } from './json-tree';

/** One line of `text-xs leading-5` plus the row's 1 px padding above and below. */
export const LINE_PX = 20;
export const ROW_PAD_PX = 2;
/** The "expand" button of a clipped string is 2 px taller than the line it sits on. */
const BUTTON_PX = 2;
/** Width of one character of the 12 px monospace font, and of the fixed parts of a row. */
const CHAR_PX = 7.25;
const INDENT_PX = 16;
const FIXED_PX = 4 + 14 + 3 * 4 + 8 + 48; // left pad, toggle, gaps, right pad, copy actions

/** How many lines `text` takes at `perLine` characters a line, honouring its newlines. */
export function wrappedLines(text: string, perLine: number): number {
  let lines = 0;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const len = (end < 0 ? text.length : end) - start;
    lines += Math.max(1, Math.ceil(len / perLine));
    if (end < 0) return lines;
    start = end + 1;
  }
}

/** The estimated height in px of `row` in a tree `widthPx` wide. */
export function estimateRowHeight(row: TreeRow, widthPx: number): number {
  if (row.type !== 'string') return LINE_PX + ROW_PAD_PX;
  const keyChars = row.key === null ? 0 : String(row.key).length + 1;
  const perLine = Math.max(8, Math.floor((widthPx - FIXED_PX - row.depth * INDENT_PX) / CHAR_PX) - keyChars);
  // The quotes and, for a clipped string, the ellipsis and the button ("expand · base64 image/png · 1.2 MB").
  const suffix = row.clip ? 32 : 2;
  return wrappedLines(row.text + ' '.repeat(suffix), perLine) * LINE_PX + ROW_PAD_PX + (row.clip ? BUTTON_PX : 0);
}
