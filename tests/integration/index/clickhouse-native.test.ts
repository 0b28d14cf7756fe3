// Rows written as Native blocks (lib/index/clickhouse/native.ts) read back from the real engine (npm chdb) as they
// were: every type the index's tables use, nulls, strings of any length and script (the length prefix is a varint),
// integers up to 2^53 either side of zero, LowCardinality columns (sent as their plain type).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { openClient, parseClickhouseUrl } from '../../../lib/index/clickhouse/connection';
import { nativeTypeOf, type NativeColumn } from '../../../lib/index/clickhouse/native';
import { concatRanges, ENCODED_CALL_COLUMNS, encodeCalls, type CallRange } from '../../../lib/index/clickhouse/call-columns';
import { CALL, CALL_WIDTH } from '../../../lib/index/call-row';
import { encodeBlocks, NativeInserter } from '../../../lib/index/clickhouse/native-insert';
import { nativeColumns } from '../../../lib/index/clickhouse/schema';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-clickhouse-native-'));
const target = parseClickhouseUrl(`chdb:${path.join(tmp, 'chdb')}`);
let client: ClickHouseClient;
let inserter: NativeInserter;

const TABLE: [string, string][] = [
  ['i', 'Int64'], ['ni', 'Nullable(Int64)'], ['u64', 'UInt64'], ['u32', 'UInt32'], ['u8', 'UInt8'], ['f', 'Float64'],
  ['nf', 'Nullable(Float64)'], ['s', 'String'], ['ns', 'Nullable(String)'], ['lc', 'LowCardinality(String)'], ['nlc', 'LowCardinality(Nullable(String))'],
];
const COLUMNS: NativeColumn[] = TABLE.map(([name, type]) => ({ name, type: nativeTypeOf(type) }));

beforeAll(async () => {
  client = await openClient(target);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${target.database}` });
  inserter = new NativeInserter(client, target);
});
afterAll(async () => {
  inserter?.close();
  await client?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * The rows written as one insert and read back: in `cuts` parts (a block each), and with `reversed` stored reversed
 * after a slot of junk, each column taken from its index in the row.
 */
async function roundTrip(rows: unknown[][], { cuts = [], reversed = false }: { cuts?: number[]; reversed?: boolean } = {}): Promise<unknown[][]> {
  await client.command({ query: `DROP TABLE IF EXISTS ${target.database}.t` });
  await client.command({ query: `CREATE TABLE ${target.database}.t (n UInt32, ${TABLE.map(([c, t]) => `${c} ${t}`).join(', ')}) ENGINE = MergeTree ORDER BY n` });
  const numbered = rows.map((r, n) => [n, ...r]);
  const width = TABLE.length + 1;
  const stored = reversed ? numbered.map((r) => [{ junk: true }, ...[...r].reverse()]) : numbered;
  const layout = reversed ? Array.from({ length: width }, (_, c) => width - c) : undefined;
  const ends = [0, ...cuts.map((c) => c % (rows.length + 1)).sort((a, b) => a - b), rows.length];
  await inserter.insert('t', [{ name: 'n', type: 'UInt32' }, ...COLUMNS], ends.slice(1).map((end, k) => stored.slice(ends[k], end)), layout);
  // One insert, so one part, however many blocks it carried.
  const parts = await client.query({ query: `SELECT count() FROM system.parts WHERE database = '${target.database}' AND table = 't' AND active`, format: 'JSONCompactEachRow' });
  expect(await parts.json()).toEqual([[1]]);
  const rs = await client.query({ query: `SELECT ${TABLE.map(([c]) => c).join(', ')} FROM ${target.database}.t ORDER BY n`, format: 'JSONCompactEachRow' });
  return rs.json<unknown[]>();
}

/** -0 may come back as 0 (or as -0) through JSON; every other value as it went in. */
const zero = (r: unknown[]) => r.map((v) => (v === 0 ? 0 : v));

const SAFE = Number.MAX_SAFE_INTEGER;
const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 3 }), fc.constantFrom('', 'a'.repeat(42), 'é'.repeat(43), 'x'.repeat(300)));
const row = fc.tuple(
  fc.integer({ min: -SAFE, max: SAFE }),
  fc.option(fc.integer({ min: -SAFE, max: SAFE })),
  fc.integer({ min: 0, max: SAFE }),
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  fc.integer({ min: 0, max: 255 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
  text,
  fc.option(text),
  text,
  fc.option(text),
);

describe('Native blocks', () => {
  it('read back from the engine as they were written, for every type the tables use, in one insert of one or more blocks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 3 }), async (rows, cuts) => {
        const back = await roundTrip(rows, { cuts });
        expect(back.map(zero)).toEqual(rows.map(zero));
      }),
      { numRuns: 30 },
    );
  });

  it('writes a null in a column that is not Nullable as its default, and an integer column truncates a fraction toward zero', async () => {
    const back = await roundTrip([[null, null, null, null, null, null, null, null, null, null, null], [-2.7, 3.5, 7.9, 1.2, 2.9, 0.5, null, 's', null, 'l', null]]);
    expect(back).toEqual([
      [0, null, 0, 0, 0, 0, null, '', null, '', null],
      [-2, 3, 7, 1, 2, 0.5, null, 's', null, 'l', null],
    ]);
  });

  it('leaves no spool file behind, and refuses a type it cannot write by name', async () => {
    await roundTrip([[1, 1, 1, 1, 1, 1, 1, 'a', 'b', 'c', 'd']]);
    expect(readdirSync(`${path.join(tmp, 'chdb')}.inserts-${process.pid}`)).toEqual([]);
    expect(() => nativeTypeOf('Array(String)')).toThrow(/Array\(String\)/);
    expect(() => encodeBlocks([{ name: 'x', type: 'Date' as never }], [[[1]]])).toThrow(/Date/);
  });

  it('takes each column from its index in the row when given one, and writes a run of equal values as the first', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(row, fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 12 }), async (runs) => {
        // Each row repeated: consecutive equal values in every column.
        const rows = runs.flatMap(([r, times]) => Array.from({ length: times }, () => r));
        expect((await roundTrip(rows, { reversed: true })).map(zero)).toEqual(rows.map(zero));
      }),
      { numRuns: 20 },
    );
    expect(() => encodeBlocks(COLUMNS, [[[1]]], [0])).toThrow(/11 columns given 1 indices/);
  });

  it('writes calls encoded by the workers (call-columns.ts) cut into ranges and joined, beside number columns given whole, as their values', async () => {
    const value = (type: string) =>
      type === 'Int64' ? fc.integer({ min: 0, max: 2 ** 31 }) : type === 'Nullable(Int64)' ? fc.option(fc.integer({ min: -SAFE, max: SAFE })) : type === 'Nullable(Float64)' ? fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })) : fc.option(text);
    const call = fc.tuple(...ENCODED_CALL_COLUMNS.map((c) => value(c.type)));
    // Jobs of calls (each encoded on its own, as a worker does), then ranges of them in order (a flush's rollouts).
    const jobs = fc.array(fc.array(call, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(jobs, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }), async (calls, picks) => {
        const encoded = calls.map((job) => {
          const flat: unknown[] = [];
          for (const c of job) {
            const row: unknown[] = new Array(CALL_WIDTH).fill(0);
            ENCODED_CALL_COLUMNS.forEach((col, k) => (row[CALL[col.name]] = c[k]));
            flat.push(...row);
          }
          // As a worker gives them: each file's calls a list of its own (a file read with none among them).
          const cut = CALL_WIDTH * Math.ceil(job.length / 2);
          return encodeCalls([flat.slice(0, cut), [], flat.slice(cut)]);
        });
        const ranges: CallRange[] = picks.map(([j, a, b]) => {
          const job = j % calls.length;
          const [from, to] = [a % (calls[job].length + 1), b % (calls[job].length + 1)].sort((x, y) => x - y);
          return { calls: encoded[job], from, count: to - from };
        });
        const want = ranges.flatMap((r, k) => calls[encoded.indexOf(r.calls)].slice(r.from, r.from + r.count).map((c) => [k, ...c]));
        const joined = concatRanges(ranges);
        const n = want.length;
        await client.command({ query: `DROP TABLE IF EXISTS ${target.database}.c` });
        await client.command({ query: `CREATE TABLE ${target.database}.c (n UInt32, piece Int64, ${ENCODED_CALL_COLUMNS.map((c) => `${c.name} ${c.type}`).join(', ')}) ENGINE = MergeTree ORDER BY n` });
        const columns: NativeColumn[] = [{ name: 'n', type: 'UInt32' }, { name: 'piece', type: 'Int64' }, ...ENCODED_CALL_COLUMNS];
        const pieceOf = new Float64Array(ranges.flatMap((r, k) => Array<number>(r.count).fill(k)));
        const rows = { n, column: (c: number) => (c === 0 ? (r: number) => r : c === 1 ? { numbers: pieceOf, nulls: null } : joined[c - 2]) };
        await inserter.insert('c', columns, [rows]);
        const rs = await client.query({ query: `SELECT piece, ${ENCODED_CALL_COLUMNS.map((c) => c.name).join(', ')} FROM ${target.database}.c ORDER BY n`, format: 'JSONCompactEachRow' });
        expect((await rs.json<unknown[]>()).map(zero)).toEqual(want.map(zero));
      }),
      { numRuns: 25 },
    );
  });

  it("knows every column the index's tables write", () => {
    // The calls table: its key, the run's columns and every mirrored column, each with a type a block can carry.
    const cols = nativeColumns('calls', ['key', 'run', 'run_month', 'rollout_pk', 'model_call_id', 'started_at', 'model', 'version', 'deleted']);
    expect(cols.map((c) => c.type)).toEqual(['String', 'String', 'UInt32', 'Int64', 'Nullable(String)', 'Nullable(Float64)', 'Nullable(String)', 'UInt64', 'UInt8']);
    expect(() => nativeColumns('calls', ['no_such_column'])).toThrow(/no_such_column/);
  });
});
