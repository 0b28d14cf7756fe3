// A call row's columns are written once (lib/index/call-row.ts): the calls table, the INSERT, the row's places
// (callValues) and the native scan's slots derive from that table. Users rely on each value landing in its own
// column (a swap would show one call's tokens as its latency), and on index files of this schema version staying
// readable: the table must not drift from the columns those files have.
import { mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { CALL, CALL_COLUMNS, CALL_INSERT_SQL, CALL_WIDTH, NATIVE_SLOT_NAMES } from '../../../lib/index/call-row';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { storedCallId } from '../../../lib/index/call-id';
import { callValues } from '../../../lib/index/ingest/capture-file';
import { scanExchangeLine } from '../../../lib/index/scan/capture-line';
import { migrate, SCHEMA_VERSION } from '../../../lib/index/schema';
import { useDemo } from '../../support/demo';

const fx = useDemo('callscope-call-row-');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-call-row-schema-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface ColumnInfo {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

function freshIndex(): Database.Database {
  const db = new Database(path.join(tmp, `index-${Math.random().toString(36).slice(2)}.db`));
  migrate(db);
  return db;
}

describe('the call row table', () => {
  it('is the calls table of a new index: the same columns, in order, with their types and keys', () => {
    const db = freshIndex();
    const info = db.prepare('PRAGMA table_info(calls)').all() as ColumnInfo[];
    expect(info.map((c) => c.name)).toEqual(CALL_COLUMNS.map((c) => c.name));
    expect(info.map((c) => [c.type, c.notnull])).toEqual(CALL_COLUMNS.map((c) => [c.sql.replace(/ NOT NULL$/, ''), c.sql.endsWith('NOT NULL') ? 1 : 0]));
    expect(info.filter((c) => c.pk > 0).map((c) => [c.name, c.pk])).toEqual([['rollout_pk', 1], ['call_index', 2]]);
    db.close();
  });

  it('is the calls table that index files of this schema version have', () => {
    // A change to the table changes the stored files: it needs a new SCHEMA_VERSION (schema.ts), and this list with it.
    expect(SCHEMA_VERSION).toBe(14);
    expect(CALL_COLUMNS.map((c) => `${c.name} ${c.sql}`.trim())).toEqual([
      'rollout_pk INTEGER NOT NULL', 'call_index INTEGER NOT NULL', 'model_call_id', 'file_id INTEGER', 'line_offset INTEGER', 'line_length INTEGER',
      'req_off INTEGER', 'req_len INTEGER', 'resp_off INTEGER', 'resp_len INTEGER', 'model_server TEXT', 'model TEXT', 'dialect TEXT',
      'status_code INTEGER', 'response_status TEXT', 'finish_reason TEXT', 'error_category TEXT', 'started_at REAL', 'completed_at REAL',
      'tokens_in INTEGER', 'tokens_out INTEGER', 'tokens_reasoning INTEGER', 'tokens_total INTEGER', 'cached_tokens INTEGER',
      'cache_creation_tokens INTEGER', 'cache_hit INTEGER', 'latency_ms REAL', 'ttft_ms REAL', 'tool_calls INTEGER',
    ]);
  });

  it('is the INSERT: a row bound in the table order reads back with each value in its column', () => {
    const db = freshIndex();
    const row = CALL_COLUMNS.map((c, i) => (c.type === 'text' ? `value-${i}` : 1000 + i));
    db.prepare(CALL_INSERT_SQL).run(...row);
    const stmt = db.prepare('SELECT * FROM calls');
    expect(stmt.columns().map((c) => c.name)).toEqual(CALL_COLUMNS.map((c) => c.name));
    expect(stmt.raw().get()).toEqual(row);
    expect(CALL_WIDTH).toBe(row.length);
    db.close();
  });

  it('places each value of callValues at its column, from the record field the table names', () => {
    const record: Record<string, unknown> = { model_ref: { name: 'srv' }, cache_hit: true, tool_calls: [{}, {}, {}] };
    CALL_COLUMNS.forEach((c, i) => {
      if (/^[a-z_]+$/.test(c.source)) record[c.source] = c.type === 'text' ? `field-${c.source}` : 10 * i;
    });
    const v = callValues(1, 2, 3, 4, { record, request: { start: 5, end: 11 }, response: { start: 20, end: 27 } });
    expect(Object.keys(v)).toHaveLength(CALL_WIDTH); // every column filled, none left a hole
    for (const c of CALL_COLUMNS) if (/^[a-z_]+$/.test(c.source)) expect(v[CALL[c.name]], c.name).toBe(record[c.source]);
    expect([v[CALL.rollout_pk], v[CALL.file_id], v[CALL.line_offset], v[CALL.line_length]]).toEqual([1, 2, 3, 4]);
    expect([v[CALL.req_off], v[CALL.req_len], v[CALL.resp_off], v[CALL.resp_len]]).toEqual([5, 6, 20, 7]);
    expect([v[CALL.model_server], v[CALL.cache_hit], v[CALL.tool_calls]]).toEqual(['srv', 1, 3]);
  });

  it('names the native slots: the spans, then each text as a span, then the numbers', () => {
    expect(NATIVE_SLOT_NAMES.slice(0, 6)).toEqual(['REQ_START', 'REQ_END', 'RESP_START', 'RESP_END', 'CALL_ID', 'CALL_ID_END']);
    expect(new Set(NATIVE_SLOT_NAMES).size).toBe(NATIVE_SLOT_NAMES.length);
    const numbers = CALL_COLUMNS.filter((c) => 'slot' in c && c.type === 'number' && !('span' in c));
    expect(NATIVE_SLOT_NAMES.slice(-numbers.length)).toEqual(numbers.map((c) => ('slot' in c ? c.slot : '')));
  });
});

describe('the call rows an ingest writes', () => {
  it('hold, column by column, the row callValues gives for the line they point at', async () => {
    const index = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx'), { workers: 0 });
    await index.refresh();
    const rows = index.db
      .prepare("SELECT calls.*, files.path AS path FROM calls JOIN files ON files.id = calls.file_id WHERE files.kind = 'capture' ORDER BY rollout_pk, call_index")
      .raw()
      .all() as unknown[][];
    expect(rows.length).toBeGreaterThan(100);
    for (const r of rows) {
      const stored = r.slice(0, CALL_WIDTH);
      const file = r[CALL_WIDTH] as string;
      const [offset, length] = [stored[CALL.line_offset] as number, stored[CALL.line_length] as number];
      const bytes = Buffer.alloc(length);
      const fd = openSync(file, 'r');
      readSync(fd, bytes, 0, length, offset);
      closeSync(fd);
      const scanned = scanExchangeLine(bytes, stored[CALL.call_index] as number);
      expect(scanned.kind).toBe('record');
      if (scanned.kind !== 'record') continue;
      const expected = callValues(stored[CALL.rollout_pk] as number, stored[CALL.file_id] as number, offset, length, scanned.call);
      expected[CALL.model_call_id] = storedCallId(expected[CALL.model_call_id]);
      expect(stored).toEqual(expected);
    }
    index.close();
  });
});
