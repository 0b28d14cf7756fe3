// A rollouts file growing by random appends (whole lines, lines without their newline, bare newlines, cut lines):
// after every change the index lists exactly the lines a reader of the whole file would, where a last line without
// its newline counts once it is a whole JSON object (ingest/rollouts-files.ts, readRolloutsTail), and never twice.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { useDemo } from '../../../support/demo';

const fx = useDemo('callscope-rollouts-tail-');

type Op = { kind: 'line' | 'bare' | 'cut'; cut: number } | { kind: 'nl' };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('line' as const, 'bare' as const, 'cut' as const), cut: fc.integer({ min: 1, max: 40 }) }),
  fc.constant({ kind: 'nl' as const }),
);

/** The keys a reader of the whole file lists: every non-blank line, and a last line without newline once it is an object. */
function expectedKeys(text: string): string[] {
  const parts = text.split('\n');
  const keys: string[] = [];
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (!part.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(part);
    } catch {
      if (!last) keys.push(`line-${i + 1}`);
      return;
    }
    const o = value as { _ng_task_index?: number };
    if (typeof o === 'object' && o !== null && !Array.isArray(o) && typeof o._ng_task_index === 'number') keys.push(`${o._ng_task_index}-0`);
    else if (!last || (typeof o === 'object' && o !== null && !Array.isArray(o))) keys.push(`line-${i + 1}`);
  });
  return keys.sort();
}

describe('a rollouts file growing by random appends', () => {
  it('lists what a reader of the whole file lists after every change, each line once', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const root = path.join(fx.tmp, `tail-${n++}`);
        mkdirSync(root, { recursive: true });
        const file = path.join(root, 'rollouts.jsonl');
        writeFileSync(file, '');
        const index = await CallscopeIndex.open([{ path: root }], path.join(root, '.idx'), { workers: 0 });
        await index.refresh();
        let text = '';
        let t = 0;
        try {
          for (const o of ops) {
            const obj = `{"_ng_task_index":${t++},"_ng_rollout_index":0,"reward":0.5}`;
            const add = o.kind === 'nl' ? '\n' : o.kind === 'line' ? `${obj}\n` : o.kind === 'bare' ? obj : obj.slice(0, o.cut);
            appendFileSync(file, add);
            text += add;
            await index.refreshPaths(new Set([file]));
            const run = index.listRuns()[0];
            const keys = run ? index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 500 })!.rollouts.map((r) => r.key).sort() : [];
            expect(keys, JSON.stringify(text)).toEqual(expectedKeys(text));
          }
        } finally {
          index.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
