// What the diff page shows of a rollout diff (lib/rollouts/diff.ts), prepared without React: its addresses, signed
// deltas with units, a call signature in words, and which lines of a line diff are shown and which folded.
import type { PairSummary } from '../rollouts/diff';
import type { JsonDiff, TextRun } from '../rollouts/diff-json';
import { DASH, formatMs, groupDigits } from './format';

export const diffHref = (a: string, b: string, pair?: number) =>
  `/diff?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}${pair === undefined ? '' : `&pair=${pair}`}`;
export const diffApiHref = (a: string, b: string, pair?: number) => `/api${diffHref(a, b, pair)}`;

const MINUS = '\u2212';

/** b − a as a count with its sign: +1,504, −12, ±0; a dash when unknown. */
export function signedCount(n: number | null): string {
  if (n === null) return DASH;
  if (n === 0) return '±0';
  return n > 0 ? `+${groupDigits(n)}` : `${MINUS}${groupDigits(-n)}`;
}

/** b − a as a duration with its sign: +1.50 s, −400 ms, ±0 ms; a dash when unknown. */
export function signedMs(n: number | null): string {
  if (n === null) return DASH;
  if (n === 0) return '±0 ms';
  return n > 0 ? `+${formatMs(n)}` : `${MINUS}${formatMs(-n)}`;
}

/** A call signature ("tool,tool>search,plot") in words: what the request ended with, what the response asked for. */
export function signatureText(signature: string | null): string {
  if (signature === null) return DASH;
  const at = signature.indexOf('>');
  const roles = signature.slice(0, at);
  const tools = signature.slice(at + 1);
  return `${roles ? `after ${roles.split(',').join(', ')}` : 'no input'} → ${tools ? tools.split(',').join(', ') : 'answer'}`;
}

export const STATE_TEXT: Record<PairSummary['state'], string> = {
  same: 'same',
  different: 'differs',
  unknown: 'no payload',
  a_only: 'a only',
  b_only: 'b only',
};

export type ShownLines =
  | { kind: 'lines'; op: TextRun['op']; aLine: number; bLine: number; lines: string[] }
  | { kind: 'fold'; run: number; count: number; aLine: number; bLine: number };

/**
 * The rows of a line diff: changed lines all shown; an unchanged run longer than twice `context` folded to its
 * length, with `context` lines kept on each side of it (none before the first change or after the last).
 */
export function shownLines(runs: readonly TextRun[], context = 3, open: ReadonlySet<number> = new Set()): ShownLines[] {
  const out: ShownLines[] = [];
  runs.forEach((r, i) => {
    const lead = i === 0 ? 0 : context;
    const trail = i === runs.length - 1 ? 0 : context;
    if (r.op !== 'same' || open.has(i) || r.count <= lead + trail + 1) {
      out.push({ kind: 'lines', op: r.op, aLine: r.a_line, bLine: r.b_line, lines: r.lines });
      return;
    }
    if (lead) out.push({ kind: 'lines', op: 'same', aLine: r.a_line, bLine: r.b_line, lines: r.lines.slice(0, lead) });
    const folded = r.count - lead - trail;
    out.push({ kind: 'fold', run: i, count: folded, aLine: r.a_line + lead, bLine: r.b_line + lead });
    if (trail) out.push({ kind: 'lines', op: 'same', aLine: r.a_line + r.count - trail, bLine: r.b_line + r.count - trail, lines: r.lines.slice(r.count - trail) });
  });
  return out;
}

/**
 * The history two requests share: the leading unchanged run of their conversation list (`input` or `messages`), how
 * long it is, and whether its items are byte for byte the same or only but for ids; null when there is no list.
 */
export function sharedHistory(d: JsonDiff): { items: number; exact: boolean; all: boolean } | null {
  const listOf = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? ((v as Record<string, unknown>).input ?? (v as Record<string, unknown>).messages) : undefined);
  if (d.op === 'same') {
    const list = listOf(d.value);
    return Array.isArray(list) ? { items: list.length, exact: true, all: true } : null;
  }
  if (d.op !== 'object') return null;
  const entry = d.entries.find((e) => e.key === 'input' || e.key === 'messages');
  if (!entry) return null;
  const list = entry.diff;
  if (list.op === 'same') return Array.isArray(list.value) ? { items: list.value.length, exact: true, all: false } : null;
  if (list.op !== 'array') return null;
  const first = list.runs[0];
  const all = list.runs.length === 1 && d.entries.every((e) => e === entry || e.diff.op === 'same');
  return first?.op === 'same' ? { items: first.count, exact: !first.b_values, all } : { items: 0, exact: true, all: false };
}
