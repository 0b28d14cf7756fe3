// I1: cold ingest against a JSON.parse baseline over the same files, measured side by side (baseline, ingest,
// baseline, ingest, baseline), each in its own child; and where the ingest's time goes, on a sample.
import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { memSampler } from '../memory';
import { round } from '../stats';
import { now } from '../time';
import { runChild, type ChildParams } from './child';
import { corpusFiles, makeSample } from './corpus';

const MB = 1e6;

/** Reads every file in 1 MiB chunks and splits lines; with `parse`, decodes (UTF-8) and JSON.parses each. */
function linePass(files: string[], parse: boolean) {
  const buf = Buffer.allocUnsafe(1 << 20);
  let bytes = 0;
  let lines = 0;
  let objects = 0;
  const cpu0 = process.cpuUsage();
  const t0 = now();
  for (const file of files) {
    const fd = openSync(file, 'r');
    let pos = 0;
    let carry: Buffer[] = [];
    try {
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        pos += n;
        bytes += n;
        const data = buf.subarray(0, n);
        let from = 0;
        for (;;) {
          const nl = data.indexOf(10, from);
          if (nl < 0) break;
          lines++;
          if (parse) {
            const text = carry.length ? Buffer.concat([...carry, data.subarray(from, nl)]).toString('utf8') : data.toString('utf8', from, nl);
            const v: unknown = JSON.parse(text);
            if (typeof v === 'object' && v !== null) objects++;
          }
          carry = [];
          from = nl + 1;
        }
        if (from < n) carry.push(Buffer.from(data.subarray(from)));
      }
    } finally {
      closeSync(fd);
    }
  }
  const wall = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { bytes, lines, objects, wall_ms: round(wall), cpu_ms: round((cpu.user + cpu.system) / 1000), mb_s: round(bytes / MB / (wall / 1000)) };
}

export async function childBaseline(p: ChildParams) {
  const files = await corpusFiles(p.corpus!);
  const read = linePass(files, false); // also brings every file into the page cache
  const parse = linePass(files, true);
  return { files: files.length, read_split: read, read_split_parse: parse };
}

/** Table objects and their sizes from SQLite's dbstat (empty when it is not compiled in). */
export function dbObjects(db: { prepare: (sql: string) => { all: () => unknown[] } }): { name: string; bytes: number }[] {
  try {
    return db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as { name: string; bytes: number }[];
  } catch {
    return []; // dbstat is not compiled in
  }
}

export const fileSize = (f: string): number => (existsSync(f) ? statSync(f).size : 0);

export async function childIngest(p: ChildParams) {
  const { CallscopeIndex } = await import('../../../lib/index/callscope-index');
  const mem = memSampler(250);
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const index = await CallscopeIndex.open([{ path: p.corpus! }], p.indexDir!);
  const tOpen = now();
  let lastLog = now();
  const ticker = setInterval(() => {
    if (now() - lastLog > 30_000) {
      lastLog = now();
      process.stderr.write(`  ingest: still running (${((now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  }, 5_000);
  await index.refresh();
  const tDone = now();
  const cpu = process.cpuUsage(cpu0);
  // The compare figures the index computes in the background after a large pass (not part of the ingest figure,
  // reported beside it; the size on disk below includes them).
  await index.compareFilled();
  const tFilled = now();
  const cpuFill = process.cpuUsage(cpu0);
  clearInterval(ticker);
  const runs = index.listRuns();
  const memory = mem.stop();
  index.close();
  // Size on disk: the SQLite file and its WAL after a checkpoint (closing the last connection checkpoints).
  const Database = (await import('better-sqlite3')).default;
  const file = path.join(p.indexDir!, 'index.sqlite');
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const objects = dbObjects(db);
  const rows = {
    calls: (db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n,
    rollouts: (db.prepare('SELECT count(*) AS n FROM rollouts').get() as { n: number }).n,
    files: (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n,
  };
  db.close();
  const disk = { sqlite: fileSize(file), wal: fileSize(file + '-wal'), shm: fileSize(file + '-shm') };
  return {
    open_ms: round(tOpen - t0),
    refresh_ms: round(tDone - tOpen),
    wall_ms: round(tDone - t0),
    cpu_ms: round((cpu.user + cpu.system) / 1000),
    compare_fill_ms: round(tFilled - tDone),
    compare_fill_cpu_ms: round((cpuFill.user + cpuFill.system - cpu.user - cpu.system) / 1000),
    runs: runs.map((r) => ({ id: r.id, progress: r.progress, totals: { rollouts: r.totals.rollouts, calls: r.totals.calls } })),
    memory,
    disk,
    rows,
    objects,
  };
}

/**
 * I1 and I4's size on disk: baseline, ingest, baseline, ingest, baseline. Each ingest is compared with the
 * baselines on either side of it; I1 passes only when both ratios do. One ratio alone moved with the machine: in
 * one run the baseline after the ingest took 60% longer than the one before it, CPU time alike.
 */
export async function measureI1(opts: { corpus: string; corpusFiles: number; indexDir: string; work: string; profile: boolean }, step: (s: string) => void) {
  const { corpus, indexDir, work } = opts;
  step('I1 baseline (read + JSON.parse of every line), 1 of 3');
  const b1 = await runChild('baseline', { corpus });
  step('I1 cold ingest (CallscopeIndex.open + refresh into a fresh index dir), 1 of 2');
  const profDir = path.join(path.dirname(corpus), 'bench-prof');
  const ingest = await runChild('ingest', { corpus, indexDir }, opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
  step('I1 baseline, 2 of 3');
  const b2 = await runChild('baseline', { corpus });
  step('I1 cold ingest, 2 of 2 (its index is discarded)');
  const secondDir = path.join(work, 'index-2');
  const ingest2 = await runChild('ingest', { corpus, indexDir: secondDir });
  rmSync(secondDir, { recursive: true, force: true });
  step('I1 baseline, 3 of 3');
  const b3 = await runChild('baseline', { corpus });
  const k = Math.max(1, Math.round(opts.corpusFiles / 5000));
  step(`I1 diagnosis: where ingest time goes, on a 1/${k} sample`);
  const sampleDir = path.join(work, 'sample');
  const sample = makeSample(corpus, sampleDir, k);
  const breakdown = await runChild('breakdown', { sample: sampleDir, indexDir: path.join(work, 'sample-index') });
  rmSync(sampleDir, { recursive: true, force: true });
  const run = ingest.runs.find((r: any) => r.id === 'bench') ?? ingest.runs[0];
  const ingestBytes = run.progress.bytes_read as number;
  const calls = run.totals.calls as number;
  const scale = ingestBytes / b1.read_split_parse.bytes;
  const pairs = [
    [b1, ingest, b2],
    [b2, ingest2, b3],
  ].map(([before, ing, after]) => {
    const wall = (before.read_split_parse.wall_ms + after.read_split_parse.wall_ms) / 2;
    const cpu = (before.read_split_parse.cpu_ms + after.read_split_parse.cpu_ms) / 2;
    return {
      baseline_wall_ms: round(wall),
      baseline_cpu_ms: round(cpu),
      ingest_wall_ms: round(ing.wall_ms),
      ingest_cpu_ms: round(ing.cpu_ms),
      ratio_wall: round((wall / ing.wall_ms) * scale),
      ratio_cpu: round((cpu / ing.cpu_ms) * scale),
    };
  });
  const baseWall = (b1.read_split_parse.wall_ms + b2.read_split_parse.wall_ms + b3.read_split_parse.wall_ms) / 3;
  const ingestWall = (ingest.wall_ms + ingest2.wall_ms) / 2;
  const i1 = {
    ingest,
    ingest_2: { wall_ms: ingest2.wall_ms, cpu_ms: ingest2.cpu_ms, open_ms: ingest2.open_ms, refresh_ms: ingest2.refresh_ms },
    breakdown: { sample_every: k, ...sample, ...breakdown },
    baseline: [b1, b2, b3],
    pairs,
    bytes: ingestBytes,
    baseline_bytes: b1.read_split_parse.bytes,
    calls,
    ingest_mb_s: round(ingestBytes / MB / (ingestWall / 1000)),
    ingest_calls_s: round(calls / (ingestWall / 1000)),
    baseline_mb_s: round(b1.read_split_parse.bytes / MB / (baseWall / 1000)),
    baseline_calls_s: round(calls / (baseWall / 1000)),
    // the lower of the two ingests' ratios
    ratio_wall: Math.min(...pairs.map((x) => x.ratio_wall)),
    ratio_cpu: Math.min(...pairs.map((x) => x.ratio_cpu)),
  };
  const i4_disk = {
    bytes: ingest.disk.sqlite + ingest.disk.wal,
    per_call: round((ingest.disk.sqlite + ingest.disk.wal) / calls, 1),
    ...ingest.disk,
    objects: ingest.objects,
  };
  return { i1, i4_disk };
}
