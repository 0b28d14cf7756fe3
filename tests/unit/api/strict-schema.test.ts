// The strict form the end-to-end suite parses answers with (tests/support/strict-schema.ts): objects at any depth
// refuse keys they do not list, through arrays, nullables, optionals, unions, records, pipes and z.lazy, while
// checks, defaults and transforms still apply and objects that declare a catchall keep it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonDiffSchema } from '../../../lib/api/diff-schemas';
import { RunsResponseSchema } from '../../../lib/api/schemas';
import { strictSchema } from '../../support/strict-schema';

describe('strictSchema', () => {
  const inner = z.object({ a: z.number().min(0) });
  const schema = z.object({
    list: z.array(inner),
    maybe: inner.nullable().optional(),
    either: z.union([inner, z.object({ b: z.string() })]),
    byKey: z.record(z.string(), inner),
    piped: z.string().transform((s) => ({ a: s.length })).pipe(inner),
    loose: z.object({ a: z.number() }).catchall(z.unknown()),
    dflt: z.number().default(7),
  });
  const ok = { list: [{ a: 1 }], maybe: null, either: { b: 'x' }, byKey: { k: { a: 2 } }, piped: 'abc', loose: { a: 1, more: true } };

  it('accepts what the schema lists, with its transforms and defaults', () => {
    expect(strictSchema(schema).parse(ok)).toEqual({ ...ok, piped: { a: 3 }, dflt: 7 });
  });

  it('refuses an unlisted key at any depth, keeps checks, and leaves the schema itself alone', () => {
    const strict = strictSchema(schema);
    for (const bad of [
      { ...ok, extra: 1 },
      { ...ok, list: [{ a: 1, extra: 1 }] },
      { ...ok, maybe: { a: 1, extra: 1 } },
      { ...ok, either: { b: 'x', extra: 1 } },
      { ...ok, byKey: { k: { a: 2, extra: 1 } } },
      { ...ok, list: [{ a: -1 }] },
      { ...ok, list: [{}] },
    ]) expect(strict.safeParse(bad).success).toBe(false);
    expect(schema.safeParse({ ...ok, extra: 1 }).success).toBe(true);
  });

  it('goes through z.lazy: a structural diff with an unlisted key deep inside fails', () => {
    const diff = { op: 'object', entries: [{ key: 'x', diff: { op: 'array', a_length: 1, b_length: 1, runs: [{ op: 'changed', a_index: 0, b_index: 0, count: 1, diff: { op: 'same', value: 1 } }] } }] };
    const strict = strictSchema(JsonDiffSchema);
    expect(strict.safeParse(diff).success).toBe(true);
    const deep = structuredClone(diff);
    (deep.entries[0].diff.runs[0].diff as Record<string, unknown>).extra = 1;
    expect(strict.safeParse(deep).success).toBe(false);
    expect(JsonDiffSchema.safeParse(deep).success).toBe(true);
  });

  it('is the same strict schema each time (cached), so recursion and repeated parts are walked once', () => {
    expect(strictSchema(RunsResponseSchema)).toBe(strictSchema(RunsResponseSchema));
  });
});
