// What the diff page writes of a diff: signed deltas with their units, signatures in words, which lines of a line
// diff are folded, and how long the history two requests share is.
import { describe, expect, it } from 'vitest';
import { diffJson, ignoreVolatile, type JsonDiff } from '../../../lib/rollouts/diff-json';
import { diffHref, sharedHistory, shownLines, signatureText, signedCount, signedMs } from '../../../lib/view/diff';

describe('deltas and signatures', () => {
  it('signs b − a, with unknown as a dash, never 0', () => {
    expect([signedCount(1504), signedCount(-12), signedCount(0), signedCount(null)]).toEqual(['+1,504', '\u221212', '±0', '—']);
    expect([signedMs(1504), signedMs(-400), signedMs(0), signedMs(null)]).toEqual(['+1.50 s', '\u2212400 ms', '±0 ms', '—']);
  });

  it('says what a call answered and asked for', () => {
    expect(signatureText('system,user>search')).toBe('after system, user → search');
    expect(signatureText('tool,tool>')).toBe('after tool, tool → answer');
    expect(signatureText(null)).toBe('—');
  });

  it('addresses a diff with both rollouts and the open pair', () => {
    expect(diffHref('run a/0-1', 'r/0-0', 3)).toBe('/diff?a=run%20a%2F0-1&b=r%2F0-0&pair=3');
  });
});

describe('shownLines', () => {
  const lines = (n: number, p = 'l') => Array.from({ length: n }, (_, i) => `${p}${i}`);

  it('folds a long unchanged run between changes, keeping three lines of context each side', () => {
    const d = diffJson([...lines(10), 'x'].join('\n'), [...lines(10), 'y'].join('\n')) as Extract<JsonDiff, { op: 'text' }>;
    const rows = shownLines(d.runs);
    // Before the first change no lines are kept before the fold, three after it.
    expect(rows[0]).toEqual({ kind: 'fold', run: 0, count: 7, aLine: 0, bLine: 0 });
    expect(rows[1]).toMatchObject({ kind: 'lines', op: 'same', lines: ['l7', 'l8', 'l9'] });
    expect(rows.slice(2).map((r) => r.kind === 'lines' && r.lines)).toEqual([['x'], ['y']]);
    expect(shownLines(d.runs, 3, new Set([0]))[0]).toMatchObject({ kind: 'lines', lines: lines(10) });
  });

  it('a short unchanged run stays shown', () => {
    const d = diffJson('a\nb\nc', 'a\nB\nc') as Extract<JsonDiff, { op: 'text' }>;
    expect(shownLines(d.runs).every((r) => r.kind === 'lines')).toBe(true);
  });
});

describe('sharedHistory', () => {
  const msg = (t: string, id = 'x') => ({ type: 'message', role: 'user', content: t, id });
  it('the leading unchanged run of the conversation, and whether ids differ in it', () => {
    const a = { input: [msg('a'), msg('b'), msg('c')], model: 'm' };
    expect(sharedHistory(diffJson(a, { input: [msg('a'), msg('b'), msg('d')], model: 'm' }, ignoreVolatile))).toEqual({ items: 2, exact: true, all: false });
    expect(sharedHistory(diffJson(a, { input: [msg('a', 'y'), msg('b'), msg('c')], model: 'm' }, ignoreVolatile))).toEqual({ items: 3, exact: false, all: true });
    expect(sharedHistory(diffJson(a, structuredClone(a), ignoreVolatile))).toEqual({ items: 3, exact: true, all: true });
    expect(sharedHistory(diffJson(a, { input: [msg('z')], model: 'm' }, ignoreVolatile))).toEqual({ items: 0, exact: true, all: false });
    expect(sharedHistory(diffJson({ x: 1 }, { x: 2 }))).toBeNull();
  });
});
