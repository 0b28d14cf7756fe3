// `callscope demo`: writes the demo data set. Everything is generated into a staging directory beside the
// target and renamed into place at the end, so the target never holds a half-written data set (the server
// treats the `.callscope-demo` marker as "the demo is there"). Each run's rollouts come from its shards
// (shard.ts), in-process or in worker threads; their lines pass through a small reorder window so that the
// rollouts file is in completion order, and are streamed to disk with backpressure. Memory stays bounded
// whatever the size.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { serialize } from '../capture/json-serialize';
import { MinHeap } from '../util/min-heap';
import { defaultRuns, type RunDef } from './runs';
import { captureDirOf, resolveRun, runShard, type RunSelector, type ShardJob, type ShardResult } from './shard';
import { workerShard } from './workers';
import { LineWriter } from './writer';

export const DEMO_MARKER = '.callscope-demo';
export const DEFAULT_SEED = 'callscope';
const REORDER_WINDOW = 64;
const WORKER_THRESHOLD_CALLS = 20_000;

export interface DemoOptions {
  out: string;
  seed?: string;
  /** With either sizing option, one run named `bench` of exactly this many rollouts and calls. */
  rollouts?: number;
  calls?: number;
  /** Run the shards of a sharded run in worker threads (default: for corpora of 20,000 calls or more). */
  workers?: boolean;
}

export interface RunSummary {
  name: string;
  layout: RunDef['layout'];
  rollouts: number;
  failedAttempts: number;
  calls: number;
  bytes: number;
}

export interface DemoSummary {
  out: string;
  runs: RunSummary[];
  rollouts: number;
  calls: number;
  bytes: number;
}

/** The target is unusable (a file, or a directory holding data the demo did not write). */
export class DemoOutputError extends Error {}

/** Refuses anything but a missing path, an empty directory, or a directory the demo wrote before. */
export async function checkOutput(out: string): Promise<'absent' | 'empty' | 'demo'> {
  const stat = await fsp.stat(out).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw new DemoOutputError(`--out ${out}: ${err.code === 'ENOTDIR' ? 'a parent is not a directory' : err.message}`);
  });
  if (!stat) return 'absent';
  if (!stat.isDirectory()) throw new DemoOutputError(`--out ${out} exists and is not a directory`);
  const entries = await fsp.readdir(out);
  if (entries.length === 0) return 'empty';
  if (entries.includes(DEMO_MARKER)) return 'demo';
  throw new DemoOutputError(`--out ${out} is a non-empty directory not written by callscope demo (no ${DEMO_MARKER}); choose another path`);
}

/** Sizing: either flag alone implies the other (about eight calls per rollout). */
export function sizing(options: DemoOptions): { rollouts: number; calls: number } | null {
  if (options.rollouts === undefined && options.calls === undefined) return null;
  const rollouts = options.rollouts ?? Math.max(1, Math.ceil((options.calls ?? 0) / 8));
  return { rollouts, calls: options.calls ?? rollouts * 8 };
}

export async function generateDemo(options: DemoOptions): Promise<DemoSummary> {
  const out = path.resolve(options.out);
  const state = await checkOutput(out);
  const seed = options.seed ?? DEFAULT_SEED;
  const size = sizing(options);
  const selectors: RunSelector[] = size ? [{ bench: size }] : defaultRuns().map((r) => ({ name: r.name }));
  const runs = selectors.map((selector) => ({ run: resolveRun(selector), selector }));
  const useWorkers = options.workers ?? (size !== null && size.calls >= WORKER_THRESHOLD_CALLS);
  let staging: string;
  try {
    await fsp.mkdir(path.dirname(out), { recursive: true });
    staging = await fsp.mkdtemp(path.join(path.dirname(out), `.${path.basename(out)}.demo-`));
    await fsp.chmod(staging, 0o755);
  } catch (err) {
    throw new DemoOutputError(`--out ${out}: cannot write there (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    const summaries: RunSummary[] = [];
    for (const { run, selector } of runs) summaries.push(await writeRun(staging, run, selector, seed, useWorkers));
    await fsp.rm(path.join(staging, '.scratch'), { recursive: true, force: true });
    const marker = serialize({ generator: 'callscope demo', seed, rollouts: size?.rollouts ?? null, calls: size?.calls ?? null }) + '\n';
    await fsp.writeFile(path.join(staging, DEMO_MARKER), marker);
    if (state === 'demo') {
      for (const entry of await fsp.readdir(out)) await fsp.rm(path.join(out, entry), { recursive: true, force: true });
    }
    await fsp.rename(staging, out); // onto a missing path or an empty directory
    const sum = (f: (r: RunSummary) => number) => summaries.reduce((n, r) => n + f(r), 0);
    return { out, runs: summaries, rollouts: sum((r) => r.rollouts), calls: sum((r) => r.calls), bytes: sum((r) => r.bytes) + Buffer.byteLength(marker) };
  } catch (err) {
    await fsp.rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Pulls the shards' results round-robin: a fixed order, whatever thread produced them. */
async function* interleave(shards: AsyncGenerator<ShardResult>[]): AsyncGenerator<ShardResult> {
  const live = [...shards];
  try {
    while (live.length) {
      for (let i = 0; i < live.length; ) {
        const next = await live[i].next();
        if (next.done) live.splice(i, 1);
        else {
          yield next.value;
          i++;
        }
      }
    }
  } finally {
    await Promise.all(live.map((g) => g.return(undefined)));
  }
}

async function writeRun(staging: string, run: RunDef, selector: RunSelector, seed: string, useWorkers: boolean): Promise<RunSummary> {
  const runDir = path.join(staging, run.name);
  const captureDir = captureDirOf(staging, run);
  await fsp.mkdir(runDir, { recursive: true });
  await fsp.mkdir(captureDir, { recursive: true });
  const summary: RunSummary = { name: run.name, layout: run.layout, rollouts: 0, failedAttempts: 0, calls: 0, bytes: 0 };
  const rolloutsFile = run.layout === 'captures-only' ? null : new LineWriter(path.join(runDir, 'rollouts.jsonl'));
  let failuresFile: LineWriter | null = null;
  // Rollouts finish out of dispatch order; a small window turns dispatch order into completion order.
  const window = new MinHeap<ShardResult>((a, b) => a.endAt < b.endAt || (a.endAt === b.endAt && a.order < b.order));
  const emit = async (r: ShardResult) => {
    if (r.text === null) return;
    if (r.failed) {
      failuresFile ??= new LineWriter(path.join(runDir, 'rollouts_failures.jsonl'));
      await failuresFile.write(r.text);
    } else {
      await rolloutsFile?.write(r.text);
    }
  };
  const jobs: ShardJob[] = Array.from({ length: run.shards }, (_, shard) => ({ seed, run: selector, shard, shards: run.shards, captureDir }));
  const sources = jobs.map((job) => (useWorkers && jobs.length > 1 ? workerShard(job) : runShard(job)));
  try {
    for await (const result of interleave(sources)) {
      summary.calls += result.calls;
      if (run.layout !== 'rollouts-only') summary.bytes += result.captureBytes;
      if (result.failed) summary.failedAttempts++;
      else summary.rollouts++;
      window.push(result);
      while (window.size > REORDER_WINDOW) await emit(window.pop()!);
    }
    while (window.size) await emit(window.pop()!);
  } finally {
    await rolloutsFile?.close();
    await (failuresFile as LineWriter | null)?.close();
  }
  summary.bytes += (rolloutsFile?.bytes ?? 0) + ((failuresFile as LineWriter | null)?.bytes ?? 0);
  return summary;
}
