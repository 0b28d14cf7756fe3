// bench:clickhouse's ingest budget: what a cold ingest of the corpus could cost at the least, by two routes that are
// not the ingest, measured beside it so that the C1 ingest row says how far each route is from the target.
// - scan: the ingest's own worker pool (one worker, and the main thread whenever the worker is behind, as ingest runs
//   it) over each run's rollouts file in slices, then over its capture files, their calls encoded for ClickHouse; the
//   results taken in order and dropped. No index at all: the floor of any ingest that reads the files this way.
// - direct: the same scan, with its results written to ClickHouse (chdb) as they come, with no SQLite working copy:
//   a rollout row per line (its line's columns, its capture file's call totals), a file row per capture file, and
//   the calls as the worker encoded them, in writes of FLUSH_CALLS calls whose inserts run while the scan goes on.
//   This is not what ingest writes: no gaps, tool calls, duplicate ids, markers, capture-only rollouts or offsets of
//   the rollouts file. It is an upper bound on the speed of writing rollouts and files from the scan, the route the
//   README's "Where the ingest's time goes" weighs.
import { readdirSync, rmSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { threadCpu } from '../threads';
import { round } from '../stats';
import { now } from '../time';
import type { EncodedCalls } from '../../../lib/index/clickhouse/call-columns';
import type { JobResult } from '../../../lib/index/ingest/job';
import type { StoredRolloutLine } from '../../../lib/index/ingest/rollouts-file';

/** Calls held before a write (clickhouse-index.ts writes a long pass's changes once as many wait). */
const FLUSH_CALLS = 250_000;
const CAPTURE_SUFFIX = '.capture.jsonl';
type CaptureJobResult = Extract<JobResult, { kind: 'capture' }>;
type RolloutsJobResult = Extract<JobResult, { kind: 'rollouts' }>;
/** What a budget child is given (roles.ts ChildParams' part of it). */
interface BudgetParams {
  dir: string;
  corpus?: string;
  keep?: boolean;
}

/** Each run of the corpus: its rollouts file and capture dir (the corpus's layout, scripts/bench/index/corpus.ts). */
function runsOf(corpus: string): { id: string; rollouts: string; captures: string }[] {
  return readdirSync(corpus, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ id: e.name, rollouts: path.join(corpus, e.name, 'rollouts.jsonl'), captures: path.join(corpus, e.name, 'captures') }));
}

/** The pass as ingest's pool runs it: every slice of the rollouts file, then every capture file (`encode`), in order. */
async function scanRun(
  run: { rollouts: string; captures: string },
  onLines: (lines: StoredRolloutLine[], firstLine: number) => void,
  onFiles: (ids: string[], result: CaptureJobResult) => Promise<void> | void,
  order: (ids: string[]) => string[],
) {
  const { IngestPool, OrderedJobs, DEFAULT_SLICE_BYTES, FILES_PER_JOB } = await import('../../../lib/index/ingest/parallel');
  const { NEW_FILE } = await import('../../../lib/index/ingest/capture-file');
  const pool = await IngestPool.start(1);
  if (!pool) throw new Error('no ingest worker could start');
  try {
    const size = statSync(run.rollouts).size;
    const starts: number[] = [];
    for (let at = 0; at < size; at += DEFAULT_SLICE_BYTES) starts.push(at);
    const slices = new OrderedJobs(pool, starts, (from) => ({ kind: 'rollouts' as const, file: run.rollouts, from, to: Math.min(size, from + DEFAULT_SLICE_BYTES), size, atLineStart: from === 0, countCalls: true }));
    let line = 1;
    for await (const group of slices.groups(100)) {
      for (const { result } of group) {
        const slice = (result as RolloutsJobResult).slice;
        onLines(slice.lines, line);
        line += slice.count;
      }
    }
    const ids = order(readdirSync(run.captures).filter((n) => n.endsWith(CAPTURE_SUFFIX)).map((n) => n.slice(0, -CAPTURE_SUFFIX.length)));
    const batches: string[][] = [];
    for (let i = 0; i < ids.length; i += FILES_PER_JOB) batches.push(ids.slice(i, i + FILES_PER_JOB));
    const files = new OrderedJobs(pool, batches, (batch) => ({
      kind: 'capture' as const, files: batch.map((id) => ({ file: path.join(run.captures, id + CAPTURE_SUFFIX), state: NEW_FILE })), encode: true,
    }));
    for await (const group of files.groups(100)) for (const { job, result } of group) await onFiles(job, result as CaptureJobResult);
  } finally {
    await pool.close();
  }
}

/** The floor: the pool's scan of every run, nothing written. */
export async function childBudgetScan(p: BudgetParams) {
  const t0 = now();
  const cpu = threadCpu();
  let lines = 0;
  let calls = 0;
  for (const run of runsOf(p.corpus!)) {
    await scanRun(run, (l) => void (lines += l.length), (_, r) => void (calls += r.counts.reduce((a, b) => a + b, 0)), (ids) => ids);
  }
  const s = (now() - t0) / 1000;
  return { s: round(s, 2), cpu: cpu(), lines, calls, calls_per_s: round(calls / s) };
}

/** The scan with its rollouts, files and calls written to chdb as they come, with no working copy. */
export async function childBudgetDirect(p: BudgetParams) {
  const { openClient } = await import('../../../lib/index/clickhouse/connection');
  const { ddl, nativeColumns, written } = await import('../../../lib/index/clickhouse/schema');
  const { NativeInserter, encodeBlocks } = await import('../../../lib/index/clickhouse/native-insert');
  const { concatRanges, ENCODED_CALL_COLUMNS } = await import('../../../lib/index/clickhouse/call-columns');
  const { rolloutOrderKey } = await import('../../../lib/index/rollout-order');
  rmSync(p.dir, { recursive: true, force: true });
  mkdirSync(p.dir, { recursive: true });
  const target = { kind: 'chdb' as const, dir: path.join(p.dir, 'chdb'), database: 'callscope' };
  const t0 = now();
  const cpu = threadCpu();
  const client = await openClient(target);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${target.database}` });
  for (const query of ddl(target.database)) await client.command({ query });
  const inserter = new NativeInserter(client, target);
  const month = 202612;
  const version = Date.now() * 1000;

  // Rows laid out as the tables' written columns, each column's empty value computed once.
  const layout = (table: 'rollouts' | 'files', extra: string[]) => {
    const names = [...written(table), ...extra, 'run', 'run_month', 'version', 'deleted'];
    const columns = nativeColumns(table, names);
    const empty: unknown[] = columns.map((c) => (c.type.startsWith('Nullable(') ? null : c.type === 'String' ? '' : 0));
    const at = Object.fromEntries(names.map((n, i) => [n, i])) as Record<string, number>;
    return { columns, at, row: (run: string) => { const r = empty.slice(); r[at.run] = run; r[at.run_month] = month; r[at.version] = version; return r; } };
  };
  const R = layout('rollouts', ['line_path', 'line_kind']);
  const F = layout('files', []);
  const callNames = ['key', 'run', 'run_month', ...written('calls'), 'version'];
  const callColumns = nativeColumns('calls', callNames);
  const encodedAt = callNames.map((n) => ENCODED_CALL_COLUMNS.findIndex((c) => c.name === n));

  let pk = 0;
  let fileId = 0;
  let calls = 0;
  let held = { pieces: [] as { calls: EncodedCalls; from: number; count: number; key: string; run: string; pk: number; fileId: number }[], rollouts: [] as unknown[][], files: [] as unknown[][], calls: 0 };
  const inserts: Promise<void>[] = [];
  const write = async () => {
    const w = held;
    held = { pieces: [], rollouts: [], files: [], calls: 0 };
    const n = w.calls;
    const encoded = concatRanges(w.pieces);
    const pieceOf = new Int32Array(n);
    for (let k = 0, r = 0; k < w.pieces.length; k++) pieceOf.fill(k, r, (r += w.pieces[k].count));
    const perPiece = (value: (piece: (typeof w.pieces)[number]) => number) => {
      const numbers = new Float64Array(n);
      for (let k = 0, r = 0; k < w.pieces.length; k++) numbers.fill(value(w.pieces[k]), r, (r += w.pieces[k].count));
      return { numbers, nulls: null };
    };
    const column = (c: number) => {
      if (encodedAt[c] >= 0) return encoded[encodedAt[c]];
      switch (callNames[c]) {
        case 'key': return (r: number) => w.pieces[pieceOf[r]].key;
        case 'run': return (r: number) => w.pieces[pieceOf[r]].run;
        case 'run_month': return perPiece(() => month);
        case 'version': return perPiece(() => version);
        case 'rollout_pk': return perPiece((x) => x.pk);
        case 'file_id': return perPiece((x) => x.fileId);
        default: throw new Error(`budget: no value for calls.${callNames[c]}`);
      }
    };
    const callsInsert = await inserter.prepare('calls', callColumns, [{ n, column }]);
    const rolloutsInsert = await inserter.prepareEncoded('rollouts', R.columns, encodeBlocks(R.columns, [w.rollouts]));
    const filesInsert = await inserter.prepare('files', F.columns, [w.files]);
    inserts.push((async () => {
      await callsInsert?.run();
      await rolloutsInsert?.run();
      await filesInsert?.run();
    })());
  };

  for (const run of runsOf(p.corpus!)) {
    const rollouts = new Map<string, unknown[]>();
    const lineFile = ++fileId;
    held.files.push(Object.assign(F.row(run.id), { [F.at.id]: lineFile, [F.at.path]: run.rollouts, [F.at.kind]: 'rollouts' }));
    await scanRun(
      run,
      (lines, first) => {
        for (const l of lines) {
          const lineNo = first + l.lineNo;
          const key = l.rolloutId ?? `line-${lineNo}`;
          const r = R.row(run.id);
          const a = R.at;
          r[a.pk] = ++pk; r[a.key] = key; r[a.rollout_id] = l.rolloutId; r[a.order_key] = rolloutOrderKey(key);
          r[a.line_file] = lineFile; r[a.line_no] = lineNo; r[a.line_offset] = l.offset; r[a.line_length] = l.length; r[a.line_path] = run.rollouts; r[a.line_kind] = 'rollouts';
          r[a.reward] = l.reward; r[a.task_index] = l.taskIndex; r[a.rollout_index] = l.rolloutIndex; r[a.attempt] = l.attempt; r[a.failure_class] = l.failureClass;
          r[a.agent] = l.agent; r[a.task] = l.task; r[a.search] = l.search ?? `line ${lineNo}`; r[a.line_problem] = l.problem; r[a.source] = 'capture';
          r[a.attached_calls] = l.attachment?.calls ?? null; r[a.attached_tokens_total] = l.attachment?.tokensTotal ?? null; r[a.attached_gaps] = l.attachment?.gaps ?? null;
          r[a.usage_in] = l.usage?.tokens_in ?? null; r[a.usage_out] = l.usage?.tokens_out ?? null; r[a.usage_total] = l.usage?.tokens_total ?? null;
          r[a.prompt] = l.prompt; r[a.expected] = l.expected; r[a.extracted] = l.extracted; r[a.outcome] = l.outcome;
          rollouts.set(key, r);
        }
      },
      async (ids, result) => {
        let from = 0;
        for (let k = 0; k < ids.length; k++) {
          const count = result.counts[k];
          const read = result.reads[k];
          const r = rollouts.get(ids[k]);
          if (!r || read.kind !== 'read' || !result.encoded) throw new Error(`budget: ${ids[k]}: not a rollout of the rollouts file, or not read`);
          const file = ++fileId;
          const t = read.totals!;
          const a = R.at;
          r[a.capture_file] = file; r[a.num_calls] = t[0]; r[a.tokens_in] = t[1]; r[a.tokens_out] = t[2]; r[a.tokens_reasoning] = t[3]; r[a.tokens_total] = t[4];
          const f = F.row(run.id);
          f[F.at.id] = file; f[F.at.path] = path.join(run.captures, ids[k] + CAPTURE_SUFFIX); f[F.at.kind] = 'capture'; f[F.at.rollout_id] = ids[k];
          f[F.at.size] = read.state.size; f[F.at.offset] = read.state.offset; f[F.at.next_line] = read.state.next_line; f[F.at.next_call_index] = read.state.next_call_index;
          held.files.push(f);
          held.rollouts.push(r);
          held.pieces.push({ calls: result.encoded, from, count, key: ids[k], run: run.id, pk: r[a.pk] as number, fileId: file });
          held.calls += count;
          calls += count;
          from += count;
        }
        if (held.calls >= FLUSH_CALLS) await write();
      },
      // In rollout order, as ingest takes them.
      (ids) => ids.sort((x, y) => ((rollouts.get(x)?.[R.at.pk] as number) ?? Infinity) - ((rollouts.get(y)?.[R.at.pk] as number) ?? Infinity)),
    );
  }
  await write();
  await Promise.all(inserts);
  const s = (now() - t0) / 1000;
  const used = cpu();
  const counted = await (await client.query({ query: `SELECT count() FROM ${target.database}.calls`, format: 'JSONCompactEachRow' })).json<[string]>();
  inserter.close();
  await client.close();
  if (!p.keep) rmSync(p.dir, { recursive: true, force: true });
  return { s: round(s, 2), cpu: used, calls, calls_in_database: Number(counted[0][0]), calls_per_s: round(calls / s) };
}
