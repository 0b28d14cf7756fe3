// One shard of a run: the rollouts with dispatch index ≡ shard (mod shards), on the shard's own share of the
// collection job's worker slots. A shard writes its rollouts' capture files, post-processes each line exactly as
// NeMo Gym's collector does (the merge, reading the file back through the tolerant reader; for runs with
// trajectories the whole collector path of lib/rollouts/collect-line.ts), and yields the serialized rollout
// lines in its dispatch order. Shards depend only on the seed and the job, never on
// each other or on timing, so running them in worker threads or in-process gives the same bytes.
import path from 'node:path';
import { mergeCaptureIntoLine } from '../rollouts/merge-capture';
import { serialize } from '../capture/json-serialize';
import { collectRolloutLine } from '../rollouts/collect-line';
import { MinHeap } from '../util/min-heap';
import { Rng } from './random';
import { rolloutIdOf, simulateRollout, simulateRolloutStream, type SimulatedRolloutEnd } from './rollout';
import type { SimulatedRollout } from './rollout-trace';
import { benchRun, defaultRuns, runSpecs, type RunDef, type Special } from './runs';
import type { RolloutSpec } from './scenario';
import { writeCaptureFile, writeCaptureStream } from './writer';

/** A run named so that a worker thread can rebuild its definition (definitions hold functions). */
export type RunSelector = { bench: { rollouts: number; calls: number } } | { name: string };

export interface ShardJob {
  seed: string;
  run: RunSelector;
  shard: number;
  shards: number;
  /** The run's capture dir (created by the caller). */
  captureDir: string;
}

export interface ShardResult {
  /** Dispatch order across the whole run (retries after all first attempts). */
  order: number;
  endAt: number;
  /** The serialized rollout line with its newline, or null for a run without a rollouts file. */
  text: string | null;
  failed: boolean;
  calls: number;
  captureBytes: number;
}

export function resolveRun(selector: RunSelector): RunDef {
  if ('bench' in selector) return benchRun(selector.bench.rollouts, selector.bench.calls);
  const run = defaultRuns().find((r) => r.name === selector.name);
  if (!run) throw new Error(`unknown demo run ${selector.name}`);
  return run;
}

export function runRng(seed: string, run: RunDef): Rng {
  return new Rng(`callscope-demo/${seed}`).fork(run.sameTasksAs ?? run.name);
}

// Writing a capture file and reading it back is I/O; a short pipeline keeps the disk busy while the next
// rollouts are simulated. Results are still taken in dispatch order.
const PIPELINE_DEPTH = 8;
// A rollout of this many calls or more is written while it is simulated, a turn at a time: held whole, the exchanges
// of a 30,000-call rollout do not fit in a worker's heap.
const STREAM_CALLS = 1000;

export async function* runShard(job: ShardJob): AsyncGenerator<ShardResult> {
  const run = resolveRun(job.run);
  const rng = runRng(job.seed, run);
  const hasRollouts = run.layout !== 'captures-only';

  const persist = async (sim: SimulatedRollout, special: Special, order: number): Promise<ShardResult> => {
    const captureBytes = await writeCaptureFile(job.captureDir, sim.rolloutId, sim.exchanges, special.damage);
    const calls = sim.exchanges.length - (special.damage === 'lost_call' && sim.exchanges.length ? 1 : 0);
    return attach(sim, special, order, calls, captureBytes);
  };

  const attach = async (sim: Omit<SimulatedRolloutEnd, 'calls'>, special: Special, order: number, calls: number, captureBytes: number): Promise<ShardResult> => {
    const result = { order, endAt: sim.endAt, text: null, failed: sim.failed, calls, captureBytes };
    if (!hasRollouts) return result;
    // An uncollected line stays the agent's own, as it was before the collector merged anything into it.
    if (run.trajectories && !special.uncollected) await collectRolloutLine(sim.line, [job.captureDir]);
    else if (!special.uncollected) await mergeCaptureIntoLine(sim.line, [job.captureDir], false);
    return { ...result, text: serialize(sim.line) + '\n' };
  };

  const inflight: Promise<ShardResult>[] = [];
  const start = (spec: RolloutSpec, special: Special, order: number): SimulatedRolloutEnd => {
    let sim: SimulatedRolloutEnd;
    let persisted: Promise<ShardResult>;
    if ((spec.calls ?? 0) >= STREAM_CALLS && !special.damage && !run.trajectories) {
      const written = writeCaptureStream(job.captureDir, rolloutIdOf(spec), simulateRolloutStream(spec, rng));
      sim = written.end;
      persisted = attach(sim, special, order, sim.calls, written.bytes);
    } else {
      const whole = simulateRollout(spec, rng);
      sim = { ...whole, calls: whole.exchanges.length };
      persisted = persist(whole, special, order);
    }
    persisted.catch(() => undefined); // awaited in order below; this only keeps an early rejection handled
    inflight.push(persisted);
    return sim;
  };

  const plan = dispatch(run, job);
  for (let next = plan.next(); !next.done; ) {
    const { spec, special, order } = next.value;
    const sim = start(spec, special, order);
    next = plan.next({ endAt: sim.endAt, failed: sim.failed });
    if (inflight.length >= PIPELINE_DEPTH) yield await inflight.shift()!;
  }
  while (inflight.length) yield await inflight.shift()!;
}

export interface Dispatched {
  spec: RolloutSpec;
  special: Special;
  /** Dispatch order across the whole run (retries after all first attempts). */
  order: number;
}

/**
 * A shard's rollouts in dispatch order, each starting when one of the shard's worker slots frees up: the caller
 * simulates each and reports back how it ended through `next({endAt, failed})`. The timeline depends on nothing else.
 */
export function* dispatch(run: RunDef, job: Pick<ShardJob, 'shard' | 'shards'>): Generator<Dispatched, void, { endAt: number; failed: boolean }> {
  const slots = new MinHeap<number>((a, b) => a < b);
  for (let i = job.shard; i < run.concurrency; i += job.shards) slots.push(run.startAt + i * 0.7);
  const retries: { spec: Omit<RolloutSpec, 'startAt'>; order: number }[] = [];
  let lastEnd = run.startAt;
  let order = 0;
  for (const { spec, special } of runSpecs(run)) {
    const index = order++;
    if (index % job.shards !== job.shard) continue;
    const ended = yield { spec: { ...spec, startAt: slots.pop()! }, special, order: index };
    slots.push(ended.endAt + 0.05);
    lastEnd = Math.max(lastEnd, ended.endAt);
    if (ended.failed) retries.push({ spec: { ...spec, attempt: 1, failAfterTurns: undefined }, order: index });
  }
  // `gym eval run --resume` later retries the failed attempts with `_ng_attempt_index: 1`.
  let resumeAt = lastEnd + 1800;
  for (const retry of retries) resumeAt = (yield { spec: { ...retry.spec, startAt: resumeAt }, special: {}, order: order + retry.order }).endAt + 1;
}

/** The capture dir of a run inside the staging dir (a rollouts-only run's captures go to a scratch dir). */
export function captureDirOf(staging: string, run: RunDef): string {
  return run.layout === 'rollouts-only' ? path.join(staging, '.scratch', run.name) : path.join(staging, run.name, 'captures');
}
