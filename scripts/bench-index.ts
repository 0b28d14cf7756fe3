// `npm run bench:index`: the index and API targets of docs/design targets.md (I1–I5, A1–A3), measured in one
// run over a corpus built by the `callscope demo` generator. Prints a table and writes reports/bench-index.json
// with the machine, Node version, commit, seed, arguments and every raw figure.
//
// Each measurement that needs a clean process runs in a child (this script with `--child ROLE`), so that the
// generator, the baseline and the ingest never share a heap, and the RSS of the process that answers queries
// over the 1M-call index is its own. Ratios (I1) are measured side by side: baseline, ingest, baseline again.
//
//   npm run bench:index                      # 100k rollouts / 1M calls (corpus reused from .callscope/bench-corpus)
//   npm run bench:index -- --quick           # 1k rollouts / 10k calls, under a minute once its corpus exists
//   flags: --rollouts N --calls M --corpus DIR --seed S --huge-mb MB --live-seconds S --live-rate R --reps N
//          --profile (CPU profile of the ingest child into .callscope/bench-prof) --keep (keep the index dirs)
//          --no-server (skip the parts measured through `callscope serve`)
//          --out FILE (the report, instead of reports/bench-index.json)
//          --only t2 (T2 alone: cold ingest of the corpus with a trajectory on every rollout against without)
//          --index DIR [--out FILE] (query figures and I4 only, over an index built before; see queryOnly)
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  linkSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import type { CompareCache } from '../lib/index/compare/compare';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = fileURLToPath(import.meta.url);
const SIDECAR = '.callscope-bench.json';
const DEMO_MARKER = '.callscope-demo';
const LIVE_PREFIX = 'bench-live-';

// ---------------------------------------------------------------------------------------------------------
// Small helpers

type Json = null | boolean | number | string | Json[] | { [k: string]: Json | undefined };

const now = () => performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Nearest-rank percentile of an unsorted sample. */
function pct(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

function summary(values: number[]) {
  return {
    n: values.length,
    p50: round(pct(values, 0.5)),
    p95: round(pct(values, 0.95)),
    p99: round(pct(values, 0.99)),
    max: round(values.length ? Math.max(...values) : NaN),
    mean: round(values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN),
  };
}

function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

const MB = 1e6;

function vmStatus(pid: number | 'self'): { rss_kb: number | null; hwm_kb: number | null } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k: string) => {
      const m = new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) : null;
    };
    return { rss_kb: get('VmRSS'), hwm_kb: get('VmHWM') };
  } catch {
    return { rss_kb: null, hwm_kb: null };
  }
}

/** A deterministic PRNG (mulberry32 over a string hash). */
function rng(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hex(rand: () => number, n = 32): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 16).toString(16);
  return s;
}

// ---------------------------------------------------------------------------------------------------------
// Children: each role runs in its own process and writes its result as JSON to params.out.

interface ChildParams {
  out: string;
  corpus?: string;
  indexDir?: string;
  seed?: string;
  reps?: number;
  coldReps?: number;
  huge?: HugeInfo;
  live?: { rate: number; seconds: number };
  sample?: string;
  /** The T2 corpus written from `corpus` (role trajectories). */
  dest?: string;
}

interface HugeInfo {
  root: string;
  rolloutKey: string;
  callId: string;
  lineBytes: number;
  lineSha256: string;
  requestBytes: number;
  requestSha256: string;
  responseSha256: string;
}

/** The files the index reads for the corpus: every run's rollouts and failures files and capture files. */
async function corpusFiles(corpus: string): Promise<string[]> {
  const { discoverRuns } = await import('../lib/index/sources/discovery');
  const { rolloutIdOfCaptureFile } = await import('../lib/capture/store');
  const { isStoreRolloutId } = await import('../lib/capture/ids');
  const files: string[] = [];
  for (const run of await discoverRuns([{ path: corpus }])) {
    if (run.rolloutsFile) files.push(run.rolloutsFile);
    if (run.failuresFile) files.push(run.failuresFile);
    if (run.captureDir) {
      for (const name of readdirSync(run.captureDir)) {
        const id = rolloutIdOfCaptureFile(name);
        if (id && isStoreRolloutId(id)) files.push(path.join(run.captureDir, name));
      }
    }
  }
  return files;
}

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

async function childBaseline(p: ChildParams) {
  const files = await corpusFiles(p.corpus!);
  const read = linePass(files, false); // also brings every file into the page cache
  const parse = linePass(files, true);
  return { files: files.length, read_split: read, read_split_parse: parse };
}

function memSampler(periodMs: number) {
  const peak = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
  };
  const timer = setInterval(sample, periodMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { sampled_peak: peak, max_rss_bytes: process.resourceUsage().maxRSS * 1024, vm: vmStatus('self'), peak_malloced: v8.getHeapStatistics().peak_malloced_memory };
    },
  };
}

async function childIngest(p: ChildParams) {
  const { CallscopeIndex } = await import('../lib/index/callscope-index');
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
  let objects: { name: string; bytes: number }[] = [];
  try {
    objects = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as typeof objects;
  } catch {
    // dbstat is not compiled in
  }
  const rows = {
    calls: (db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n,
    rollouts: (db.prepare('SELECT count(*) AS n FROM rollouts').get() as { n: number }).n,
    files: (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n,
  };
  db.close();
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  const disk = { sqlite: size(file), wal: size(file + '-wal'), shm: size(file + '-shm') };
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

async function childQuery(p: ChildParams) {
  const tImport0 = now();
  const { CallscopeIndex } = await import('../lib/index/callscope-index');
  const { encodeCursor } = await import('../lib/index/queries/rollouts');
  const tImport = now() - tImport0;
  const specs = [{ path: p.corpus! }];

  // I2: warm restart over the unchanged index.
  const t0 = now();
  const index = await CallscopeIndex.open(specs, p.indexDir!);
  const tOpen = now();
  const runs = index.listRuns();
  const tRuns = now();
  const runId = runs.find((r) => r.id === 'bench')?.id ?? runs[0].id;
  const firstPage = index.listRollouts(runId, { sort: 'rollout', order: 'asc', limit: 50 })!;
  const tFirst = now();
  await index.refresh();
  const tReady = now();
  const after = index.listRuns().find((r) => r.id === runId)!;
  const i2 = {
    import_ms: round(tImport),
    open_ms: round(tOpen - t0),
    list_runs_ms: round(tRuns - tOpen),
    first_page_ms: round(tFirst - tRuns),
    first_answer_ms: round(tFirst - t0),
    process_start_to_first_answer_ms: round(tFirst),
    full_refresh_ms: round(tReady - tFirst),
    progress_after_refresh: after.progress,
    first_page_rows: firstPage.rollouts.length,
    total_rollouts: firstPage.total,
    total_calls: after.totals.calls,
  };

  // A2 cold: the first compare after open (a fresh connection and cache each time), then warm.
  const a2cold: number[] = [];
  {
    const t = now();
    index.compare([runId]);
    a2cold.push(now() - t);
  }
  for (let k = 1; k < (p.coldReps ?? 3); k++) {
    const other = await CallscopeIndex.open(specs, p.indexDir!);
    const t = now();
    other.compare([runId]);
    a2cold.push(now() - t);
    other.close();
  }
  const a2warm: number[] = [];
  for (let k = 0; k < (p.reps ?? 30); k++) {
    const t = now();
    index.compare([runId]);
    a2warm.push(now() - t);
  }
  // A2 after a change: what ingest does when one rollout of the run changed (its stored figures dropped and the
  // in-memory ones invalidated for that rollout), then the next compare.
  const a2change: number[] = [];
  {
    const runNo = index.runSource(runId)!.no;
    const pks = index.db.prepare('SELECT pk FROM rollouts WHERE run_no = ?').pluck().all(runNo) as number[];
    const randPk = rng(`${p.seed}:a2`);
    for (let k = 0; k < (p.reps ?? 30); k++) {
      const pk = pks[Math.floor(randPk() * pks.length)];
      (index as unknown as { compareCache: CompareCache }).compareCache.invalidate(index.db, runNo, [pk]);
      const t = now();
      index.compare([runId]);
      a2change.push(now() - t);
    }
  }

  // A1: pages of 50 for indexed sort keys, both orders, at depth 0 and half way (a cursor found by following
  // next_cursor in pages of 500), with and without filters.
  const servers = after.totals.model_servers;
  const cases: { name: string; query: Record<string, unknown>; indexed: boolean }[] = [];
  for (const sort of ['tokens_total', 'reward', 'latency_max', 'started_at'] as const) {
    for (const order of ['asc', 'desc'] as const) cases.push({ name: `${sort} ${order}`, query: { sort, order }, indexed: true });
  }
  cases.push({ name: 'tokens_total desc, has_errors', query: { sort: 'tokens_total', order: 'desc', has_errors: true }, indexed: true });
  cases.push({ name: 'reward asc, has_errors=false', query: { sort: 'reward', order: 'asc', has_errors: false }, indexed: true });
  if (servers.length) {
    const server = servers[servers.length - 1];
    cases.push({ name: `started_at desc, model_server=${server}`, query: { sort: 'started_at', order: 'desc', model_server: server }, indexed: true });
  }
  cases.push({ name: 'rollout asc (default)', query: { sort: 'rollout', order: 'asc' }, indexed: true });
  cases.push({ name: 'tokens_total desc, q=<text search>', query: { sort: 'tokens_total', order: 'desc', q: 'order' }, indexed: false });
  const reps = p.reps ?? 30;
  const a1: Record<string, Json> = {};
  const walkMs: number[] = [];
  type Q = Parameters<typeof index.listRollouts>[1];
  for (const c of cases) {
    const base = c.query as unknown as Q;
    const time = (q: Q) => {
      const samples: number[] = [];
      let rows = 0;
      for (let k = 0; k < reps; k++) {
        const t = now();
        const page = index.listRollouts(runId, q)!;
        samples.push(now() - t);
        rows = page.rollouts.length;
      }
      return { ...summary(samples), rows };
    };
    const depth0 = time({ ...base, limit: 50 });
    // Follow cursors half way.
    let cursor: string | undefined;
    let seen = 0;
    let total = 0;
    for (;;) {
      const t = now();
      const page = index.listRollouts(runId, { ...base, limit: 500, cursor })!;
      walkMs.push(now() - t);
      total = page.total;
      seen += page.rollouts.length;
      if (!page.next_cursor || seen >= total / 2) {
        cursor = page.next_cursor ?? undefined;
        break;
      }
      cursor = page.next_cursor;
    }
    const deep = cursor ? time({ ...base, limit: 50, cursor }) : null;
    // The same deep position as an encoded cursor must give the same page (keyset consistency check).
    let cursorCheck: boolean | null = null;
    if (cursor && !('model_server' in c.query) && !('has_errors' in c.query) && !('q' in c.query)) {
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [number | string, number];
      const again = index.listRollouts(runId, { ...base, limit: 5, cursor: encodeCursor(decoded[0], decoded[1]) })!;
      const viaWalk = index.listRollouts(runId, { ...base, limit: 5, cursor })!;
      cursorCheck = JSON.stringify(again.rollouts.map((r) => r.pk)) === JSON.stringify(viaWalk.rollouts.map((r) => r.pk));
    }
    a1[c.name] = { indexed: c.indexed, total, depth0, deep_position: seen, deep, cursor_check: cursorCheck };
  }

  // Raw by call id over ordinary corpus calls (small payloads): rawLocation + a read stream of the span.
  const rand = rng(`${p.seed}:raw`);
  const keys = index.db.prepare('SELECT key FROM rollouts WHERE run_no = (SELECT no FROM runs WHERE id = ?) AND num_calls > 0').pluck().all(runId) as string[];
  const rawSmall: number[] = [];
  let rawSmallBytes = 0;
  const detailMs: number[] = [];
  for (let k = 0; k < Math.min(200, keys.length); k++) {
    const key = keys[Math.floor(rand() * keys.length)];
    const row = index.rollout(runId, key)!;
    const callId = `i${Math.floor(rand() * row.num_calls)}`;
    const t = now();
    const span = index.rawLocation(runId, key, callId);
    if (!span) continue;
    await new Promise<void>((resolve, reject) => {
      const s = createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 });
      s.on('data', (d) => (rawSmallBytes += d.length));
      s.on('end', resolve);
      s.on('error', reject);
    });
    rawSmall.push(now() - t);
    if (k < 50) {
      const t2 = now();
      await index.rolloutDetail(runId, key);
      detailMs.push(now() - t2);
    }
  }

  // K1: the Tasks API's first page. After a pass (here the warm one of a fresh process) the index builds the run's
  // task groups in the background: `after_pass` is the first page once that build is done, `background_build` the
  // build (chunked, yielding), `unbuilt` a first page asked before any build (the request builds them itself).
  // Then the first page of several views (each view's first call sorts once, and is counted).
  const k1AfterPass: number[] = [];
  const k1Build: number[] = [];
  const k1Unbuilt: number[] = [];
  for (let k = 0; k < (p.coldReps ?? 3); k++) {
    const other = await CallscopeIndex.open(specs, p.indexDir!);
    let t = now();
    other.tasks(runId, { sort: 'task', order: 'asc', limit: 100 });
    k1Unbuilt.push(now() - t);
    other.close();
    const fresh = await CallscopeIndex.open(specs, p.indexDir!);
    await fresh.refresh();
    t = now();
    await fresh.tasksBuilt();
    k1Build.push(now() - t);
    t = now();
    fresh.tasks(runId, { sort: 'task', order: 'asc', limit: 100 });
    k1AfterPass.push(now() - t);
    fresh.close();
  }
  const k1: Record<string, Json> = {};
  type TQ = Parameters<typeof index.tasks>[1];
  const taskViews: [string, TQ][] = [
    ['task asc', { sort: 'task', order: 'asc', limit: 100 }],
    ['reward_std desc', { sort: 'reward_std', order: 'desc', limit: 100 }],
    ['pass@1 asc', { sort: 'pass@1', order: 'asc', limit: 100 }],
    ['zero_variance, tokens desc', { sort: 'tokens', order: 'desc', limit: 100, zero_variance: true }],
    ['q=<text>, task asc', { sort: 'task', order: 'asc', limit: 100, q: 'order' }],
  ];
  let tasksTotal = 0;
  for (const [name, q] of taskViews) {
    const samples: number[] = [];
    let rows = 0;
    for (let k = 0; k < reps; k++) {
      const t = now();
      const page = index.tasks(runId, q)!;
      samples.push(now() - t);
      rows = page.agents.reduce((n, a) => n + a.tasks.length, 0);
      tasksTotal = page.agents.reduce((n, a) => n + a.total_tasks, 0);
    }
    k1[name] = { ...summary(samples), rows };
  }
  const k1Agents = index.taskGroups(runId) ?? [];

  const memory = { ...process.memoryUsage(), vm: vmStatus('self'), max_rss_bytes: process.resourceUsage().maxRSS * 1024 };
  index.close();
  return {
    run: runId,
    k1: { after_pass: summary(k1AfterPass), background_build: summary(k1Build), unbuilt: summary(k1Unbuilt), views: k1, tasks: tasksTotal, rollouts_in_groups: k1Agents.reduce((n, a) => n + a.counts.rollouts, 0), agents: k1Agents.length },
    i2,
    a1,
    a1_walk_page500: summary(walkMs),
    a2: { cold: summary(a2cold), warm: summary(a2warm), after_change: summary(a2change), cold_ms: a2cold.map((x) => round(x)) },
    raw_small: { ...summary(rawSmall), bytes: rawSmallBytes },
    rollout_detail: summary(detailMs),
    memory,
  };
}

async function childHuge(p: ChildParams) {
  const huge = p.huge!;
  const { CallscopeIndex } = await import('../lib/index/callscope-index');
  const { streamParts } = await import('../lib/index/queries/payload');
  const mem = memSampler(2);
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  const t0 = now();
  const index = await CallscopeIndex.open([{ path: huge.root }], p.indexDir!);
  await index.refresh();
  const ingestMs = now() - t0;
  const run = index.listRuns()[0];
  const afterIngest = { rss: process.memoryUsage().rss, max_rss_bytes: process.resourceUsage().maxRSS * 1024 };
  const checks: Record<string, boolean> = {};
  const row = index.rollout(run.id, huge.rolloutKey);
  checks.rollout_indexed = row !== null && row.num_calls === 3;

  // The raw line, from its byte span.
  const span = index.rawLocation(run.id, huge.rolloutKey, huge.callId);
  checks.raw_span_length = span?.length === huge.lineBytes;
  const rawRuns: number[] = [];
  for (let k = 0; k < 3 && span; k++) {
    const hash = k === 0 ? createHash('sha256') : null;
    const t = now();
    let n = 0;
    for await (const chunk of createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 })) {
      n += (chunk as Buffer).length;
      hash?.update(chunk as Buffer);
    }
    const ms = now() - t;
    if (hash) checks.raw_sha256 = hash.digest('hex') === huge.lineSha256 && n === huge.lineBytes;
    else rawRuns.push(ms);
  }

  // The call body: record fields with the request and response spliced in from their spans.
  const body = await index.callDetail(run.id, huge.rolloutKey, huge.callId);
  let bodyBytes = 0;
  let bodyMs = NaN;
  if (body && body.kind === 'parts') {
    const strings = body.parts.filter((x): x is string => typeof x === 'string');
    const spans = body.parts.filter((x): x is { path: string; start: number; length: number } => typeof x !== 'string');
    checks.body_has_request_and_response_spans = spans.length === 2 && spans[0].length === huge.requestBytes;
    const hashes: string[] = [];
    for (const s of spans) {
      const h = createHash('sha256');
      for await (const chunk of createReadStream(s.path, { start: s.start, end: s.start + s.length - 1, highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
      hashes.push(h.digest('hex'));
    }
    checks.body_request_sha256 = hashes[0] === huge.requestSha256;
    checks.body_response_sha256 = hashes[1] === huge.responseSha256;
    // The text around the spans is valid JSON once the spans (themselves valid JSON values) are put back.
    try {
      const skeleton = JSON.parse(strings.join('{}')) as Record<string, unknown>;
      checks.body_json_valid = skeleton.model_call_id === huge.callId && typeof skeleton.request === 'object' && typeof skeleton.response === 'object';
    } catch {
      checks.body_json_valid = false;
    }
    const t = now();
    for await (const chunk of streamParts(body.parts)) bodyBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    bodyMs = now() - t;
    checks.body_length = bodyBytes === strings.reduce((a, s) => a + Buffer.byteLength(s), 0) + spans.reduce((a, s) => a + s.length, 0);
  } else {
    checks.body_parts = false;
  }
  const memory = mem.stop();
  index.close();
  return {
    run: run.id,
    progress: run.progress,
    ingest_ms: round(ingestMs),
    ingest_mb_s: round(run.progress.bytes_read / MB / (ingestMs / 1000)),
    heap_size_limit: heapLimit,
    after_ingest: afterIngest,
    memory,
    raw: { bytes: huge.lineBytes, ms: rawRuns.map((x) => round(x)), mb_s: round(huge.lineBytes / MB / (pct(rawRuns, 0.5) / 1000)) },
    body: { bytes: bodyBytes, ms: round(bodyMs), mb_s: round(bodyBytes / MB / (bodyMs / 1000)) },
    checks,
  };
}

/** I3 without the HTTP layer: CallscopeIndex + IndexWatcher in one process, polling listRollouts directly. */
async function childLive(p: ChildParams) {
  const { CallscopeIndex } = await import('../lib/index/callscope-index');
  const { IndexWatcher } = await import('../lib/index/sources/watcher');
  const index = await CallscopeIndex.open([{ path: p.corpus! }], p.indexDir!);
  const watcher = new IndexWatcher(index);
  const t0 = now();
  watcher.start();
  await index.refresh();
  const refreshMs = now() - t0;
  const run = index.listRuns().find((r) => r.id === 'bench')?.id ?? index.listRuns()[0].id;
  try {
    const live = await liveAppends(
      async () => index.listRollouts(run, { sort: 'started_at', order: 'desc', limit: 60 })!.rollouts,
      async () => index.listRuns().reduce((a, r) => a + r.progress.lines_read, 0),
      p.corpus!,
      { rate: p.live!.rate, seconds: p.live!.seconds, seed: p.seed! },
    );
    return { warm_refresh_ms: round(refreshMs), ...live, memory: { ...process.memoryUsage(), vm: vmStatus('self') } };
  } finally {
    await watcher.close();
    index.close();
    cleanLive(p.corpus!);
  }
}

/**
 * Where cold-ingest time goes, on a sample of the corpus (hard links to every K-th capture file and a prefix
 * of the rollouts file), single-thread: ingest's line reader alone, the reader + JSON.parse (the I1 baseline),
 * the reader + the index's own scanners, and a real ingest of the sample with every SQLite statement timed.
 */
async function childBreakdown(p: ChildParams) {
  const { readLinesSync } = await import('../lib/index/ingest/line-reader');
  const { scanExchangeLine } = await import('../lib/index/scan/capture-line');
  const { nativeCallValues, nativeScanStatus } = await import('../lib/index/scan/native');
  const { parseRolloutLine } = await import('../lib/rollouts/rollout-line');
  const { openSync, fstatSync, closeSync } = await import('node:fs');
  const files = await corpusFiles(p.sample!);
  const isCapture = (f: string) => f.endsWith('.capture.jsonl');
  // Each pass reads the files as ingest does (readLinesSync, one reused buffer), after a first unmeasured pass
  // that brings them into the page cache.
  const pass = async (work: (bytes: Buffer, capture: boolean, lineNo: number) => void) => {
    const cpu0 = process.cpuUsage();
    const t0 = now();
    let bytes = 0;
    let lines = 0;
    for (const f of files) {
      const fd = openSync(f, 'r');
      try {
        const capture = isCapture(f);
        readLinesSync(fd, 0, fstatSync(fd).size, 1, (line, _offset, lineNo) => {
          bytes += line.length + 1;
          lines++;
          work(line, capture, lineNo);
        });
      } finally {
        closeSync(fd);
      }
    }
    const wall = now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { bytes, lines, wall_ms: round(wall), cpu_ms: round((cpu.user + cpu.system) / 1000), mb_s: round(bytes / MB / (wall / 1000)) };
  };
  await pass(() => {});
  const split = { capture: 0, rollouts: 0 };
  const reader = await pass(() => {});
  const jsonParse = await pass((b) => {
    JSON.parse(b.toString('utf8'));
  });
  const scanners = await pass((b, capture, lineNo) => {
    const t = now();
    if (capture) nativeCallValues(b, 0, 0) ?? scanExchangeLine(b, 0); // as readFileForIngest scans
    else parseRolloutLine(b, lineNo, 0, true); // the sample has its capture dir: calls counted, as ingest does
    split[capture ? 'capture' : 'rollouts'] += now() - t;
  });
  // A real ingest of the sample, with the SQLite statements timed (by statement).
  const Database = (await import('better-sqlite3')).default;
  const sql = new Map<string, { ms: number; n: number }>();
  const proto = Database.prototype as unknown as { prepare: (this: unknown, source: string) => Record<string, (...a: unknown[]) => unknown> };
  const prepare = proto.prepare;
  let prepareMs = 0;
  let prepares = 0;
  proto.prepare = function (this: unknown, source: string) {
    const t = now();
    const st = prepare.call(this, source);
    prepareMs += now() - t;
    prepares++;
    const key = source.replace(/\s+/g, ' ').slice(0, 60);
    for (const m of ['run', 'get', 'all']) {
      const f = st[m].bind(st);
      st[m] = (...a: unknown[]) => {
        const t1 = now();
        try {
          return f(...a);
        } finally {
          const e = sql.get(key) ?? { ms: 0, n: 0 };
          e.ms += now() - t1;
          e.n++;
          sql.set(key, e);
        }
      };
    }
    return st;
  };
  const { CallscopeIndex } = await import('../lib/index/callscope-index');
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const index = await CallscopeIndex.open([{ path: p.sample! }], p.indexDir!, { workers: 0 }); // shares of one thread
  await index.refresh();
  const wall = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const progress = index.listRuns()[0].progress;
  index.close();
  proto.prepare = prepare;
  const statements = [...sql].map(([k, v]) => ({ sql: k, ms: round(v.ms), n: v.n })).sort((a, b) => b.ms - a.ms);
  const sqlMs = statements.reduce((a, x) => a + x.ms, 0) + prepareMs;
  return {
    files: files.length,
    native_scan: nativeScanStatus(),
    reader,
    json_parse: jsonParse,
    scanners: { ...scanners, capture_scan_ms: round(split.capture), rollouts_scan_ms: round(split.rollouts) },
    ingest: {
      wall_ms: round(wall),
      cpu_ms: round((cpu.user + cpu.system) / 1000),
      sys_ms: round(cpu.system / 1000),
      bytes: progress.bytes_read,
      mb_s: round(progress.bytes_read / MB / (wall / 1000)),
      sqlite_ms: round(sqlMs),
      prepare_ms: round(prepareMs),
      prepares,
      statements: statements.slice(0, 12),
    },
    shares_of_ingest_wall: {
      read_lines: round(reader.wall_ms / wall),
      scanners: round((split.capture + split.rollouts) / wall),
      sqlite: round(sqlMs / wall),
      other: round(1 - (reader.wall_ms + split.capture + split.rollouts + sqlMs) / wall),
    },
  };
}

/** inotify watches held by this process (Linux), from /proc/self/fdinfo. */
function inotifyWatches(): number | null {
  try {
    let n = 0;
    for (const fd of readdirSync('/proc/self/fdinfo')) {
      try {
        n += (readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^inotify /gm) ?? []).length;
      } catch {
        // closed meanwhile
      }
    }
    return n;
  } catch {
    return null;
  }
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = now() + timeoutMs;
  while (!cond()) {
    if (now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/**
 * I3 diagnosis: the IndexWatcher alone over the corpus (its refreshPaths replaced by a recorder): time to
 * chokidar's ready, RSS and inotify watches it holds, and how long a new capture file and an append take to
 * reach refreshPaths; beside a plain fs.watch of the capture dir seeing the same two writes.
 */
async function childWatcher(p: ChildParams) {
  const { IndexWatcher } = await import('../lib/index/sources/watcher');
  const { watch } = await import('node:fs');
  const dir = captureDirsOf(p.corpus!)[0];
  const { discoverRuns } = await import('../lib/index/sources/discovery');
  const { EventEmitter } = await import('node:events');
  const seen: { file: string; at: number }[] = [];
  const sources = await discoverRuns([{ path: p.corpus! }]);
  const fake = Object.assign(new EventEmitter(), {
    specs: [{ path: p.corpus! }],
    listRunSources: () => sources,
    refreshPaths: async (paths: Set<string>) => void paths.forEach((f) => seen.push({ file: f, at: now() })),
  });
  const rss0 = process.memoryUsage().rss;
  const t0 = now();
  const watcher = new IndexWatcher(fake as never);
  watcher.start();
  const inner = (watcher as unknown as { watcher: import('node:events').EventEmitter }).watcher;
  let errors = 0;
  inner.on('error', () => errors++);
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 300_000);
    inner.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  const readyMs = now() - t0;
  const afterReady = { rss: process.memoryUsage().rss, watches: inotifyWatches() };
  const raw: { name: string; at: number }[] = [];
  const plain = watch(dir, (_ev, name) => raw.push({ name: String(name), at: now() }));
  const file = path.join(dir, `${LIVE_PREFIX}probe.capture.jsonl`);
  const [tpl] = templateLines(p.corpus!, 1);
  const line = JSON.stringify({ ...tpl, model_call_id: 'probe' }) + '\n';
  const result: Record<string, Json> = {};
  try {
    const tCreate = now();
    writeFileSync(file, line);
    const created = await waitFor(() => seen.some((x) => x.file === file && x.at >= tCreate), 120_000);
    result.create_to_refresh_ms = created ? round(seen.find((x) => x.file === file && x.at >= tCreate)!.at - tCreate) : null;
    result.create_plain_fs_watch_ms = raw.find((x) => x.at >= tCreate) ? round(raw.find((x) => x.at >= tCreate)!.at - tCreate) : null;
    await sleep(500);
    const tAppend = now();
    writeFileSync(file, line, { flag: 'a' });
    const appended = await waitFor(() => seen.some((x) => x.file === file && x.at >= tAppend), 60_000);
    result.append_to_refresh_ms = appended ? round(seen.find((x) => x.file === file && x.at >= tAppend)!.at - tAppend) : null;
    result.append_plain_fs_watch_ms = raw.find((x) => x.at >= tAppend) ? round(raw.find((x) => x.at >= tAppend)!.at - tAppend) : null;
  } finally {
    plain.close();
    await watcher.close();
    rmSync(file, { force: true });
  }
  return {
    ready,
    ready_ms: round(readyMs),
    rss_before: rss0,
    rss_after_ready: afterReady.rss,
    inotify_watches: afterReady.watches,
    errors,
    timeouts_ms: { create: 120_000, append: 60_000 },
    ...result,
  };
}

async function runChildRole(role: string, paramsJson: string): Promise<void> {
  const p = JSON.parse(paramsJson) as ChildParams;
  const roles: Record<string, (p: ChildParams) => Promise<unknown>> = {
    baseline: childBaseline, ingest: childIngest, query: childQuery, huge: childHuge, live: childLive, breakdown: childBreakdown, watcher: childWatcher,
    trajectories: async (q) => (await import('./bench-trajectory-corpus')).ensureTrajectoryCorpus(q.corpus!, q.dest!),
  };
  const result = await roles[role](p);
  writeFileSync(p.out, JSON.stringify(result));
}

function runChild(role: string, params: Omit<ChildParams, 'out'>, nodeFlags: string[] = []): Promise<Record<string, any>> {
  const out = path.join(os.tmpdir(), `callscope-bench-${process.pid}-${role}-${Date.now()}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', SCRIPT, '--child', role, JSON.stringify({ ...params, out })], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`child ${role} exited with ${code ?? signal}`));
      try {
        const result = JSON.parse(readFileSync(out, 'utf8'));
        unlinkSync(out);
        resolve(result);
      } catch (err) {
        reject(err);
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Corpus and the huge line

async function ensureCorpus(dir: string, want: { rollouts: number; calls: number; seed: string }) {
  const sidecar = path.join(dir, SIDECAR);
  const wanted = { generator: 'callscope demo', rollouts: want.rollouts, calls: want.calls, seed: want.seed };
  if (existsSync(path.join(dir, DEMO_MARKER)) && existsSync(sidecar)) {
    try {
      const have = JSON.parse(readFileSync(sidecar, 'utf8'));
      if (have.generator === wanted.generator && have.rollouts === wanted.rollouts && have.calls === wanted.calls && have.seed === wanted.seed) {
        cleanLive(dir);
        return { reused: true, ...have };
      }
    } catch {
      // regenerate
    }
  }
  process.stderr.write(`bench: generating the corpus (${want.rollouts} rollouts, ${want.calls} calls) in ${dir}...\n`);
  const t0 = now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['bin/callscope.js', 'demo', '--out', dir, '--rollouts', String(want.rollouts), '--calls', String(want.calls), '--seed', want.seed],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`callscope demo exited with ${code}`))));
  });
  const info = { ...wanted, generated_at: new Date().toISOString(), generation_s: round((now() - t0) / 1000, 1) };
  writeFileSync(sidecar, JSON.stringify(info, null, 2) + '\n');
  return { reused: false, ...info };
}

/** A sample of the corpus: hard links to every k-th capture file, and the same fraction of the rollouts file. */
function makeSample(corpus: string, dest: string, k: number): { files: number; bytes: number } {
  rmSync(dest, { recursive: true, force: true });
  let files = 0;
  let bytes = 0;
  for (const run of readdirSync(corpus, { withFileTypes: true })) {
    if (!run.isDirectory()) continue;
    const src = path.join(corpus, run.name);
    const out = path.join(dest, run.name);
    mkdirSync(path.join(out, 'captures'), { recursive: true });
    const names = existsSync(path.join(src, 'captures')) ? readdirSync(path.join(src, 'captures')).filter((n) => n.endsWith('.capture.jsonl') && !n.startsWith(LIVE_PREFIX)).sort() : [];
    names.forEach((n, i) => {
      if (i % k !== 0) return;
      linkSync(path.join(src, 'captures', n), path.join(out, 'captures', n));
      files++;
      bytes += statSync(path.join(out, 'captures', n)).size;
    });
    const rollouts = path.join(src, 'rollouts.jsonl');
    if (existsSync(rollouts)) {
      const want = Math.ceil(names.length / k);
      const fd = openSync(rollouts, 'r');
      const outFd = openSync(path.join(out, 'rollouts.jsonl'), 'w');
      const buf = Buffer.allocUnsafe(1 << 20);
      let pos = 0;
      let lines = 0;
      try {
        while (lines < want) {
          const n = readSync(fd, buf, 0, buf.length, pos);
          if (n === 0) break;
          const data = buf.subarray(0, n);
          let end = 0;
          while (lines < want) {
            const nl = data.indexOf(10, end);
            if (nl < 0) break;
            end = nl + 1;
            lines++;
          }
          if (end === 0) end = n; // a line longer than the buffer: copy on
          writeSync(outFd, data.subarray(0, end));
          bytes += end;
          pos += end;
        }
      } finally {
        closeSync(fd);
        closeSync(outFd);
      }
      files++;
    }
  }
  return { files, bytes };
}

/** Removes capture files a previous, interrupted run appended for I3. */
function cleanLive(corpus: string): void {
  for (const dir of captureDirsOf(corpus)) {
    for (const name of readdirSync(dir)) if (name.startsWith(LIVE_PREFIX)) rmSync(path.join(dir, name), { force: true });
  }
}

function captureDirsOf(corpus: string): string[] {
  const out: string[] = [];
  for (const run of readdirSync(corpus, { withFileTypes: true })) {
    if (run.isDirectory() && existsSync(path.join(corpus, run.name, 'captures'))) out.push(path.join(corpus, run.name, 'captures'));
  }
  return out;
}

function corpusStats(corpus: string) {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) {
        files++;
        bytes += statSync(p).size;
      }
    }
  };
  walk(corpus);
  return { files, bytes };
}

/** The first line of one of the corpus's capture files: the template of appended and huge lines. */
function templateLines(corpus: string, count: number): Record<string, unknown>[] {
  const dir = captureDirsOf(corpus)[0];
  const names = readdirSync(dir).filter((n) => n.endsWith('.capture.jsonl') && !n.startsWith(LIVE_PREFIX)).sort().slice(0, 64);
  const out: Record<string, unknown>[] = [];
  for (const name of names) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const v = JSON.parse(line) as Record<string, unknown>;
      if (v.status_code === 200 && typeof v.request === 'object' && typeof v.response === 'object') out.push(v);
      if (out.length >= count) return out;
    }
  }
  return out;
}

/**
 * Writes a capture file with three calls, the second one a line of `mb` MiB: a request holding thousands of
 * messages (a quarter of it) and one huge string with escapes and non-ASCII text (the rest). Written in
 * chunks and hashed on the way; no part of it is ever one string.
 */
function writeHuge(root: string, template: Record<string, unknown>, mb: number, seed: string): HugeInfo {
  rmSync(root, { recursive: true, force: true });
  const dir = path.join(root, 'huge', 'captures');
  mkdirSync(dir, { recursive: true });
  const rand = rng(`${seed}:huge`);
  const file = path.join(dir, 'huge-0.capture.jsonl');
  const fd = openSync(file, 'w');
  const lineOf = (obj: Record<string, unknown>) => JSON.stringify(obj) + '\n';
  try {
    writeSync(fd, lineOf({ ...template, model_call_id: hex(rand) }));
    const callId = hex(rand);
    const text = JSON.stringify({ ...template, model_call_id: callId, request: '\u0000REQ\u0000' });
    const at = text.indexOf(JSON.stringify('\u0000REQ\u0000'));
    const prefix = Buffer.from(text.slice(0, at));
    const suffix = Buffer.from(text.slice(at + JSON.stringify('\u0000REQ\u0000').length));
    const target = mb * 1024 * 1024 - prefix.length - suffix.length;
    const lineHash = createHash('sha256');
    const reqHash = createHash('sha256');
    let reqBytes = 0;
    const put = (b: Buffer, isReq: boolean) => {
      writeSync(fd, b);
      lineHash.update(b);
      if (isReq) {
        reqHash.update(b);
        reqBytes += b.length;
      }
    };
    put(prefix, false);
    put(Buffer.from('{"model":"bench-huge","input":['), true);
    const words = ['order', 'refund', 'cancel', 'Seattle', 'naïve', 'café', '日本語', 'tool', 'policy', 'user', 'mistake', 'lamp'];
    const sentence = () => {
      let s = '';
      for (let k = 0; k < 12; k++) s += words[Math.floor(rand() * words.length)] + ' ';
      return s;
    };
    // A quarter: many ordinary messages.
    const messagesTarget = Math.floor(target / 4);
    let m = 0;
    while (reqBytes < messagesTarget) {
      const msg = { role: m % 2 ? 'assistant' : 'user', type: 'message', content: `${m}: ${sentence()}\n${sentence()} "quoted" \\ ${sentence()}`.repeat(8) };
      put(Buffer.from(JSON.stringify(msg) + ','), true);
      m++;
    }
    // The rest: one huge string, written as escaped JSON string chunks.
    put(Buffer.from('{"role":"user","type":"message","content":"'), true);
    const closing = Buffer.from('"}],"stream":false}');
    const blockText = (k: number) => JSON.stringify(`[block ${k}] ${sentence()}\n\t"${sentence()}" \\ ${sentence()}\u00e9\u2028 `.repeat(200)).slice(1, -1);
    for (let k = 0; ; k++) {
      const remaining = target - reqBytes - closing.length;
      if (remaining <= 0) break;
      let block = Buffer.from(blockText(k));
      if (block.length > remaining) block = Buffer.from('x'.repeat(remaining));
      put(block, true);
    }
    put(closing, true);
    put(suffix, false);
    writeSync(fd, '\n');
    writeSync(fd, lineOf({ ...template, model_call_id: hex(rand) }));
    const respText = Buffer.from(JSON.stringify(template.response));
    return {
      root,
      rolloutKey: 'huge-0',
      callId,
      lineBytes: prefix.length + reqBytes + suffix.length,
      lineSha256: lineHash.digest('hex'),
      requestBytes: reqBytes,
      requestSha256: reqHash.digest('hex'),
      responseSha256: createHash('sha256').update(respText).digest('hex'),
    };
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The real server

interface Served {
  url: string;
  child: ChildProcess;
  log: () => string;
  stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

type StartedServe = Served & { spawnedAt: number; timing: { listen_ms: number; ready_line_ms: number } };

async function startServe(paths: string[], indexDir: string): Promise<StartedServe> {
  const port = await freePort();
  const spawnedAt = now();
  const child = spawn(process.execPath, ['bin/callscope.js', 'serve', ...paths, '--port', String(port), '--index-dir', indexDir], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const timing = { listen_ms: NaN, ready_line_ms: NaN };
  const onData = (d: Buffer) => {
    log += d;
    if (Number.isNaN(timing.listen_ms) && /serving .* on http/.test(log)) timing.listen_ms = now() - spawnedAt;
    if (Number.isNaN(timing.ready_line_ms) && /index ready in/.test(log)) timing.ready_line_ms = now() - spawnedAt;
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }, 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        resolve();
      }
    });
  return { url: `http://127.0.0.1:${port}`, child, log: () => log, stop, spawnedAt, timing };
}

class ServeFailed extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
  }
}

/**
 * Starts `serve` and waits for its first 200 of /api/runs. The dashboard build (.next) is shared with whoever
 * else works in this checkout: when another build is running, wait and start again.
 */
async function startServeReady(paths: string[], indexDir: string) {
  for (let attempt = 1; ; attempt++) {
    const served = await startServe(paths, indexDir);
    try {
      const first = await firstOk(served, '/api/runs', served.spawnedAt, 600_000);
      return { served, first, attempt, built: /building the dashboard/.test(served.log()) };
    } catch (err) {
      await served.stop();
      if (!(err instanceof ServeFailed) || attempt >= 6 || !/Another next build process|next build failed/.test(err.log)) throw err;
      process.stderr.write(`bench: serve could not start (a concurrent dashboard build); retrying in 30 s\n`);
      await sleep(30_000);
    }
  }
}

/** Polls a URL until it answers 200; the time of the first 200 since `since`. */
async function firstOk(served: Served, route: string, since: number, timeoutMs: number): Promise<{ ms: number; body: any }> {
  const deadline = now() + timeoutMs;
  while (now() < deadline) {
    if (served.child.exitCode !== null || served.child.signalCode !== null) throw new ServeFailed(`serve exited:\n${served.log()}`, served.log());
    // `serve` reports a failed start (e.g. a failed dashboard build) but its watcher keeps the process alive.
    if (/callscope serve: Error/.test(served.log())) throw new ServeFailed(`serve failed to start:\n${served.log()}`, served.log());
    try {
      const res = await fetch(served.url + route);
      if (res.status === 200) {
        const body = await res.json();
        return { ms: now() - since, body };
      }
      await res.arrayBuffer();
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  throw new Error(`${route} did not answer 200 within ${timeoutMs} ms:\n${served.log().slice(-2000)}`);
}

async function waitReady(served: Served, timeoutMs: number): Promise<any> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const res = await fetch(served.url + '/api/runs');
    const body = (await res.json()) as { runs: { progress: { state: string } }[] };
    if (body.runs.length && body.runs.every((r) => r.progress.state === 'ready' || r.progress.state === 'error')) return body;
    if (now() > deadline) throw new Error('the server did not finish indexing in time');
    await sleep(100);
  }
}

async function timeGet(url: string): Promise<{ ms: number; bytes: number; status: number; sha256: string }> {
  const t = now();
  const res = await fetch(url);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    hash.update(chunk);
  }
  return { ms: now() - t, bytes, status: res.status, sha256: hash.digest('hex') };
}

async function countGet(url: string): Promise<{ ms: number; bytes: number; status: number }> {
  const t = now();
  const res = await fetch(url);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { ms: now() - t, bytes, status: res.status };
}

/** GET with node:http and explicit request headers: bytes on the wire, time and the content encoding. */
function httpGet(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number; status: number; encoding: string | null }> {
  const t = now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ ms: now() - t, bytes, status: res.statusCode ?? 0, encoding: (res.headers['content-encoding'] as string | undefined) ?? null }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

interface WireGet {
  client: 'curl' | 'node:http';
  ms: number;
  bytes: number;
  status: number;
  encoding: string | null;
}

let curlPresent: boolean | null = null;

/** GET received by curl (discarding the body), or by node:http where curl is missing. */
async function wireGet(url: string, headers: Record<string, string>): Promise<WireGet> {
  curlPresent ??= existsSync('/usr/bin/curl');
  if (!curlPresent) return { client: 'node:http', ...(await httpGet(url, headers)) };
  const args = ['-s', '-o', '/dev/null', '-D', '-', '-w', '\n%{http_code} %{size_download} %{time_total}\n'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('/usr/bin/curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}`))));
  });
  const lines = out.trim().split(/\r?\n/);
  const [status, bytes, seconds] = lines[lines.length - 1].split(' ').map(Number);
  const encoding = lines.find((l) => /^content-encoding:/i.test(l))?.split(':')[1].trim() ?? null;
  return { client: 'curl', ms: seconds * 1000, bytes, status, encoding };
}

async function serverHuge(huge: HugeInfo, indexDir: string, bodyExpected: number) {
  const { served, built, attempt } = await startServeReady([huge.root], indexDir); // may include a dashboard build
  try {
    const t = now();
    const ready = await waitReady(served, 300_000);
    const readyMs = now() - t;
    const run = ready.runs[0].id as string;
    const base = `${served.url}/api/runs/${run}/rollouts/${huge.rolloutKey}/calls/${huge.callId}`;
    const raw = await timeGet(base + '/raw');
    const rawRuns: number[] = [];
    for (let k = 0; k < 3; k++) rawRuns.push((await countGet(base + '/raw')).ms);
    // The wire as a browser asks for it (gzip accepted) and without compression, received by curl: a native
    // client, like a browser or a download, so that the figure is the server's and not a JS client's.
    const encodings: Record<string, Json> = {};
    for (const [name, accept] of [
      ['identity', 'identity'],
      ['browser', 'gzip, deflate, br'],
    ] as const) {
      const runs: WireGet[] = [];
      for (let k = 0; k < 3; k++) runs.push(await wireGet(base + '/raw', { 'accept-encoding': accept }));
      const ms = pct(runs.map((x) => x.ms), 0.5);
      encodings[name] = { client: runs[0].client, accept, content_encoding: runs[0].encoding, wire_bytes: runs[0].bytes, ms: runs.map((x) => round(x.ms)), payload_mb_s: round(huge.lineBytes / MB / (ms / 1000)) };
    }
    // Side by side: a bare node:http server, in its own process, piping the same byte span with 1 MiB reads (what
    // loopback HTTP from Node does here), received the same way.
    const file = path.join(huge.root, 'huge', 'captures', 'huge-0.capture.jsonl');
    const head = Buffer.alloc(1 << 16);
    const fd = openSync(file, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    const start = head.indexOf(10) + 1;
    const bareScript = `const http = require('node:http'); const fs = require('node:fs');
      const [file, start, length] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
      const server = http.createServer((req, res) => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson', 'content-length': String(length) });
        fs.createReadStream(file, { start, end: start + length - 1, highWaterMark: 1 << 20 }).pipe(res);
      });
      server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
    const bare = spawn(process.execPath, ['-e', bareScript, file, String(start), String(huge.lineBytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      bare.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      bare.once('exit', () => reject(new Error('bare server exited')));
    });
    const bareRuns: WireGet[] = [];
    for (let k = 0; k < 3; k++) bareRuns.push(await wireGet(`http://127.0.0.1:${port}/`, {}));
    bare.kill();
    encodings.bare_node_http = { client: bareRuns[0].client, wire_bytes: bareRuns[0].bytes, ms: bareRuns.map((x) => round(x.ms)), payload_mb_s: round(huge.lineBytes / MB / (pct(bareRuns.map((x) => x.ms), 0.5) / 1000)) };
    const body = await countGet(base);
    const bodyRuns: number[] = [body.ms];
    for (let k = 0; k < 2; k++) bodyRuns.push((await countGet(base)).ms);
    return {
      ready_after_first_200_ms: round(readyMs),
      dashboard_built: built,
      start_attempts: attempt,
      progress: ready.runs[0].progress,
      raw: { status: raw.status, bytes: raw.bytes, sha256_ok: raw.sha256 === huge.lineSha256, ms: rawRuns.map((x) => round(x)), mb_s: round(raw.bytes / MB / (pct(rawRuns, 0.5) / 1000)) },
      raw_by_accept_encoding: encodings,
      body: { status: body.status, bytes: body.bytes, length_ok: body.bytes === bodyExpected, ms: bodyRuns.map((x) => round(x)), mb_s: round(body.bytes / MB / (pct(bodyRuns, 0.5) / 1000)) },
      server_memory: vmStatus(served.child.pid!),
    };
  } finally {
    await served.stop();
  }
}

async function serverCorpus(corpus: string, indexDir: string, opts: { rate: number; seconds: number; seed: string; reps: number }) {
  // I2 through the server: from spawning `serve` to the first 200 of /api/runs, then to the end of the warm
  // pass (which must read no capture file). The huge-line server ran just before, so the build is fresh.
  let { served, first, built, attempt } = await startServeReady([corpus], indexDir);
  const out: Record<string, any> = {};
  if (built) {
    // Someone changed the dashboard's sources since the last start: that start timed a build. Start again.
    out.i2_first_start_with_build = { spawn_to_first_200_ms: round(first.ms), spawn_to_listen_ms: round(served.timing.listen_ms) };
    await served.stop();
    ({ served, first, built, attempt } = await startServeReady([corpus], indexDir));
  }
  try {
    const t = now();
    const ready = await waitReady(served, 900_000);
    out.i2 = {
      spawn_to_first_200_ms: round(first.ms),
      spawn_to_listen_ms: round(served.timing.listen_ms),
      dashboard_built: built,
      start_attempts: attempt,
      first_body_state: first.body.runs.map((r: any) => r.progress.state),
      ready_after_first_200_ms: round(now() - t),
      progress_when_ready: ready.runs.map((r: any) => ({ id: r.id, ...r.progress })),
      spawn_to_index_ready_line_ms: round(served.timing.ready_line_ms),
    };
    const run = ready.runs.find((r: any) => r.id === 'bench')?.id ?? ready.runs[0].id;
    out.run = run;

    // A1 through HTTP (round trip, informational): the first page and a deep page of one sort key.
    const list = (q: string) => `${served.url}/api/runs/${run}/rollouts?${q}`;
    const http: Record<string, Json> = {};
    for (const q of ['sort=tokens_total&order=desc&limit=50', 'sort=started_at&order=asc&limit=50', 'sort=reward&order=desc&limit=50&has_errors=true']) {
      const samples: number[] = [];
      for (let k = 0; k < opts.reps; k++) samples.push((await countGet(list(q))).ms);
      http[q] = summary(samples);
    }
    {
      const a2: number[] = [];
      for (let k = 0; k < Math.min(opts.reps, 10); k++) a2.push((await countGet(`${served.url}/api/compare?runs=${run}`)).ms);
      http['/api/compare'] = summary(a2);
    }
    for (const q of ['sort=task&order=asc', 'sort=reward_std&order=desc&zero_variance=false']) {
      const samples: number[] = [];
      for (let k = 0; k < opts.reps; k++) samples.push((await countGet(`${served.url}/api/runs/${run}/tasks?${q}`)).ms);
      http[`/api/runs/{run}/tasks?${q}`] = summary(samples);
    }
    out.http = http;
    out.memory_before_live = vmStatus(served.child.pid!);

    // I3: appended lines to visible in the list API.
    const page = `${served.url}/api/runs/${run}/rollouts?sort=started_at&order=desc&limit=60`;
    out.i3 = await liveAppends(
      async () => ((await (await fetch(page)).json()) as { rollouts: { key: string; num_calls: number }[] }).rollouts,
      async () => ((await (await fetch(`${served.url}/api/runs`)).json()) as { runs: { progress: { lines_read: number } }[] }).runs.reduce((a, r) => a + r.progress.lines_read, 0),
      corpus,
      opts,
    );
    out.memory_after_live = vmStatus(served.child.pid!);
  } finally {
    await served.stop();
    cleanLive(corpus);
  }
  return out;
}

/**
 * Appends capture lines at a fixed rate to LIVE rollouts (new capture files whose calls start after every
 * corpus call, so they lead the list sorted by started_at desc), and polls that list page: a call is visible
 * once its rollout's num_calls counts it. Latency is measured to the end of the poll that first showed it.
 */
type LivePoll = () => Promise<{ key: string; num_calls: number }[]>;

async function liveAppends(fetchPage: LivePoll, linesRead: () => Promise<number>, corpus: string, opts: { rate: number; seconds: number; seed: string }) {
  const dir = captureDirsOf(corpus)[0];
  const templates = templateLines(corpus, 16);
  const rand = rng(`${opts.seed}:live`);
  const LIVE = 50;
  const fds: number[] = [];
  const appendedAt: number[][] = Array.from({ length: LIVE }, () => []);
  const seen = new Array<number>(LIVE).fill(0);
  const latencies: number[] = [];
  const pollMs: number[] = [];
  let seq = 0;
  const lineFor = (r: number) => {
    const tpl = templates[seq % templates.length];
    const start = 4_000_000_000 + r * 10 + appendedAt[r].length * 1e-3;
    seq++;
    return Buffer.from(JSON.stringify({ ...tpl, model_call_id: hex(rand), started_at: start, completed_at: start + 0.5 }) + '\n');
  };
  const append = (r: number) => {
    writeSync(fds[r], lineFor(r));
    appendedAt[r].push(now());
  };
  let polling = true;
  let lastVisibleAt = 0;
  const poll = async (record: boolean) => {
    while (polling) {
      const t = now();
      const rows = await fetchPage();
      const at = now();
      pollMs.push(at - t);
      for (const row of rows) {
        if (!row.key.startsWith(LIVE_PREFIX)) continue;
        const r = Number(row.key.slice(LIVE_PREFIX.length));
        const n = Math.min(row.num_calls, appendedAt[r].length);
        for (let j = seen[r]; j < n; j++) {
          if (record) latencies.push(at - appendedAt[r][j]);
          lastVisibleAt = at;
        }
        seen[r] = Math.max(seen[r], n);
      }
      await sleep(5);
    }
  };
  const total = () => appendedAt.reduce((a, x) => a + x.length, 0);
  const visible = () => seen.reduce((a, x) => a + x, 0);
  try {
    // Warm-up: create the live files (one call each) and wait until the watcher has shown all of them.
    const tw = now();
    for (let r = 0; r < LIVE; r++) {
      fds.push(openSync(path.join(dir, `${LIVE_PREFIX}${r}.capture.jsonl`), 'a'));
      append(r);
    }
    let poller = poll(false);
    while (visible() < total() && now() - tw < 120_000) await sleep(20);
    const warmupMs = now() - tw;
    const warmupComplete = visible() === total();
    polling = false;
    await poller;
    polling = true;
    // Measured phase: a fixed rate, spread over the live rollouts round robin.
    const before = total();
    const seenBefore = visible();
    const linesBefore = await linesRead();
    poller = poll(true);
    const t0 = now();
    let next = 0;
    const goal = Math.round(opts.rate * opts.seconds);
    let appended = 0;
    while (appended < goal) {
      const due = Math.min(goal, Math.floor(((now() - t0) / 1000) * opts.rate));
      while (appended < due) append(appended++ % LIVE);
      next += 10;
      const wait = t0 + next - now();
      if (wait > 0) await sleep(wait);
    }
    const tAppendEnd = now();
    while (visible() < total() && now() - tAppendEnd < 60_000) await sleep(10);
    polling = false;
    await poller;
    const appendedCalls = total() - before;
    const visibleCalls = visible() - seenBefore;
    await sleep(500);
    const linesDelta = (await linesRead()) - linesBefore;
    const span = (lastVisibleAt - t0) / 1000;
    const third = Math.floor(latencies.length / 3);
    return {
      live_rollouts: LIVE,
      warmup_ms: round(warmupMs),
      warmup_complete: warmupComplete,
      target_rate: opts.rate,
      seconds: opts.seconds,
      appended: appendedCalls,
      visible: visibleCalls,
      append_seconds: round((tAppendEnd - t0) / 1000),
      append_rate: round(appendedCalls / ((tAppendEnd - t0) / 1000)),
      sustained_rate: round(visibleCalls / span),
      latency_ms: summary(latencies),
      latency_last_third_ms: summary(latencies.slice(2 * third)),
      poll_round_trip_ms: summary(pollMs),
      lines_read_by_index: linesDelta,
      lines_read_per_appended_line: round(linesDelta / appendedCalls),
    };
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The run

function machine() {
  let commit = 'unknown';
  let dirty: string[] = [];
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    dirty = execFileSync('git', ['status', '--porcelain', '--', 'lib/index', 'lib/capture', 'scripts/bench-index.ts'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    // not a git checkout
  }
  return {
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    total_memory_bytes: os.totalmem(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    commit,
    dirty_paths: dirty,
    load_average_start: os.loadavg(),
  };
}

interface Row {
  id: string;
  figure: string;
  target: string;
  result: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rollouts: { type: 'string' },
      calls: { type: 'string' },
      corpus: { type: 'string' },
      seed: { type: 'string', default: 'callscope' },
      quick: { type: 'boolean', default: false },
      'huge-mb': { type: 'string' },
      'live-seconds': { type: 'string' },
      'live-rate': { type: 'string', default: '1200' },
      reps: { type: 'string' },
      profile: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      'no-server': { type: 'boolean', default: false },
      index: { type: 'string' },
      out: { type: 'string' },
      skip: { type: 'string', default: '' },
      only: { type: 'string', default: '' },
      'query-only': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const quick = values.quick!;
  const args = {
    rollouts: Number(values.rollouts ?? (quick ? 1_000 : 100_000)),
    calls: Number(values.calls ?? (quick ? 10_000 : 1_000_000)),
    corpus: path.resolve(values.corpus ?? (quick ? '.callscope/bench-corpus-quick' : '.callscope/bench-corpus')),
    seed: values.seed!,
    quick,
    huge_mb: Number(values['huge-mb'] ?? (quick ? 32 : 256)),
    live_seconds: Number(values['live-seconds'] ?? (quick ? 4 : 15)),
    live_rate: Number(values['live-rate']),
    reps: Number(values.reps ?? (quick ? 10 : 30)),
    profile: values.profile!,
    keep: values.keep!,
    server: !values['no-server'],
    index: values.index ? path.resolve(values.index) : null,
    out: values.out ?? null,
    skip: new Set(values.skip!.split(',').filter(Boolean)),
  };
  const PARTS = ['i1', 'query', 'huge', 'server', 'watcher', 'live', 't2'];
  const only = values.only!.split(',').filter(Boolean);
  for (const part of only) if (!PARTS.includes(part)) throw new Error(`--only ${part}: not one of ${PARTS.join(', ')}`);
  if (only.length) {
    args.skip = new Set(PARTS.filter((p) => !only.includes(p)));
    if (args.skip.has('server')) args.server = false;
  }
  if (values['query-only']) {
    if (!args.index) throw new Error('--query-only needs --index DIR');
    return queryOnly(args as typeof args & { index: string });
  }
  for (const part of args.skip) if (!PARTS.includes(part)) throw new Error(`--skip ${part}: not one of ${PARTS.join(', ')}`);
  for (const [k, v] of Object.entries(args)) if (typeof v === 'number' && !(v > 0)) throw new Error(`--${k.replace('_', '-')} must be a positive number`);
  const started = now();
  const report: Record<string, any> = { benchmark: 'index', started_at: new Date().toISOString(), machine: machine(), seed: args.seed, args: { ...args, skip: [...args.skip] } };
  const work = path.join(path.dirname(args.corpus), `bench-work-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const step = (s: string) => process.stderr.write(`bench: ${s} (${((now() - started) / 1000).toFixed(0)} s)\n`);
  try {
    report.corpus = { dir: args.corpus, ...(await ensureCorpus(args.corpus, args)), ...corpusStats(args.corpus) };
    step(`corpus: ${fmtBytes(report.corpus.bytes)} in ${report.corpus.files} files${report.corpus.reused ? ' (reused)' : ''}`);

    // I1: baseline, ingest, baseline, ingest, baseline (skipped with --index DIR: an index this script built before,
    // reused). Each ingest is compared with the baselines on either side of it; I1 passes only when both ratios do.
    // One ratio alone moved with the machine: in one run the baseline after the ingest took 60% longer than the one
    // before it, CPU time alike.
    const indexDir = args.index ?? path.join(work, 'index');
    if (!args.index && !args.skip.has('i1')) {
      step('I1 baseline (read + JSON.parse of every line), 1 of 3');
      const b1 = await runChild('baseline', { corpus: args.corpus });
      step('I1 cold ingest (CallscopeIndex.open + refresh into a fresh index dir), 1 of 2');
      const profDir = path.join(path.dirname(args.corpus), 'bench-prof');
      const ingest = await runChild('ingest', { corpus: args.corpus, indexDir }, args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
      step('I1 baseline, 2 of 3');
      const b2 = await runChild('baseline', { corpus: args.corpus });
      step('I1 cold ingest, 2 of 2 (its index is discarded)');
      const secondDir = path.join(work, 'index-2');
      const ingest2 = await runChild('ingest', { corpus: args.corpus, indexDir: secondDir });
      rmSync(secondDir, { recursive: true, force: true });
      step('I1 baseline, 3 of 3');
      const b3 = await runChild('baseline', { corpus: args.corpus });
      const k = Math.max(1, Math.round(report.corpus.files / 5000));
      step(`I1 diagnosis: where ingest time goes, on a 1/${k} sample`);
      const sampleDir = path.join(work, 'sample');
      const sample = makeSample(args.corpus, sampleDir, k);
      const breakdown = await runChild('breakdown', { sample: sampleDir, indexDir: path.join(work, 'sample-index') });
      rmSync(sampleDir, { recursive: true, force: true });
      const run = ingest.runs.find((r: any) => r.id === 'bench') ?? ingest.runs[0];
      const ingestBytes = run.progress.bytes_read as number;
      const calls = run.totals.calls as number;
      const scale = ingestBytes / b1.read_split_parse.bytes;
      const pairs = [[b1, ingest, b2], [b2, ingest2, b3]].map(([before, ing, after]) => {
        const wall = (before.read_split_parse.wall_ms + after.read_split_parse.wall_ms) / 2;
        const cpu = (before.read_split_parse.cpu_ms + after.read_split_parse.cpu_ms) / 2;
        return { baseline_wall_ms: round(wall), baseline_cpu_ms: round(cpu), ingest_wall_ms: round(ing.wall_ms), ingest_cpu_ms: round(ing.cpu_ms), ratio_wall: round((wall / ing.wall_ms) * scale), ratio_cpu: round((cpu / ing.cpu_ms) * scale) };
      });
      const baseWall = (b1.read_split_parse.wall_ms + b2.read_split_parse.wall_ms + b3.read_split_parse.wall_ms) / 3;
      const ingestWall = (ingest.wall_ms + ingest2.wall_ms) / 2;
      report.i1 = {
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
      report.i4_disk = {
        bytes: ingest.disk.sqlite + ingest.disk.wal,
        per_call: round((ingest.disk.sqlite + ingest.disk.wal) / calls, 1),
        ...ingest.disk,
        objects: ingest.objects,
      };
    }

    if (!args.skip.has('t2')) report.t2 = await measureT2(args.corpus, work, step);

    if (!args.skip.has('query')) step('I2 warm restart, A1 pages, A2 compare, raw by id, RSS (query child)');
    if (!args.skip.has('query')) report.query = await runChild('query', { corpus: args.corpus, indexDir, seed: args.seed, reps: args.reps, coldReps: quick ? 2 : 3 });

    if (!args.skip.has('huge')) {
      step(`I5 huge line (${args.huge_mb} MiB)`);
      const hugeRoot = path.join(work, 'huge-corpus');
      const [template] = templateLines(args.corpus, 1);
      const huge = writeHuge(hugeRoot, template, args.huge_mb, args.seed);
      const heapLimitMb = Math.max(96, Math.min(192, Math.floor(args.huge_mb * 0.75)));
      const hugeRes = await runChild('huge', { indexDir: path.join(work, 'huge-index'), huge }, [`--max-old-space-size=${heapLimitMb}`]);
      report.i5 = { huge, heap_limit_flag_mb: heapLimitMb, inprocess: hugeRes };
    }

    if (args.server) {
      try {
        if (report.i5) {
          step('I5/A3 through `callscope serve` (raw and call routes)');
          report.i5.server = await serverHuge(report.i5.huge, path.join(work, 'huge-index-serve'), report.i5.inprocess.body.bytes);
        }
        step('I2/I3/I4 through `callscope serve` over the corpus');
        if (!args.skip.has('server')) report.server = await serverCorpus(args.corpus, indexDir, { rate: args.live_rate, seconds: args.live_seconds, seed: args.seed, reps: Math.min(args.reps, 20) });
      } catch (err) {
        report.server_error = String((err as Error).message ?? err).slice(0, 4000);
        process.stderr.write(`bench: the parts through \`callscope serve\` failed; continuing without them\n${report.server_error}\n`);
      }
    }
    if (!args.skip.has('watcher')) {
      step('I3 diagnosis: the IndexWatcher alone over the corpus');
      report.i3_watcher = await runChild('watcher', { corpus: args.corpus });
    }
    if (!args.skip.has('live')) {
      step('I3 in-process (CallscopeIndex + IndexWatcher, polling listRollouts)');
      report.i3_inprocess = await runChild('live', { corpus: args.corpus, indexDir, seed: args.seed, live: { rate: args.live_rate, seconds: args.live_seconds } });
    }
  } finally {
    cleanLive(args.corpus);
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
  report.machine.load_average_end = os.loadavg();
  report.duration_s = round((now() - started) / 1000, 1);

  const rows = tableRows(report);
  report.table = rows;
  mkdirSync(path.join(ROOT, 'reports'), { recursive: true });
  const reportFile = path.resolve(ROOT, args.out ?? path.join('reports', 'bench-index.json'));
  writeFileSync(reportFile, JSON.stringify(report, null, 2) + '\n');
  printTable(rows);
  process.stdout.write(
    `\n${report.machine.cpu_model} x${report.machine.cpus}, ${fmtBytes(report.machine.total_memory_bytes)}, Node ${report.machine.node}, ${report.machine.commit.slice(0, 12)}, seed ${args.seed}; ` +
      `${report.corpus.calls} calls / ${report.corpus.rollouts} rollouts, ${fmtBytes(report.corpus.bytes)}; ${report.duration_s} s\nwrote ${path.relative(ROOT, reportFile)}\n`,
  );
}

/**
 * T2: cold ingest of the corpus with a trajectory on every rollout (as the collector writes them: payloads in
 * ng_trajectory) against the same corpus without, alternating (without, with, without, with) so that both see the
 * same machine; the ratio of the medians, wall and CPU.
 */
async function measureT2(corpus: string, work: string, step: (s: string) => void): Promise<Record<string, Json>> {
  const dest = `${corpus}-trajectories`;
  step(`T2 corpus with trajectories (${path.relative(ROOT, dest)})`);
  const made = await runChild('trajectories', { corpus, dest });
  const runs: Record<'without' | 'with', { wall_ms: number; cpu_ms: number; bytes_read: number }[]> = { without: [], with: [] };
  for (let i = 0; i < 4; i++) {
    const kind = i % 2 === 0 ? 'without' : 'with';
    step(`T2 cold ingest ${kind} trajectories, ${Math.floor(i / 2) + 1} of 2`);
    const indexDir = path.join(work, `t2-index-${i}`);
    const r = await runChild('ingest', { corpus: kind === 'with' ? dest : corpus, indexDir });
    rmSync(indexDir, { recursive: true, force: true });
    runs[kind].push({ wall_ms: round(r.wall_ms), cpu_ms: round(r.cpu_ms), bytes_read: r.runs.reduce((n: number, x: any) => n + x.progress.bytes_read, 0) });
  }
  const median = (xs: number[]) => pct(xs, 0.5);
  const m = (kind: 'without' | 'with', k: 'wall_ms' | 'cpu_ms') => median(runs[kind].map((r) => r[k]));
  return {
    corpus_with: { dir: dest, ...made, ...corpusStats(dest) },
    runs,
    ratio_wall: round(m('with', 'wall_ms') / m('without', 'wall_ms')),
    ratio_cpu: round(m('with', 'cpu_ms') / m('without', 'cpu_ms')),
  };
}

/**
 * `--index DIR`: the query figures (I2 warm, A1, A2, raw, RSS) and I4 over an index built before (e.g. kept with
 * `--keep`), without ingesting, writing into the corpus, or the serve/I3/I5 parts. Its stored compare figures are
 * dropped first, so the first compare is the one after a change.
 */
async function queryOnly(args: { index: string; corpus: string; seed: string; reps: number; quick: boolean; out: string | null }): Promise<void> {
  const started = now();
  const report: Record<string, any> = { benchmark: 'index (query only, --index)', started_at: new Date().toISOString(), machine: machine(), seed: args.seed, args };
  const Database = (await import('better-sqlite3')).default;
  const file = path.join(args.index, 'index.sqlite');
  {
    const db = new Database(file);
    const { migrate } = await import('../lib/index/schema');
    migrate(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    let objects: { name: string; bytes: number }[] = [];
    try {
      objects = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as typeof objects;
    } catch {
      // dbstat is not compiled in
    }
    const calls = (db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n;
    db.close();
    const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    const bytes = size(file) + size(file + '-wal');
    report.i4_disk = { bytes, per_call: round(bytes / calls, 1), calls, sqlite: size(file), wal: size(file + '-wal'), objects };
  }
  process.stderr.write('bench: I2 warm restart, A1 pages, A2 compare, raw by id, RSS (query child)\n');
  report.query = await runChild('query', { corpus: args.corpus, indexDir: args.index, seed: args.seed, reps: args.reps, coldReps: args.quick ? 2 : 3 });
  report.machine.load_average_end = os.loadavg();
  report.duration_s = round((now() - started) / 1000, 1);
  const q = report.query;
  const lines = [
    `I4 ${report.i4_disk.per_call} B/call (${fmtBytes(report.i4_disk.bytes)})`,
    `A2 compare ms p50/p95: first after open ${q.a2.cold_ms.join(', ')}; after a one-rollout change ${q.a2.after_change.p50}/${q.a2.after_change.p95}; warm ${q.a2.warm.p50}/${q.a2.warm.p95}`,
    ...Object.entries(q.a1 as Record<string, any>).map(
      ([name, c]) => `A1 ${name}${c.indexed ? '' : ' (not indexed)'}: depth 0 p50/p95 ${c.depth0.p50}/${c.depth0.p95} ms; half way ${c.deep ? `${c.deep.p50}/${c.deep.p95} ms` : 'n/a'} (total ${c.total})`,
    ),
  ];
  report.table = lines;
  const reportFile = path.resolve(ROOT, args.out ?? path.join('reports', 'bench-index-query.json'));
  mkdirSync(path.dirname(reportFile), { recursive: true });
  writeFileSync(reportFile, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(lines.join('\n') + `\n${report.machine.cpu_model} x${report.machine.cpus}, Node ${report.machine.node}, ${report.machine.commit.slice(0, 12)}; load ${report.machine.load_average_end.map((x: number) => x.toFixed(1)).join(' ')}; ${report.duration_s} s\nwrote ${path.relative(ROOT, reportFile)}\n`);
}

function liveFigure(l: any): string {
  if (l.visible === 0) return `none of ${l.appended} calls appended at ${Math.round(l.append_rate)}/s became visible (warm-up ${l.warmup_complete ? 'done' : 'timed out'} after ${Math.round(l.warmup_ms / 1000)} s)`;
  return `append → visible p50 ${Math.round(l.latency_ms.p50)} ms, p99 ${Math.round(l.latency_ms.p99)} ms at ${Math.round(l.append_rate)}/s; sustained ${Math.round(l.sustained_rate)} calls/s (${l.visible}/${l.appended} seen)`;
}

function liveVerdict(l: any): string {
  return verdict(l.visible === l.appended && l.latency_ms.p99 <= 500 && l.sustained_rate >= 1000);
}

function verdict(ok: boolean): string {
  return ok ? 'pass' : 'FAIL';
}

function tableRows(r: Record<string, any>): Row[] {
  const rows: Row[] = [];
  const t2 = r.t2;
  if (t2) rows.push({
    id: 'T2',
    figure: `cold ingest with a trajectory on every rollout ${t2.ratio_wall}× the time without (CPU ${t2.ratio_cpu}×; medians of 2 each, alternating; ${fmtBytes(t2.corpus_with.bytes)} with against ${fmtBytes(r.corpus.bytes)} without, ${t2.corpus_with.tool_calls} tool calls)`,
    target: '≤ 1.3×',
    result: verdict(t2.ratio_wall <= 1.3),
  });
  const i1 = r.i1;
  if (i1) rows.push({
    id: 'I1',
    figure: `ingest ${i1.ingest_mb_s} MB/s, ${Math.round(i1.ingest_calls_s)} calls/s; JSON.parse baseline ${i1.baseline_mb_s} MB/s (same run)${i1.pairs ? `; the two ingests against the baselines either side: ${i1.pairs.map((x: any) => `${x.ratio_wall}×`).join(', ')} wall (${i1.pairs.map((x: any) => `${Math.round(x.ingest_wall_ms / 100) / 10} s against ${Math.round(x.baseline_wall_ms / 100) / 10} s`).join('; ')})` : ''}${i1.ingest.compare_fill_ms !== undefined ? `; compare figures filled in the background ${Math.round(i1.ingest.compare_fill_ms)} ms after` : ''}`,
    target: '≥ 2× JSON.parse',
    result: `${i1.ratio_wall}× wall, ${i1.ratio_cpu}× cpu${i1.pairs ? ' (the lower pair)' : ''}: ${verdict(i1.ratio_wall >= 2)}`,
  });
  const q = r.query;
  const i2 = q?.i2;
  const noReread = i2?.progress_after_refresh.bytes_read === 0 && i2?.progress_after_refresh.files_read === 0;
  if (q) rows.push({
    id: 'I2',
    figure: `open → runs + first page ${i2.first_answer_ms} ms (full warm pass ${Math.round(i2.full_refresh_ms)} ms, ${i2.progress_after_refresh.bytes_read} B re-read)`,
    target: '≤ 2 s, 0 B re-read',
    result: verdict(i2.first_answer_ms <= 2000 && noReread),
  });
  if (r.server) {
    const s = r.server.i2;
    const reread = s.progress_when_ready.reduce((a: number, p: any) => a + p.bytes_read, 0);
    rows.push({
      id: 'I2 (serve)',
      figure: `spawn → listening ${Math.round(s.spawn_to_listen_ms)} ms → first 200 of /api/runs ${Math.round(s.spawn_to_first_200_ms)} ms; warm pass done ${Math.round(s.ready_after_first_200_ms)} ms later, ${reread} B re-read`,
      target: '≤ 2 s, 0 B re-read',
      result: s.dashboard_built ? 'n/a (timed a dashboard build)' : verdict(s.spawn_to_first_200_ms <= 2000 && reread === 0),
    });
    const l = r.server.i3;
    rows.push({ id: 'I3 (serve)', figure: `${liveFigure(l)} (poll of the list API)`, target: 'p99 ≤ 500 ms, ≥ 1,000 calls/s', result: liveVerdict(l) });
  }
  if (r.i3_inprocess) {
    const l = r.i3_inprocess;
    rows.push({ id: 'I3 (index)', figure: `${liveFigure(l)} (in-process listRollouts)`, target: 'p99 ≤ 500 ms, ≥ 1,000 calls/s', result: liveVerdict(l) });
  }
  if (r.i3_watcher) {
    const w = r.i3_watcher;
    const ms = (x: number | null) => (x === null ? 'never' : `${Math.round(x)} ms`);
    rows.push({
      id: 'I3 (watch)',
      figure:
        `IndexWatcher alone: ready ${(w.ready_ms / 1000).toFixed(1)} s, +${fmtBytes(w.rss_after_ready - w.rss_before)} RSS, ${w.inotify_watches} inotify watches; ` +
        `new file → refreshPaths ${ms(w.create_to_refresh_ms)}, append → ${ms(w.append_to_refresh_ms)} (plain fs.watch of the dir: ${ms(w.create_plain_fs_watch_ms)} / ${ms(w.append_plain_fs_watch_ms)})`,
      target: '(diagnosis)',
      result: 'info',
    });
  }
  const d = r.i4_disk;
  if (d) rows.push({ id: 'I4 disk', figure: `${d.per_call} B/call (${fmtBytes(d.bytes)} for ${i1.calls} calls, after checkpoint)`, target: '≤ 300 B/call', result: verdict(d.per_call <= 300) });
  const qm = q?.memory ?? { rss: 0, max_rss_bytes: 0 };
  const rss = qm.rss;
  if (q || r.server) rows.push({
    id: 'I4 RSS',
    figure: `${q ? `query process ${fmtBytes(rss)} RSS (peak ${fmtBytes(qm.max_rss_bytes)}) after all queries` : '(query child skipped)'}${r.server ? `; serve ${fmtBytes(r.server.memory_after_live.rss_kb * 1024)} (peak ${fmtBytes(r.server.memory_after_live.hwm_kb * 1024)})` : ''}`,
    target: '≤ 500 MB',
    result: verdict(rss <= 500 * MB && (!r.server || r.server.memory_after_live.rss_kb * 1024 <= 500 * MB)),
  });
  if (!r.i5) {
    if (q) rows.push(...queryRows(q));
    return rows;
  }
  const h = r.i5.inprocess;
  const hugeOk = Object.values(h.checks).every(Boolean) && (!r.i5.server || (r.i5.server.raw.sha256_ok && r.i5.server.body.length_ok));
  rows.push({
    id: 'I5',
    figure: `${fmtBytes(r.i5.huge.lineBytes)} line indexed in ${Math.round(h.ingest_ms)} ms and served (checks ${Object.values(h.checks).every(Boolean) ? 'ok' : 'FAILED'}), heap limit ${r.i5.heap_limit_flag_mb} MB; peak heapUsed ${fmtBytes(h.memory.sampled_peak.heapUsed)}, peak RSS ${fmtBytes(h.memory.max_rss_bytes)}`,
    target: 'indexed + served, no whole-line string',
    result: verdict(hugeOk),
  });
  if (q) rows.push(...queryRows(q));
  const raw = h.raw;
  const enc = r.i5.server?.raw_by_accept_encoding;
  rows.push({
    id: 'A3',
    figure:
      `raw ${fmtBytes(raw.bytes)} line: ${Math.round(raw.mb_s)} MB/s read from its span in-process` +
      (enc
        ? `; GET .../raw received by ${enc.identity.client ?? 'node:http'}: ${Math.round(enc.identity.payload_mb_s)} MB/s uncompressed, ${Math.round(enc.browser.payload_mb_s)} MB/s when gzip is accepted (${enc.browser.content_encoding ?? 'none'})` +
          (enc.bare_node_http ? `, bare node:http pipe of the same span ${Math.round(enc.bare_node_http.payload_mb_s)} MB/s` : '')
        : '') +
      (q ? `; small raw p50 ${q.raw_small.p50} ms` : ''),
    target: '≥ 500 MB/s',
    result: enc
      ? `span ${verdict(raw.mb_s >= 500)}, http ${verdict(enc.identity.payload_mb_s >= 500)}, http+gzip ${verdict(enc.browser.payload_mb_s >= 500)}`
      : verdict(raw.mb_s >= 500),
  });
  return rows;
}

function queryRows(q: Record<string, any>): Row[] {
  const rows: Row[] = [];
  let worst = 0;
  let worstName = '';
  let worstAll = 0;
  for (const [name, c] of Object.entries(q.a1 as Record<string, any>)) {
    for (const p95 of [c.depth0.p95, c.deep?.p95 ?? 0]) {
      if (c.indexed && p95 > worst) {
        worst = p95;
        worstName = name;
      }
      worstAll = Math.max(worstAll, p95);
    }
  }
  const a1 = q.a1 as Record<string, any>;
  const first = a1['tokens_total desc'];
  rows.push({
    id: 'A1',
    figure: `page of 50: tokens_total desc p95 ${first.depth0.p95} ms (depth 0) / ${first.deep?.p95} ms (half way); worst p95 ${worst} ms (${worstName})`,
    target: 'p95 ≤ 50 ms, any depth',
    result: verdict(worst <= 50),
  });
  rows.push({
    id: 'A2',
    figure: `compare p50/p95 cold ${Math.round(q.a2.cold.p50)}/${Math.round(q.a2.cold.p95)} ms (n=${q.a2.cold.n}), warm ${Math.round(q.a2.warm.p50)}/${Math.round(q.a2.warm.p95)} ms, after a one-rollout change ${Math.round(q.a2.after_change.p50)}/${Math.round(q.a2.after_change.p95)} ms`,
    target: 'p95 ≤ 200 ms',
    result: `cold ${verdict(q.a2.cold.p95 <= 200)}, warm ${verdict(q.a2.warm.p95 <= 200)}, after a change ${verdict(q.a2.after_change.p95 <= 200)}`,
  });
  if (q.k1) {
    const views = Object.entries(q.k1.views as Record<string, any>);
    const worst = views.reduce((w, [name, v]) => (v.p95 > w.p95 ? { name, p95: v.p95 } : w), { name: '', p95: 0 });
    const after = q.k1.after_pass;
    rows.push({
      id: 'K1',
      figure:
        `Tasks API first page of 100 over ${q.k1.tasks} tasks (${q.k1.rollouts_in_groups} rollouts): the first page after a pass p95 ${after.p95} ms (n=${after.n}; the groups built in the background in ${Math.round(q.k1.background_build.p50)} ms); ` +
        `pages of five views p95 ≤ ${worst.p95} ms (${worst.name}); a first page asked before any build, which builds the groups itself, ${Math.round(q.k1.unbuilt.p50)} ms median`,
      target: 'p95 ≤ 100 ms',
      result: verdict(worst.p95 <= 100 && after.p95 <= 100),
    });
  }
  return rows;
}

function printTable(rows: Row[]): void {
  const w = { id: 10, figure: 0, target: 0 };
  for (const r of rows) {
    w.id = Math.max(w.id, r.id.length);
    w.target = Math.max(w.target, r.target.length);
  }
  process.stdout.write(`\n${'id'.padEnd(w.id)}  ${'target'.padEnd(w.target)}  result  |  figure\n`);
  for (const r of rows) process.stdout.write(`${r.id.padEnd(w.id)}  ${r.target.padEnd(w.target)}  ${r.result}  |  ${r.figure}\n`);
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  runChildRole(process.argv[childAt + 1], process.argv[childAt + 2]).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
