// R5 quick tier: random sequences of appends, partial lines, truncation, deletion and re-creation of capture
// files; after each step the index's view of every rollout equals what the tolerant reader reads from disk.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, promises as fsp, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAttachment, collectCapture } from '../../../../lib/capture/attachment';
import type { JsonObject } from '../../../../lib/capture/json-value';
import { serialize } from '../../../../lib/capture/json-serialize';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { runTotals } from '../../../../lib/index/queries/rollouts';
import { line, makeExchange } from '../../../support/exchange';
import { reportFigure, scaled } from '../../../support/reliability';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-r5-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Op =
  | { kind: 'append'; file: number; n: number }
  | { kind: 'partial'; file: number; cut: number }
  | { kind: 'complete'; file: number }
  | { kind: 'junk'; file: number }
  | { kind: 'truncate'; file: number; keep: number }
  | { kind: 'delete'; file: number }
  | { kind: 'marker'; file: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), file: fc.nat(2), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('partial' as const), file: fc.nat(2), cut: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('complete' as const), file: fc.nat(2) }),
  fc.record({ kind: fc.constant('junk' as const), file: fc.nat(2) }),
  fc.record({ kind: fc.constant('truncate' as const), file: fc.nat(2), keep: fc.nat(400) }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.nat(2) }),
  fc.record({ kind: fc.constant('marker' as const), file: fc.nat(2) }),
);

describe('R5: the index converges to the files', () => {
  it('after any sequence of file operations', async () => {
    let seq = 0;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const root = path.join(tmp, `s${seq++}`);
        const captures = path.join(root, 'run', 'captures');
        mkdirSync(captures, { recursive: true });
        const files = [0, 1, 2].map((i) => path.join(captures, `${i}-0.capture.jsonl`));
        writeFileSync(files[0], line(makeExchange({ model_call_id: 'seed' })));
        const index = await CallscopeIndex.open([{ path: root }], path.join(root, '.idx'));
        await index.refresh();
        const pending = new Map<number, string>();
        let counter = 0;
        try {
          for (const o of ops) {
            const f = files[o.file];
            if (o.kind === 'append') for (let k = 0; k < o.n; k++) appendFileSync(f, line(makeExchange({ model_call_id: `c${counter++}` })));
            if (o.kind === 'partial' && !pending.has(o.file)) {
              const text = line(makeExchange({ model_call_id: `p${counter++}` }));
              appendFileSync(f, text.slice(0, o.cut));
              pending.set(o.file, text.slice(o.cut));
            }
            if (o.kind === 'complete' && pending.has(o.file)) {
              if (existsSync(f)) appendFileSync(f, pending.get(o.file)!);
              pending.delete(o.file);
            }
            if (o.kind === 'junk') appendFileSync(f, '{"broken\n');
            if (o.kind === 'truncate' && existsSync(f)) {
              truncateSync(f, Math.min(o.keep, (await fsp.stat(f)).size));
              pending.delete(o.file);
            }
            if (o.kind === 'delete') {
              rmSync(f, { force: true });
              pending.delete(o.file);
            }
            if (o.kind === 'marker') writeFileSync(path.join(captures, `${o.file}-0.capture.incomplete`), '');
            await index.refreshPaths(new Set([f, path.join(captures, `${o.file}-0.capture.incomplete`)]));
            steps++;
            // The run's totals (kept per batch, dropped for the batches a change touches) equal a scan of its rows.
            expect(index.listRuns()[0].totals).toEqual(runTotals(index.db, index.runSource('run')!.no));
            for (let i = 0; i < 3; i++) {
              const id = `${i}-0`;
              const detail = await index.rolloutDetail('run', id);
              // An unterminated tail (a partial append, or a cut left by truncation) is pending for a follower:
              // the index must equal the tolerant reader over the file without it.
              const expected = buildAttachment(id, existsSync(files[i]) ? await withoutTail(files[i], captures, id) : await collectCapture([captures], id, false), false);
              if (!detail) {
                expect(existsSync(files[i]) || existsSync(path.join(captures, `${id}.capture.incomplete`))).toBe(false);
                continue;
              }
              expect(serialize(detail.capture as JsonObject)).toBe(serialize(expected));
            }
          }
        } finally {
          index.close();
        }
      }),
      { numRuns: scaled(100) },
    );
    reportFigure('R5', `${seq} random sequences (${steps} file operations: appends, partial lines, junk, truncation, deletion, markers), the index equal to the tolerant reader after each: 0 divergences`, { sequences: seq, operations: steps, divergences: 0 });
  }, scaled(1) * 120_000);
});

async function withoutTail(file: string, dir: string, id: string) {
  const bytes = await fsp.readFile(file);
  const cut = bytes.lastIndexOf(10) + 1;
  const copy = path.join(dir, '..', 'tail-free');
  mkdirSync(copy, { recursive: true });
  await fsp.writeFile(path.join(copy, `${id}.capture.jsonl`), bytes.subarray(0, cut));
  if (existsSync(path.join(dir, `${id}.capture.incomplete`))) await fsp.writeFile(path.join(copy, `${id}.capture.incomplete`), '');
  else await fsp.rm(path.join(copy, `${id}.capture.incomplete`), { force: true });
  return collectCapture([copy], id, false);
}
