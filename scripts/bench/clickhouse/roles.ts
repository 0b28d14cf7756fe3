// bench:clickhouse's children, each in a fresh process (chdb binds one data directory per process, and each
// figure's heap and RSS are its own):
// - generated: the 100M-call metadata set written into chdb, its disk per call, and the queries over it;
// - corpus-clickhouse / corpus-sqlite: the 1M-call corpus ingested from its files into each backend (cold, one
//   worker), then the same queries over it, side by side;
// - budget-scan / budget-direct: the same corpus by two routes that are not the ingest (budget.ts).
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { vmStatus } from '../memory';
import { threadCpu } from '../threads';
import { round } from '../stats';
import { now } from '../time';
import { generate, GENERATED_ROOT, runId, type GeneratedSet } from './generate';
import { measureQueries, type RowAt } from './queries';
import { childBudgetDirect, childBudgetScan } from './budget';

export interface ChildParams {
  out: string;
  dir: string;
  set?: GeneratedSet;
  corpus?: string;
  reps: number;
  keep?: boolean;
  /** The corpus roles: false to measure the ingest only (a repeat: the queries were measured after the first). */
  queries?: boolean;
}

const DB = 'callscope';
/** Runs of the generated set whose task groups nobody builds before the reader's first Tasks page of each. */
const UNBUILT = 3;

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : e.isFile() ? statSync(p).size : 0;
  }
  return n;
}

/** The tables' bytes on disk (active parts), per table and in all. */
async function diskOf(client: ClickHouseClient) {
  const rs = await client.query({
    query: `SELECT table, sum(rows), sum(bytes_on_disk), sum(data_uncompressed_bytes), count()
      FROM system.parts WHERE database = '${DB}' AND active GROUP BY table ORDER BY table`,
    format: 'JSONCompactEachRow',
  });
  const tables = (await rs.json<[string, number, number, number, number]>()).map(([table, rows, bytes, uncompressed, parts]) => ({ table, rows, bytes, uncompressed, parts }));
  const cols = await client.query({
    query: `SELECT column, sum(column_data_compressed_bytes) AS compressed FROM system.parts_columns WHERE database = '${DB}' AND table = 'calls' AND active
      GROUP BY column ORDER BY compressed DESC`,
    format: 'JSONCompactEachRow',
  });
  return { tables, calls_columns: Object.fromEntries(await cols.json<[string, number]>()) };
}

/** The row at a depth of a run's list, in ClickHouse (the reader's own sort expression and tie order). */
function clickhouseRowAt(client: ClickHouseClient): RowAt {
  return async (run, sort, order, depth) => {
    const { SORT_COLUMNS } = await import('../../../lib/index/schema');
    const e = sort === 'rollout' ? 'order_key' : `ifNull(toFloat64(${SORT_COLUMNS[sort]}), -1e308)`;
    const dir = order === 'desc' ? 'DESC' : 'ASC';
    const rs = await client.query({
      query: `SELECT ${e} AS v, pk FROM ${DB}.rollouts FINAL WHERE run = {run:String} AND deleted = 0 ORDER BY v ${dir}, pk ${dir} LIMIT 1 OFFSET {d:UInt64}`,
      query_params: { run, d: depth },
      format: 'JSONCompactEachRow',
    });
    return (await rs.json<[number | string, number]>())[0] ?? null;
  };
}

async function someKeys(client: ClickHouseClient, run: string, n: number): Promise<string[]> {
  const rs = await client.query({ query: `SELECT key FROM ${DB}.rollouts WHERE run = {run:String} ORDER BY cityHash64(key) LIMIT ${n}`, query_params: { run }, format: 'JSONCompactEachRow' });
  return (await rs.json<[string]>()).map(([k]) => k);
}

async function childGenerated(p: ChildParams) {
  const { openClient } = await import('../../../lib/index/clickhouse/connection');
  const { ClickhouseIndex } = await import('../../../lib/index/clickhouse/clickhouse-index');
  const { ddl, CLICKHOUSE_SCHEMA } = await import('../../../lib/index/clickhouse/schema');
  const set = p.set!;
  rmSync(p.dir, { recursive: true, force: true });
  mkdirSync(p.dir, { recursive: true });
  const target = { kind: 'chdb' as const, dir: path.join(p.dir, 'chdb'), database: DB };
  const client = await openClient(target);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${DB}` });
  for (const query of ddl(DB)) await client.command({ query });
  await client.insert({ table: `${DB}.meta`, values: [{ key: 'schema', value: CLICKHOUSE_SCHEMA, version: 1 }], format: 'JSONEachRow' });
  const t0 = now();
  const took = await generate(client, DB, set, (m) => process.stderr.write(`bench:${m}\n`));
  const generation_s = (now() - t0) / 1000;

  // The task groups of every run but the last UNBUILT, stored as `callscope ingest` stores them after its pass (by a
  // process of its own: the reader measured below has read none of them); the last UNBUILT runs' nobody built.
  const unbuilt = Math.max(1, Math.min(UNBUILT, set.runs - 2));
  const tGroups = now();
  const storer = await ClickhouseIndex.open(target, [{ path: GENERATED_ROOT }], path.join(p.dir, 'storer'), { ingest: false, ingestOnly: true });
  await storer.storeTaskGroups(Array.from({ length: set.runs - unbuilt }, (_, k) => runId(k)));
  await storer.close();
  const groups_stored_s = (now() - tGroups) / 1000;
  const disk = await diskOf(client);
  const calls = set.runs * set.rolloutsPerRun * set.callsPerRollout;
  const bytes = disk.tables.reduce((n, t) => n + t.bytes, 0);
  const dataDir = dirBytes(target.dir);

  const tOpen = now();
  const index = await ClickhouseIndex.open(target, [{ path: GENERATED_ROOT }], path.join(p.dir, 'index'), { ingest: false });
  const open_ms = now() - tOpen;
  await index.prebuilt;
  const prebuild_ms = now() - tOpen - open_ms;
  const runs = await index.listRuns();
  const queries = await measureQueries(index, {
    runs: [runId(0), runId(1)], rollouts: set.rolloutsPerRun, reps: p.reps, rowAt: clickhouseRowAt(client), keys: await someKeys(client, runId(0), p.reps), coldRuns: Array.from({ length: unbuilt }, (_, k) => runId(set.runs - 1 - k)),
    // Stored runs that the reader does not build in the background after start (those written first: prebuildGroups).
    storedRuns: Array.from({ length: Math.max(1, Math.min(UNBUILT, set.runs - unbuilt - 1)) }, (_, k) => runId(set.runs - unbuilt - 1 - k)),
  });
  const memory = vmStatus('self');
  await index.close();
  await client.close();
  if (!p.keep) rmSync(p.dir, { recursive: true, force: true });
  return {
    set, calls, rollouts: set.runs * set.rolloutsPerRun, generation_s: round(generation_s, 1), generation: took,
    disk: { ...disk, bytes, per_call: round(bytes / calls, 1), data_dir_bytes: dataDir, data_dir_per_call: round(dataDir / calls, 1) },
    groups_stored_s: round(groups_stored_s, 1), open_ms: round(open_ms), prebuild_ms: round(prebuild_ms), runs_listed: runs.length, run_totals_calls: runs.find((r) => r.id === runId(0))?.totals.calls ?? null, queries, memory,
  };
}

/** The corpus ingested cold from its files into a fresh ClickHouse database (chdb), by one worker, then the queries. */
async function childCorpusClickhouse(p: ChildParams) {
  const { openClient } = await import('../../../lib/index/clickhouse/connection');
  const { ClickhouseIndex } = await import('../../../lib/index/clickhouse/clickhouse-index');
  rmSync(p.dir, { recursive: true, force: true });
  mkdirSync(p.dir, { recursive: true });
  const target = { kind: 'chdb' as const, dir: path.join(p.dir, 'chdb'), database: DB };
  const t0 = now();
  const cpu = threadCpu();
  const index = await ClickhouseIndex.open(target, [{ path: p.corpus! }], path.join(p.dir, 'index'), { ingest: true });
  await index.refresh();
  const ingest_s = (now() - t0) / 1000;
  const ingest_cpu = cpu();
  const runs = await index.listRuns();
  const calls = runs.reduce((n, r) => n + r.totals.calls, 0);
  if (p.queries === false) {
    await index.close();
    if (!p.keep) rmSync(p.dir, { recursive: true, force: true });
    return { ingest_s: round(ingest_s, 2), ingest_cpu, calls, calls_per_s: round(calls / ingest_s) };
  }
  const client = await openClient(target);
  await client.command({ query: `OPTIMIZE TABLE ${DB}.calls FINAL` });
  await client.command({ query: `OPTIMIZE TABLE ${DB}.rollouts FINAL` });
  const disk = await diskOf(client);
  const bytes = disk.tables.reduce((n, t) => n + t.bytes, 0);
  const working = dirBytes(path.join(p.dir, 'index'));
  const result = await corpusQueries(index, runs, clickhouseRowAt(client), (run, n) => someKeys(client, run, n), p.reps);
  await index.close();
  await client.close();
  if (!p.keep) rmSync(p.dir, { recursive: true, force: true });
  return {
    ingest_s: round(ingest_s, 2), ingest_cpu, calls, calls_per_s: round(calls / ingest_s), rollouts: runs.reduce((n, r) => n + r.totals.rollouts, 0),
    disk: { ...disk, bytes, per_call: round(bytes / calls, 1), working_copy_bytes: working }, ...result, memory: vmStatus('self'),
  };
}

/** The same corpus into the SQLite index (cold), then the same queries. */
async function childCorpusSqlite(p: ChildParams) {
  const { CallscopeIndex } = await import('../../../lib/index/callscope-index');
  const { SORT_COLUMNS } = await import('../../../lib/index/schema');
  rmSync(p.dir, { recursive: true, force: true });
  mkdirSync(p.dir, { recursive: true });
  const t0 = now();
  const cpu = threadCpu();
  const index = await CallscopeIndex.open([{ path: p.corpus! }], p.dir);
  await index.refresh();
  const ingest_s = (now() - t0) / 1000;
  const ingest_cpu = cpu();
  const runs = index.listRuns();
  const calls = runs.reduce((n, r) => n + r.totals.calls, 0);
  if (p.queries === false) {
    index.close();
    if (!p.keep) rmSync(p.dir, { recursive: true, force: true });
    return { ingest_s: round(ingest_s, 2), ingest_cpu, calls, calls_per_s: round(calls / ingest_s) };
  }
  const rowAt: RowAt = async (run, sort, order, depth) => {
    const e = sort === 'rollout' ? 'order_key' : `IFNULL(${SORT_COLUMNS[sort]}, -1e308)`;
    const dir = order === 'desc' ? 'DESC' : 'ASC';
    const no = index.runSource(run)!.no;
    const r = index.db.prepare(`SELECT ${e} AS v, pk FROM rollouts WHERE run_no = ? ORDER BY v ${dir}, pk ${dir} LIMIT 1 OFFSET ?`).raw().get(no, depth) as [number | string, number] | undefined;
    return r ?? null;
  };
  const keys = async (run: string, n: number) =>
    (index.db.prepare('SELECT key FROM rollouts WHERE run_no = ? ORDER BY pk LIMIT ?').pluck().all(index.runSource(run)!.no, n * 97) as string[]).filter((_, i) => i % 97 === 0);
  const result = await corpusQueries(index, runs, rowAt, keys, p.reps);
  const bytes = statSync(path.join(p.dir, 'index.sqlite')).size;
  index.close();
  if (!p.keep) rmSync(p.dir, { recursive: true, force: true });
  return { ingest_s: round(ingest_s, 2), ingest_cpu, calls, calls_per_s: round(calls / ingest_s), rollouts: runs.reduce((n, r) => n + r.totals.rollouts, 0), disk: { bytes, per_call: round(bytes / calls, 1) }, ...result, memory: vmStatus('self') };
}

/** The queries over the corpus's largest run (compared with the next largest, or with itself when it is alone). */
async function corpusQueries(
  index: import('../../../lib/index/reader').IndexReader, runs: { id: string; totals: { rollouts: number } }[], rowAt: RowAt, keys: (run: string, n: number) => Promise<string[]> | string[], reps: number,
) {
  const bySize = [...runs].sort((x, y) => y.totals.rollouts - x.totals.rollouts);
  const a = bySize[0];
  const b = bySize[1] ?? a;
  // One run only: its cold Tasks page is the corpus's (measured first, before the run's groups are built).
  const queries = await measureQueries(index, { runs: [a.id, b.id], rollouts: a.totals.rollouts, reps, rowAt, keys: await keys(a.id, reps), coldRuns: [a.id] });
  return { run: a.id, compared_with: b.id, queries };
}

export const ROLES: Record<string, (p: ChildParams) => Promise<unknown>> = {
  generated: childGenerated,
  'corpus-clickhouse': childCorpusClickhouse,
  'corpus-sqlite': childCorpusSqlite,
  'budget-scan': childBudgetScan,
  'budget-direct': childBudgetDirect,
};
