// Properties of the rollout diff over open-ended inputs: a value diffed with itself is all same; both sides' values
// read back from any diff; the sequence diff and the call alignment keep every element of each side exactly once,
// in order; the byte split of a request finds the items JSON.parse finds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignCalls } from '../../../lib/rollouts/diff-align';
import { diffJson, ignoreVolatile, jsonEqual, type JsonDiff } from '../../../lib/rollouts/diff-json';
import { diffSides, hasChanges } from '../../../lib/rollouts/diff-sides';
import { diffSequences } from '../../../lib/rollouts/diff-sequence';
import { ShapeTable } from '../../../lib/rollouts/diff-shape';
import { extendSplit, splitRequest } from '../../../lib/rollouts/diff-split';

/** JSON values as they come out of a parser (-0 is 0 once written). */
const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

// Conversation-like arrays drawn from a small pool, so that the two sides share items, runs and kinds.
const pool: unknown[] = [
  { role: 'user', type: 'message', content: 'plot it' },
  { role: 'user', type: 'message', content: 'plot it\nplease' },
  { role: 'assistant', type: 'message', content: [{ type: 'output_text', text: 'ok\nthe plot\nis ready' }] },
  { role: 'assistant', type: 'message', content: [{ type: 'output_text', text: 'ok\nthe chart\nis ready' }] },
  { type: 'function_call', call_id: 'c1', name: 'search', arguments: '{"q":"a"}' },
  { type: 'function_call', call_id: 'c2', name: 'plot', arguments: '{"q":"b"}' },
  { type: 'function_call', call_id: 'c9', id: 'fc_9', name: 'plot', arguments: '{"q":"b"}' },
  { type: 'function_call_output', call_id: 'c1', output: 'line 1\nline 2\nline 3' },
  { type: 'function_call_output', call_id: 'c1', output: 'line 1\nline two\nline 3' },
  'a bare string',
  3,
  null,
];
const conversation = fc.array(fc.constantFrom(...pool), { maxLength: 14 });
const request = fc.record({ input: conversation, temperature: fc.constantFrom(1, 0.7), tools: fc.constantFrom([], [{ name: 'search' }]) });

/** Every array and text diff inside covers both sides in order (starts where the previous run ended). */
function runsInOrder(d: JsonDiff): boolean {
  if (d.op === 'object') return d.entries.every((e) => runsInOrder(e.diff));
  if (d.op === 'array' || d.op === 'text') {
    let a = 0;
    let b = 0;
    for (const r of d.runs) {
      const [ra, rb] = d.op === 'array' ? [(r as { a_index: number }).a_index, (r as { b_index: number }).b_index] : [(r as { a_line: number }).a_line, (r as { b_line: number }).b_line];
      if (ra !== a || rb !== b) return false;
      if (r.op !== 'added') a += r.count;
      if (r.op !== 'removed') b += r.count;
      if (r.op === 'changed' && !runsInOrder((r as { diff: JsonDiff }).diff)) return false;
    }
    return d.op === 'text' || (a === d.a_length && b === d.b_length);
  }
  return true;
}

describe('diffJson', () => {
  it('a value diffed with itself (or a copy) is one same node', () => {
    fc.assert(
      fc.property(json, (x) => {
        expect(diffJson(x, structuredClone(x))).toEqual({ op: 'same', value: x });
      }),
    );
  });

  it('reading a diff gives both sides back, and it holds a change exactly when they differ', () => {
    const pairs = fc.oneof(fc.tuple(json, json), fc.tuple(request, request), fc.tuple(conversation, conversation));
    fc.assert(
      fc.property(pairs, ([x, y]) => {
        const d = diffJson(x, y);
        const sides = diffSides(d);
        expect(jsonEqual(sides.a, x) && jsonEqual(sides.b, y)).toBe(true);
        expect(hasChanges(d)).toBe(!jsonEqual(x, y));
        expect(runsInOrder(d)).toBe(true);
        // It is JSON and deterministic: written and read again, and computed again, it is the same.
        expect(JSON.parse(JSON.stringify(d))).toEqual(d);
        expect(diffJson(x, y)).toEqual(d);
        // Folding what differs only in ids keeps both sides too, and tells the two kinds of change apart.
        const folded = diffJson(x, y, ignoreVolatile);
        const back = diffSides(folded);
        expect(jsonEqual(back.a, x) && jsonEqual(back.b, y)).toBe(true);
        expect(hasChanges(folded)).toBe(!jsonEqual(x, y));
        expect(hasChanges(folded, ignoreVolatile)).toBe(!jsonEqual(x, y, ignoreVolatile));
        expect(runsInOrder(folded)).toBe(true);
      }),
    );
  });

  it('long strings: the line runs join back to each side', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '', 'a b'), { maxLength: 20 }).map((ls) => ls.join('\n'));
    fc.assert(
      fc.property(text, text, (x, y) => {
        const d = diffJson(x, y);
        expect(diffSides(d)).toEqual({ a: x, b: y });
      }),
    );
  });
});

describe('diffSequences', () => {
  it('covers both sides in order, and its same runs are equal', () => {
    const seq = fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 30 });
    fc.assert(
      fc.property(seq, seq, fc.constantFrom(2, 8, 2000), (x, y, maxEdits) => {
        const runs = diffSequences(x.length, y.length, (i, j) => x[i] === y[j], maxEdits);
        let a = 0;
        let b = 0;
        for (const r of runs) {
          expect([r.a, r.b]).toEqual([a, b]);
          if (r.op === 'same') for (let k = 0; k < r.count; k++) expect(x[r.a + k]).toBe(y[r.b + k]);
          if (r.op !== 'added') a += r.count;
          if (r.op !== 'removed') b += r.count;
        }
        expect([a, b]).toEqual([x.length, y.length]);
      }),
    );
  });
});

describe('alignCalls', () => {
  it('keeps every call exactly once on each side, in order, and pairs only calls of one server', () => {
    const calls = fc.array(fc.record({ server: fc.constantFrom('policy', 'judge', null), signature: fc.constantFrom('user>', 'tool>search', 'tool>plot', 'tool>') }), { maxLength: 25 });
    fc.assert(
      fc.property(calls, calls, (a, b) => {
        const pairs = alignCalls(a, b);
        const as = pairs.map((p) => p.a).filter((x): x is number => x !== null);
        const bs = pairs.map((p) => p.b).filter((x): x is number => x !== null);
        expect(as).toEqual(a.map((_, i) => i));
        expect(bs).toEqual(b.map((_, i) => i));
        for (const p of pairs) {
          expect(p.a !== null || p.b !== null).toBe(true);
          if (p.a !== null && p.b !== null) expect(a[p.a].server).toBe(b[p.b].server);
        }
        // Identical sides pair every call with itself.
        expect(alignCalls(a, a)).toEqual(a.map((_, i) => ({ a: i, b: i })));
      }),
    );
  });
});

describe('splitRequest', () => {
  it('finds the items JSON.parse finds, however the request is spaced', () => {
    const items = fc.array(json, { maxLength: 8 });
    fc.assert(
      fc.property(items, json, fc.constantFrom(undefined, 2, '\t'), (input, other, space) => {
        const text = JSON.stringify({ model: other, input, tail: other }, null, space);
        const split = splitRequest(Buffer.from(text), 'responses');
        expect(split).not.toBeNull();
        const bytes = Buffer.from(text);
        expect(split!.items.map(([s, e]) => JSON.parse(bytes.toString('utf8', s, e)))).toEqual(input);
      }),
    );
  });
});

describe('extendSplit and shapeRollout', () => {
  // A conversation that grows call by call, now and then rewritten (a compaction) or sent with other settings.
  const step = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), items: fc.array(fc.constantFrom(...pool), { maxLength: 3 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewrite' as const), items: fc.array(fc.constantFrom(...pool), { maxLength: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('settings' as const), items: fc.constant([] as unknown[]) }) },
  );
  const requests = fc.array(step, { minLength: 1, maxLength: 12 }).map((steps) => {
    let input: unknown[] = [];
    let temperature = 1;
    return steps.map((s) => {
      if (s.kind === 'append') input = [...input, ...s.items];
      else if (s.kind === 'rewrite') input = s.items;
      else temperature = temperature === 1 ? 0.5 : 1;
      return Buffer.from(JSON.stringify({ model: 'm', input, temperature, tools: [{ name: 'search' }] }));
    });
  });

  it('a request that grows its predecessor splits as a fresh walk splits it', () => {
    fc.assert(
      fc.property(requests, (bufs) => {
        for (let i = 1; i < bufs.length; i++) {
          const prev = splitRequest(bufs[i - 1], 'responses')!;
          const grown = extendSplit(prev, bufs[i]);
          const fresh = splitRequest(bufs[i], 'responses')!;
          if (grown) {
            expect(grown.split.list).toEqual(fresh.list);
            expect(grown.split.items).toEqual(fresh.items);
            expect(grown.resent).toBe(prev.items.length);
          }
        }
      }),
    );
  });

  it('two rollouts of the same requests get the same ids, and equal items equal ids, whatever was reused', () => {
    fc.assert(
      fc.property(requests, (bufs) => {
        const table = new ShapeTable();
        const payloads = bufs.map((request) => ({ request, response: null, dialect: 'responses' }));
        const x = table.shapeRollout(payloads, payloads.map(() => 'policy'));
        // The same requests, each read alone (no predecessor to reuse): the same shapes.
        const y = payloads.map((p) => table.shapeRollout([p], ['policy'])[0]);
        expect(x).toEqual(y);
        x.forEach((shape, i) => {
          const items = JSON.parse(bufs[i].toString()).input as unknown[];
          expect(shape.items!.map((id) => table.value(id))).toEqual(items);
        });
      }),
    );
  });
});
