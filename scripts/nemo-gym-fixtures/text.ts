// Made-up text for the NeMo Gym fixtures: prose, policies, source files and diffs of a size asked for, from a
// seeded Rng, so that each fixture line can be as large as the real line it stands for without copying it.
import type { Rng } from '../../lib/demo/random';

const SUBJECTS = ['The handler', 'Each request', 'The parser', 'A retry', 'The cache', 'This module', 'The agent', 'Every order', 'The scheduler', 'A customer'];
const VERBS = ['checks', 'keeps', 'reads', 'updates', 'returns', 'records', 'skips', 'waits for', 'compares', 'rebuilds'];
const OBJECTS = ['the pending items', 'its own copy of the state', 'the last known value', 'every field it was given', 'the order total', 'one line per event', 'the shipping address', 'the previous result', 'the payment method', 'the open tickets'];
const TAILS = ['before it answers.', 'when the input changes.', 'and nothing else.', 'exactly once.', 'unless the user asks otherwise.', 'in the order they arrived.', 'for the current session only.', 'after the check passes.'];

export function sentence(rng: Rng): string {
  return `${rng.pick(SUBJECTS)} ${rng.pick(VERBS)} ${rng.pick(OBJECTS)} ${rng.pick(TAILS)}`;
}

/** Sentences up to about `chars` characters, in paragraphs separated by a blank line. */
export function prose(rng: Rng, chars: number): string {
  const out: string[] = [];
  let size = 0;
  let paragraph: string[] = [];
  while (size < chars) {
    const s = sentence(rng);
    paragraph.push(s);
    size += s.length + 1;
    if (paragraph.length >= rng.int(3, 6)) {
      out.push(paragraph.join(' '));
      paragraph = [];
    }
  }
  if (paragraph.length) out.push(paragraph.join(' '));
  return out.join('\n\n');
}

/** A markdown policy document of about `chars` characters: headings, rules as bullets. */
export function policy(rng: Rng, title: string, sections: string[], chars: number): string {
  const perSection = Math.max(200, Math.floor(chars / sections.length));
  const parts = [`# ${title}`, ''];
  for (const heading of sections) {
    parts.push(`## ${heading}`, '');
    let size = 0;
    while (size < perSection) {
      const rule = `- ${sentence(rng)}`;
      parts.push(rule);
      size += rule.length + 1;
    }
    parts.push('');
  }
  return parts.join('\n');
}

const PY_LINES = [
  (n: string) => `def ${n}(left, right):`,
  (n: string) => `    """Return the ${n} of two operands."""`,
  () => `    if left is None or right is None:`,
  () => `        raise ValueError("both operands are required")`,
  (n: string) => `    result = _combine(left, right, op="${n}")`,
  () => `    return result`,
  () => ``,
  (n: string) => `class ${n[0].toUpperCase()}${n.slice(1)}Node(Node):`,
  () => `    __slots__ = ("children", "weight")`,
  () => `    def __init__(self, *children, weight=1.0):`,
  () => `        self.children = list(children)`,
  () => `        self.weight = weight`,
  () => ``,
];
const NAMES = ['join', 'merge', 'stack', 'split', 'scale', 'shift', 'blend', 'fold', 'chain', 'nest'];

/** `cat -n`-style numbered lines of a made-up Python file (as a coding agent's Read tool returns them). */
export function numberedSource(rng: Rng, lines: number, header: string): string {
  const out = [`1\t# ${header}`];
  for (let i = 2; i <= lines; i++) out.push(`${i}\t${rng.pick(PY_LINES)(rng.pick(NAMES))}`);
  return out.join('\n') + '\n';
}

/** A unified diff of `hunks` small hunks in `file`. */
export function diff(rng: Rng, file: string, hunks: number): string {
  const out = [`diff --git a/${file} b/${file}`, `index ${rng.hex(7)}..${rng.hex(7)} 100644`, `--- a/${file}`, `+++ b/${file}`];
  let at = rng.int(10, 40);
  for (let h = 0; h < hunks; h++) {
    const name = rng.pick(NAMES);
    out.push(`@@ -${at},7 +${at},7 @@ def _${name}(left, right):`);
    out.push(`     if left is None or right is None:`, `         raise ValueError("both operands are required")`);
    out.push(`-    result = _combine(left, right, op="${name}")`, `+    result = _combine(left, right, op="${name}", copy=True)`);
    out.push(`     return result`, ` `, ` `);
    at += rng.int(20, 60);
  }
  return out.join('\n') + '\n';
}
