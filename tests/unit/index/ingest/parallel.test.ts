// An index built with ingest workers must equal, row for row and column for column, the one a single-thread
// ingest builds from the same files: on the demo data, and through appends, completed pending lines, damaged
// lines, truncated and replaced files; and the same again when workers fail or cannot start.

import { appendFileSync, cpSync, mkdirSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { useDemo } from '../../../support/demo';
import { setNativeAddon } from '../../../../lib/index/scan/addon';
import { dropWarmIngestPool, IngestPool, warmIngestPool, type IngestOptions } from '../../../../lib/index/ingest/parallel';
import { line, makeExchange } from '../../../support/exchange';

const fx = useDemo('callscope-parallel-');
const TABLES = ['runs', 'files', 'rollouts', 'calls', 'run_stats'];

afterEach(() => vi.restoreAllMocks());

const SERIAL: IngestOptions = { workers: 0 };
// Workers for every pass and tiny rollouts-file slices, so that lines cross slice boundaries.
// Workers loaded before the pass goes on, so that jobs do reach them (else this thread runs jobs until they have).
const PARALLEL: IngestOptions = { workers: 2, minFiles: 0, minBytes: 0, sliceBytes: 700, awaitWorkers: true };

/** Every row of every table, in primary-key order. */
function dump(index: CallscopeIndex): Record<string, unknown[][]> {
  const out: Record<string, unknown[][]> = {};
  for (const t of TABLES) out[t] = index.db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).raw().all() as unknown[][];
  return out;
}

/** Equal dumps; a difference is shown as the table and its first differing rows (parallel, serial). */
function expectSame(parallel: CallscopeIndex, serial: CallscopeIndex): void {
  const [a, b] = [dump(parallel), dump(serial)];
  for (const t of TABLES) {
    const diff = a[t].map((row, i) => [row, b[t][i]]).filter(([x, y]) => JSON.stringify(x) !== JSON.stringify(y));
    expect(diff.slice(0, 3), `${t}: ${a[t].length} vs ${b[t].length} rows`).toEqual([]);
  }
  expect(a).toEqual(b);
}

let seq = 0;
async function build(root: string, options: IngestOptions): Promise<CallscopeIndex> {
  const index = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `idx-${seq++}`), options);
  await index.refresh();
  return index;
}

/** A run with damaged, blank and pending lines, a capture-only rollout, a marker and a failures file. */
function edgeRun(root: string): { captures: string; rollouts: string } {
  const captures = path.join(root, 'edge', 'captures');
  mkdirSync(captures, { recursive: true });
  const rollouts = path.join(root, 'edge', 'rollouts.jsonl');
  const ids = Array.from({ length: 12 }, (_, i) => `0-${i}`);
  writeFileSync(
    rollouts,
    ids.map((id, i) => JSON.stringify({ _ng_task_index: 0, _ng_rollout_index: i, reward: i / 10, task_id: `t${i}`, rollout_id: id, padding: 'x'.repeat(i * 97) }) + '\n').join('') +
      '{"broken\n\n[1,2]\n' + JSON.stringify({ _ng_task_index: 1, _ng_rollout_index: 0, reward: 1 }) + '\n{"pending": ',
  );
  writeFileSync(path.join(root, 'edge', 'failures.jsonl'), JSON.stringify({ _ng_task_index: 2, _ng_rollout_index: 0, _ng_failure_class: 'timeout' }) + '\n');
  ids.forEach((id, i) => {
    const calls = Array.from({ length: i % 5 }, (_, k) => line(makeExchange({ model_call_id: `${id}-${k}`, latency_ms: 10 + k * i, response: { usage: { input_tokens: k, output_tokens: i } } })));
    if (i % 3 === 1) calls.splice(1, 0, '{"model_call_id": broken\n', '\n');
    writeFileSync(path.join(captures, `${id}.capture.jsonl`), calls.join('') + (i % 4 === 2 ? '{"model_call_id": "pend' : ''));
  });
  writeFileSync(path.join(captures, 'extra-1.capture.jsonl'), line(makeExchange({ model_call_id: 'extra' })));
  writeFileSync(path.join(captures, '0-3.capture.incomplete'), '');
  return { captures, rollouts };
}

async function expectSameIndexes(
  root: string, change?: (serial: CallscopeIndex, parallel: CallscopeIndex) => Promise<void>, options = PARALLEL,
): Promise<void> {
  const serial = await build(root, SERIAL);
  const parallel = await build(root, options);
  try {
    expectSame(parallel, serial);
    if (change) await change(serial, parallel);
  } finally {
    serial.close();
    parallel.close();
  }
}

// Two to four index builds per test, with worker start-ups, on a loaded 2-core machine.
describe('parallel ingest', { timeout: 180_000 }, () => {
  it('builds the single-thread index of the demo data and of damaged, pending and partial files', async () => {
    const root = path.join(fx.tmp, 'edge-1');
    cpSync(fx.demo, root, { recursive: true });
    const { captures, rollouts } = edgeRun(root);
    const start = vi.spyOn(IngestPool, 'start');
    await expectSameIndexes(root, async (serial, parallel) => {
      expect(start).toHaveBeenCalled();
      expect(dump(serial).calls.length).toBeGreaterThan(100);
      // Appends (a pending line completed, new calls), a truncated file, a replaced file, a longer rollouts file.
      appendFileSync(path.join(captures, '0-2.capture.jsonl'), 'ing"}\n' + line(makeExchange({ model_call_id: 'late' })));
      appendFileSync(path.join(captures, '0-4.capture.jsonl'), line(makeExchange({ model_call_id: 'later', latency_ms: 3 })));
      truncateSync(path.join(captures, '0-3.capture.jsonl'), 40);
      rmSync(path.join(captures, '0-1.capture.jsonl'));
      writeFileSync(path.join(captures, '0-1.capture.jsonl'), line(makeExchange({ model_call_id: 'replaced' })));
      appendFileSync(rollouts, '"x"}\n' + JSON.stringify({ _ng_task_index: 3, _ng_rollout_index: 0, reward: 0.5 }) + '\n');
      // New capture files beside the changed ones: workers read those, this thread the files already indexed.
      for (const id of ['fresh-b', 'fresh-a', 'fresh-c']) writeFileSync(path.join(captures, `${id}.capture.jsonl`), line(makeExchange({ model_call_id: id })));
      for (const index of [serial, parallel]) await index.refresh();
      expectSame(parallel, serial);
    });
  });

  it('the native capture scan builds the index the JavaScript scan builds', async () => {
    const root = path.join(fx.tmp, 'edge-native');
    cpSync(fx.demo, root, { recursive: true });
    edgeRun(root);
    setNativeAddon(false);
    let js: CallscopeIndex;
    try {
      js = await build(root, SERIAL);
    } finally {
      setNativeAddon(true);
    }
    const native = await build(root, SERIAL);
    try {
      expect(dump(native).calls.length).toBeGreaterThan(100);
      expectSame(native, js);
    } finally {
      js.close();
      native.close();
    }
  });

  it('can tell two indexes apart', async () => {
    const root = path.join(fx.tmp, 'edge-2');
    edgeRun(root);
    const serial = await build(root, SERIAL);
    const parallel = await build(root, PARALLEL);
    try {
      expect(parallel.db.prepare("UPDATE calls SET latency_ms = latency_ms + 1e-9 WHERE model_call_id = '0-4-3'").run().changes).toBe(1);
      expect(dump(parallel)).not.toEqual(dump(serial));
    } finally {
      serial.close();
      parallel.close();
    }
  });

  it('falls back to in-thread reads when workers fail or cannot start', async () => {
    const root = path.join(fx.tmp, 'edge-3');
    cpSync(fx.demo, root, { recursive: true });
    edgeRun(root);
    vi.spyOn(IngestPool.prototype, 'run').mockImplementation(() => Promise.reject(new Error('worker gone')));
    await expectSameIndexes(root);
    vi.restoreAllMocks();
    vi.spyOn(IngestPool, 'start').mockResolvedValue(null);
    await expectSameIndexes(root);
    vi.restoreAllMocks();
    // Workers that never load: the pass does not wait for them, this thread runs every job.
    vi.spyOn(IngestPool.prototype, 'readySize', 'get').mockReturnValue(0);
    const sent = vi.spyOn(IngestPool.prototype, 'run');
    await expectSameIndexes(root, undefined, { ...PARALLEL, awaitWorkers: false });
    expect(sent).not.toHaveBeenCalled();
  });

  it('a capture file the live path stored while its worker read it is read again, not overwritten with the older read', async () => {
    const root = path.join(fx.tmp, 'edge-5');
    cpSync(fx.demo, root, { recursive: true });
    const parallel = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `idx-${seq++}`), PARALLEL);
    const run = IngestPool.prototype.run;
    let raced: string | null = null;
    let first: unknown = null;
    // The first capture job sent (its first file is the first the pass stores, so that file ids match).
    vi.spyOn(IngestPool.prototype, 'run').mockImplementation(async function (this: IngestPool, job) {
      if (!first && job.kind === 'capture' && job.files.length) first = job;
      const result = await run.call(this, job);
      if (job === first && job.kind === 'capture') {
        raced = job.files[0].file;
        appendFileSync(raced, line(makeExchange({ model_call_id: 'raced' })));
        await parallel.refreshPaths(new Set([raced]));
      }
      return result;
    });
    try {
      await parallel.refresh();
      vi.restoreAllMocks();
      expect(parallel.listRuns().map((r) => r.progress.error)).toEqual(parallel.listRuns().map(() => null));
      expect(raced).not.toBeNull();
      const serial = await build(root, SERIAL);
      expectSame(parallel, serial);
      serial.close();
    } finally {
      parallel.close();
    }
  });

  it('small passes start no worker', async () => {
    const root = path.join(fx.tmp, 'edge-4');
    edgeRun(root);
    const start = vi.spyOn(IngestPool, 'start');
    const index = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `idx-${seq++}`));
    await index.refresh();
    index.close();
    expect(start).not.toHaveBeenCalled();
    expect(readdirSync(path.join(root, 'edge', 'captures')).length).toBeGreaterThan(10);
  });

  it('a pass takes the workers started ahead of it; workers no pass takes are stopped', async () => {
    warmIngestPool({ workers: 1 });
    const create = vi.spyOn(IngestPool, 'create');
    const pool = await IngestPool.start(1);
    expect(create).not.toHaveBeenCalled();
    expect(pool?.size).toBe(1);
    await pool!.ready();
    expect(pool!.readySize).toBe(1);
    await pool!.close();
    // Taken once: the next start makes its own.
    const own = await IngestPool.start(1);
    expect(create).toHaveBeenCalledTimes(1);
    await own?.close();
    // Dropped before any pass: stopped, and the next start makes its own (the warm workers were the 2nd made).
    warmIngestPool({ workers: 1 });
    dropWarmIngestPool();
    const after = await IngestPool.start(1);
    expect(create).toHaveBeenCalledTimes(3);
    await after?.close();
    // Of another size than asked: not taken (made 4th; the start makes the 5th).
    warmIngestPool({ workers: 2 });
    const other = await IngestPool.start(1);
    expect(create).toHaveBeenCalledTimes(5);
    expect(other?.size).toBe(1);
    await other?.close();
    dropWarmIngestPool();
  });
});
