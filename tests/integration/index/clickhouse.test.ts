// The ClickHouse backend on the real engine (npm chdb) against the SQLite index over the same files: the demo data
// answers the same through every reader method (NeMo Gym's files: clickhouse-nemo-gym.test.ts); appends, a truncated capture file and a deleted one converge the same; an ingest restarted with an
// empty working copy resumes from the database's offsets; a reader that does not ingest follows the database; a
// database of another schema is refused. One chdb data directory per process (libchdb binds one), so each scenario
// drops the database it used.
import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { ClickhouseIndex } from '../../../lib/index/clickhouse/clickhouse-index';
import { openClient, parseClickhouseUrl } from '../../../lib/index/clickhouse/connection';
import { CLICKHOUSE_SCHEMA } from '../../../lib/index/clickhouse/schema';
import type { ChangeEvent } from '../../../lib/index/reader';
import { useDemo } from '../../support/demo';
import { expectSameAnswers } from '../../support/index-parity';

const fx = useDemo('callscope-clickhouse-');
const chdb = () => parseClickhouseUrl(`chdb:${path.join(fx.tmp, 'chdb')}`);
let opened: { close(): unknown }[] = [];
/**
 * Ingest as a large cold pass does (a pool of workers for as few as one new capture file): the mirror takes the
 * workers' packed calls instead of the working copy storing them, and what comes later (appends, a file rewritten or
 * deleted, a restart) makes them rows again from the capture files. `small`: every file read in this thread.
 */
const TAKEN = { ingest: true, minFiles: 1 } as const;
const SMALL = { ingest: true } as const;

async function dropDatabase(): Promise<void> {
  const client = await openClient(chdb());
  await client.command({ query: 'DROP DATABASE IF EXISTS callscope SYNC' });
  await client.close();
}

async function both(paths: string[], name: string, options: { ingest: true; minFiles?: number } = TAKEN) {
  const specs = paths.map((p) => ({ path: p }));
  const sqlite = await CallscopeIndex.open(specs, path.join(fx.tmp, `${name}-sqlite`));
  await sqlite.refresh();
  const ch = await ClickhouseIndex.open(chdb(), specs, path.join(fx.tmp, `${name}-work`), options);
  await stopMerges();
  await ch.refresh();
  opened.push(sqlite, ch);
  return { sqlite, ch, specs };
}

async function closeAll(): Promise<void> {
  for (const i of opened.reverse()) await i.close();
  opened = [];
  await expectOneRowPerKeyAndVersion();
  await dropDatabase();
}

/** The tables' parts stay as written (the engine would merge a pair of rows expectOneRowPerKeyAndVersion looks for). */
async function stopMerges(): Promise<void> {
  const client = await openClient(chdb());
  for (const table of ROW_TABLES) await client.command({ query: `SYSTEM STOP MERGES callscope.${table[0]}` });
  await client.close();
}

const ROW_TABLES = [['calls', 'run, key, call_index'], ['tool_calls', 'run, key, seq'], ['rollouts', 'run, key'], ['files', 'run, id']] as const;

/**
 * No write holds two rows of one key at one version (sync.ts writes each rollout once per write, its dropped calls in an
 * insert of their own): the inserts skip the engine's collapsing of their own rows (native-insert.ts INSERT_SETTINGS),
 * and a rollout's calls are read by the version on its row, so such a pair would be read twice. Counted without FINAL,
 * in parts as written (`both` stops the engine's merges; other scenarios' parts may have merged).
 */
async function expectOneRowPerKeyAndVersion(): Promise<void> {
  const client = await openClient(chdb());
  try {
    const rs = await client.query({ query: "SELECT count() FROM system.databases WHERE name = 'callscope'", format: 'JSONCompactEachRow' });
    const [[databases]] = await rs.json<[number]>();
    if (Number(databases) === 0) return; // the scenario made none
    for (const [table, key] of ROW_TABLES) {
      const rs = await client.query({
        query: `SELECT ${key}, version, count() AS n FROM callscope.${table} GROUP BY ${key}, version HAVING n > 1 LIMIT 3`,
        format: 'JSONEachRow',
      });
      expect(await rs.json(), `callscope.${table}`).toEqual([]);
    }
  } finally {
    await client.close();
  }
}

/** A copy of the demo data that a scenario may change. */
function demoCopy(name: string): string {
  const dir = path.join(fx.tmp, name);
  cpSync(fx.demo, dir, { recursive: true });
  return dir;
}

/** A capture file of the copy and its first line (an exchange as NeMo Gym writes it). */
function someCaptureFile(root: string): { file: string; first: string } {
  const file = path.join(root, 'math-with-judge', 'captures', '0-0.capture.jsonl');
  return { file, first: readFileSync(file, 'utf8').split('\n')[0] };
}

/** The exchange line again as a new call (its id and call index changed), appended as the middleware appends. */
function appendCall(file: string, first: string, n: number): void {
  const record = JSON.parse(first) as Record<string, unknown>;
  const next = first
    .replace(`"model_call_id":"${record.model_call_id as string}"`, `"model_call_id":"${(record.model_call_id as string).slice(0, -4)}${String(1000 + n)}"`)
    .replace(/"call_index":\s*\d+/, `"call_index":${100 + n}`);
  appendFileSync(file, next + '\n');
}

beforeAll(() => mkdirSync(path.join(fx.tmp, 'chdb'), { recursive: true }));
afterAll(async () => {
  for (const i of opened) await i.close();
});

describe('the ClickHouse index answers as the SQLite index', () => {
  it('over the demo data: every reader answer', async () => {
    const { sqlite, ch } = await both([fx.demo], 'demo');
    // The capture files' calls were taken from the workers, not stored in the working copy.
    const count = (sql: string) => ch.local!.db.prepare(sql).pluck().get() as number;
    const calls = (await ch.listRuns()).reduce((n, r) => n + r.totals.calls, 0);
    expect(count('SELECT count(*) FROM ch_remote_calls')).toBeGreaterThan(100);
    expect(count('SELECT count(*) FROM calls')).toBeLessThan(calls / 2);
    expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 6 })).toBeGreaterThan(500);
    await closeAll();
  }, 300_000);

  it('over the demo data read file by file in this thread (runs too small for the workers): every reader answer', async () => {
    const { sqlite, ch } = await both([fx.demo], 'demo-small', SMALL);
    // Every call is a row of the working copy: nothing was taken.
    expect(ch.local!.db.prepare('SELECT count(*) FROM ch_remote_calls').pluck().get()).toBe(0);
    expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 6 })).toBeGreaterThan(500);
    await closeAll();
  }, 300_000);

  it("writes a run's first pass straight to the database, then fills the working copy from it before the next pass, writing nothing back", async () => {
    const root = demoCopy('cold');
    const { sqlite, ch } = await both([path.join(root, 'math-with-judge')], 'cold');
    const copy = (sql: string) => ch.local!.db.prepare(sql).pluck().get() as number;
    const client = await openClient(chdb());
    const database = async (sql: string) => Number(((await (await client.query({ query: sql, format: 'JSONCompactEachRow' })).json()) as [string][])[0][0]);
    // Written from the scan: every rollout and file in the database, none in the working copy, nothing marked to write.
    const rollouts = await database('SELECT count() FROM callscope.rollouts FINAL WHERE deleted = 0');
    expect(rollouts).toBeGreaterThan(10);
    expect(await database("SELECT count() FROM callscope.files FINAL WHERE deleted = 0 AND kind = 'capture'")).toBeGreaterThan(10);
    expect(copy('SELECT count(*) FROM rollouts') + copy('SELECT count(*) FROM files')).toBe(0);
    expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 6 })).toBeGreaterThan(50);
    // The next pass finds the run's rows in the working copy, as the database holds them; it writes no new version.
    const version = await database('SELECT max(version) FROM callscope.rollouts');
    await ch.refresh();
    expect(copy('SELECT count(*) FROM rollouts')).toBe(rollouts);
    expect(copy("SELECT count(*) FROM files WHERE kind = 'capture'")).toBe(await database("SELECT count() FROM callscope.files FINAL WHERE deleted = 0 AND kind = 'capture'"));
    expect(await database('SELECT max(version) FROM callscope.rollouts')).toBe(version);
    // And an append is read from where the database says the first pass stopped.
    const { file, first } = someCaptureFile(root);
    appendCall(file, first, 7);
    await ch.refresh();
    await sqlite.refresh();
    expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 6 })).toBeGreaterThan(50);
    await client.close();
    await closeAll();
  }, 300_000);

  it('a run whose rollouts file takes a key twice over is left to the ordinary pass, and answers as SQLite', async () => {
    const root = demoCopy('twice');
    const rolloutsFile = path.join(root, 'math-with-judge', 'rollouts.jsonl');
    const lines = readFileSync(rolloutsFile, 'utf8').split('\n').filter(Boolean);
    const first = lines[0];
    const id = (JSON.parse(first) as { ng_model_call_capture: { rollout_id: string } }).ng_model_call_capture.rollout_id;
    // A line whose id is what the last one's repeated id will be (`<id>~l<its line>`), then the first line again.
    const repeated = `${id}~l${lines.length + 2}`;
    appendFileSync(rolloutsFile, `${first.split(`"${id}"`).join(`"${repeated}"`)}\n${first}\n`);
    const { sqlite, ch } = await both([path.join(root, 'math-with-judge')], 'twice');
    // Not a cold pass's: the working copy holds the run's rollouts, as the ordinary pass stored them.
    const copy = (sql: string, ...args: unknown[]) => ch.local!.db.prepare(sql).pluck().get(...args) as number;
    expect(copy('SELECT count(*) FROM rollouts WHERE line_no IS NOT NULL')).toBeGreaterThanOrEqual(lines.length + 1);
    expect(copy('SELECT count(*) FROM rollouts WHERE key = ?', repeated)).toBe(1);
    expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 6 })).toBeGreaterThan(50);
    await closeAll();
  }, 300_000);
});

describe('the ClickHouse index follows its files', () => {
  it('appends, a truncated and a deleted capture file, and a rollouts file rewritten shorter converge as in SQLite; a reader that does not ingest hears of them', async () => {
    const root = demoCopy('live');
    const { sqlite, ch, specs } = await both([root], 'live');
    const reader = await ClickhouseIndex.open(chdb(), specs, path.join(fx.tmp, 'live-reader'), { ingest: false, pollMs: 50 });
    opened.push(reader);
    const events: ChangeEvent[] = [];
    reader.on('change', (e: ChangeEvent) => events.push(e));
    const { file, first } = someCaptureFile(root);
    const before = (await reader.listRuns()).find((r) => r.id === 'math-with-judge')!.totals.calls;

    appendCall(file, first, 1);
    appendCall(file, first, 2);
    await sqlite.refresh();
    await ch.refresh();
    await expect.poll(async () => (await reader.listRuns()).find((r) => r.id === 'math-with-judge')!.totals.calls).toBe(before + 2);
    expect(events.some((e) => e.run === 'math-with-judge' && e.rollouts.includes('0-0'))).toBe(true);
    const changed = { rolloutsPerRun: 4, only: ['math-with-judge', 'math-with-judge-step-2'] };
    await expectSameAnswers(sqlite, ch, changed);
    await expectSameAnswers(sqlite, reader, { ...changed, progress: false });

    // Rewritten shorter (a replaced file): its rollout's calls are the file's again, the dropped ones gone.
    writeFileSync(file, first + '\n');
    await sqlite.refresh();
    await ch.refresh();
    expect((await ch.rolloutCalls('math-with-judge', '0-0'))!.length).toBe(1);
    await expectSameAnswers(sqlite, ch, changed);

    // Deleted: the rollout keeps its line and reports its capture missing, as in SQLite.
    rmSync(path.join(root, 'math-with-judge', 'captures', '0-1.capture.jsonl'));
    await sqlite.refresh();
    await ch.refresh();
    expect((await ch.rollout('math-with-judge', '0-1'))!.gap_count).toBe((sqlite.rollout('math-with-judge', '0-1'))!.gap_count);
    await expectSameAnswers(sqlite, ch, changed);

    // A rollouts file rewritten shorter, in a run without captures: the rollouts of the lines gone are gone.
    const rolloutsFile = path.join(root, 'tau2-retail', 'rollouts.jsonl');
    const lines = readFileSync(rolloutsFile, 'utf8').split('\n').filter(Boolean);
    writeFileSync(rolloutsFile, lines.slice(0, lines.length - 4).join('\n') + '\n');
    await sqlite.refresh();
    await ch.refresh();
    const rollouts = async (index: { listRuns(): Promise<{ id: string; totals: { rollouts: number } }[]> }) => (await index.listRuns()).find((r) => r.id === 'tau2-retail')!.totals.rollouts;
    expect(await rollouts(ch)).toBe(lines.length - 4);
    await expect.poll(() => rollouts(reader)).toBe(lines.length - 4);
    await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 3, only: ['tau2-retail'] });
    await expectSameAnswers(sqlite, reader, { rolloutsPerRun: 3, only: ['tau2-retail'], progress: false });
    await closeAll();
  }, 300_000);

  it("a run's task groups are built once and stored: another reader's Tasks answers come from them until the run changes", async () => {
    const root = demoCopy('groups');
    const { sqlite, ch, specs } = await both([root], 'groups');
    const run = 'math-with-judge';
    await ch.storeTaskGroups();
    const reader = await ClickhouseIndex.open(chdb(), specs, path.join(fx.tmp, 'groups-reader'), { ingest: false, pollMs: 50 });
    opened.push(reader);
    // The reader never builds a run's groups from its rollouts here: every Tasks answer is the stored groups'.
    const reads = (reader as unknown as { reads: { taskGroups(run: string): Promise<unknown> } }).reads;
    const build = reads.taskGroups.bind(reads);
    reads.taskGroups = () => Promise.reject(new Error('built again'));
    expect((await reader.taskGroups(run))!.length).toBeGreaterThan(0);
    await expectSameAnswers(sqlite, reader, { rolloutsPerRun: 2, only: [run, 'hermes-agent'], progress: false });

    // A call appended: the run's version moves, the stored groups are stale, and the reader builds them again.
    const { file, first } = someCaptureFile(root);
    appendCall(file, first, 7);
    await sqlite.refresh();
    await ch.refresh();
    const calls = (await sqlite.listRuns()).find((r) => r.id === run)!.totals.calls;
    await expect.poll(async () => (await reader.listRuns()).find((r) => r.id === run)!.totals.calls).toBe(calls);
    await expect(reader.taskGroups(run)).rejects.toThrow('built again');
    reads.taskGroups = build;
    await expectSameAnswers(sqlite, reader, { rolloutsPerRun: 2, only: [run], progress: false });
    await closeAll();
  }, 300_000);

  it('an ingest restarted with an empty working copy resumes from the offsets in the database', async () => {
    const root = demoCopy('restart');
    const specs = [{ path: root }];
    const first = await ClickhouseIndex.open(chdb(), specs, path.join(fx.tmp, 'restart-work-1'), TAKEN);
    await first.refresh();
    const read = (await first.listRuns()).reduce((n, r) => n + r.progress.bytes_read, 0);
    expect(read).toBeGreaterThan(100_000);
    await first.close();

    // Another machine: a new index dir. Nothing it finds is read again; what is appended is.
    const { file, first: line } = someCaptureFile(root);
    appendCall(file, line, 3);
    const second = await ClickhouseIndex.open(chdb(), specs, path.join(fx.tmp, 'restart-work-2'), TAKEN);
    opened.push(second);
    await second.refresh();
    const reread = (await second.listRuns()).reduce((n, r) => n + r.progress.bytes_read, 0);
    expect(reread).toBe(Buffer.byteLength(readFileSync(file, 'utf8').split('\n').at(-2)! + '\n'));
    const sqlite = await CallscopeIndex.open(specs, path.join(fx.tmp, 'restart-sqlite'));
    await sqlite.refresh();
    opened.push(sqlite);
    await expectSameAnswers(sqlite, second, { rolloutsPerRun: 4, only: ['math-with-judge'], progress: false });
    await closeAll();
  }, 300_000);

  it('an ingest stopped before it wrote what it read, restarted in the same index dir, writes it', async () => {
    const root = demoCopy('unflushed');
    const specs = [{ path: root }];
    const work = path.join(fx.tmp, 'unflushed-work');
    const first = await ClickhouseIndex.open(chdb(), specs, work, TAKEN);
    await first.refresh();
    const before = (await first.listRuns()).find((r) => r.id === 'math-with-judge')!.totals.calls;
    // The database refuses the next writes (a server going away): the working copy holds two calls it could not write.
    const client = await openClient(chdb());
    await client.command({ query: 'RENAME TABLE callscope.calls TO callscope.calls_away' });
    const { file, first: line } = someCaptureFile(root);
    appendCall(file, line, 4);
    appendCall(file, line, 5);
    await expect(first.refresh()).rejects.toThrow();
    await first.close();
    await client.command({ query: 'RENAME TABLE callscope.calls_away TO callscope.calls' });
    await client.close();

    const second = await ClickhouseIndex.open(chdb(), specs, work, TAKEN);
    opened.push(second);
    await second.refresh();
    expect((await second.listRuns()).find((r) => r.id === 'math-with-judge')!.totals.calls).toBe(before + 2);
    const sqlite = await CallscopeIndex.open(specs, path.join(fx.tmp, 'unflushed-sqlite'));
    await sqlite.refresh();
    opened.push(sqlite);
    await expectSameAnswers(sqlite, second, { rolloutsPerRun: 4, only: ['math-with-judge'], progress: false });
    await closeAll();
  }, 300_000);

  it('a cold ingest whose write the database refused writes its calls on the next flush, read again from the capture files', async () => {
    const root = demoCopy('refused');
    const specs = [{ path: root }];
    const ch = await ClickhouseIndex.open(chdb(), specs, path.join(fx.tmp, 'refused-work'), TAKEN);
    opened.push(ch);
    // The calls table away: the pass's write fails after the mirror took the workers' calls.
    const client = await openClient(chdb());
    await client.command({ query: 'RENAME TABLE callscope.calls TO callscope.calls_away' });
    await expect(ch.refresh()).rejects.toThrow();
    // Nothing after the calls was inserted: no rollout row, no read offset (a restart would skip the calls), and the
    // blocks encoded for them are gone from the spool.
    const count = async (table: string) => Number(((await (await client.query({ query: `SELECT count() FROM callscope.${table}`, format: 'JSONCompactEachRow' })).json()) as [string][])[0][0]);
    expect(await count('rollouts')).toBe(0);
    expect(await count('files')).toBe(0);
    expect(readdirSync(`${path.join(fx.tmp, 'chdb')}.inserts-${process.pid}`)).toEqual([]);
    await client.command({ query: 'RENAME TABLE callscope.calls_away TO callscope.calls' });
    await client.close();
    // The same process writes what it could not, with no file changed since (its rollouts' calls are no longer held).
    await ch.flush();
    const sqlite = await CallscopeIndex.open(specs, path.join(fx.tmp, 'refused-sqlite'));
    await sqlite.refresh();
    opened.push(sqlite);
    await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 4, only: ['math-with-judge', 'swe-claude-code'], progress: false });
    await closeAll();
  }, 300_000);

  it('serves only runs whose files lie under its PATHs, and refuses a database of another schema', async () => {
    const root = demoCopy('confined');
    const { ch } = await both([path.join(root, 'hermes-agent'), path.join(root, 'tau2-retail')], 'confined');
    expect((await ch.listRuns()).map((r) => r.id).sort()).toEqual(['hermes-agent', 'tau2-retail']);
    const elsewhere = await ClickhouseIndex.open(chdb(), [{ path: path.join(root, 'tau2-retail') }], path.join(fx.tmp, 'confined-reader'), { ingest: false });
    opened.push(elsewhere);
    expect((await elsewhere.listRuns()).map((r) => r.id)).toEqual(['tau2-retail']);
    expect(await elsewhere.rollout('hermes-agent', '0-0')).toBeNull();
    await closeAll();

    const client = await openClient(chdb());
    await client.command({ query: 'CREATE DATABASE IF NOT EXISTS callscope' });
    await client.command({ query: 'CREATE TABLE callscope.meta (key String, value String, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY key' });
    await client.insert({ table: 'callscope.meta', values: [{ key: 'schema', value: 'sqlite-1.0', version: 1 }], format: 'JSONEachRow' });
    await client.close();
    const refused = ClickhouseIndex.open(chdb(), [{ path: root }], path.join(fx.tmp, 'refused'), TAKEN);
    await expect(refused).rejects.toThrow(`holds a callscope index of schema sqlite-1.0; this callscope writes ${CLICKHOUSE_SCHEMA}: point --clickhouse at a new database`);
    await dropDatabase();
  }, 300_000);
});
