// Parallel cold ingest: worker threads read and scan files (the pure part, capture-file.ts) while the main
// thread only writes the index. Results come back as plain values and are applied strictly in job order, so
// the index a parallel ingest builds is the single-thread one, row for row (tests/unit/index/ingest/parallel.test.ts).
//
// Workers cost a start-up (a thread, the TypeScript loader, the scanner modules), so only a pass with many
// files new to the index uses them; the live path and small refreshes never do. Any worker that cannot start
// leaves the pass single-threaded, and the pass does not wait for them to load: this thread runs the jobs until
// one is ready. A job whose worker fails is redone in-thread by the caller.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { tsWorker } from '../../util/ts-worker';
import { runJob, type JobResult, type WorkerJob } from './job';

export interface IngestOptions {
  /** Worker threads for a large pass (0: never). Default: CALLSCOPE_INGEST_WORKERS, else one fewer than the cores (at most 4). */
  workers?: number;
  /** Files new to the index a capture dir needs before a pass uses workers. */
  minFiles?: number;
  /** Bytes to read a rollouts file needs before a pass uses workers. */
  minBytes?: number;
  /** Bytes of a rollouts file per worker job. */
  sliceBytes?: number;
  /**
   * Wait for the workers to load before the pass goes on (else this thread runs the jobs until they have):
   * for tests that need jobs to reach a worker.
   */
  awaitWorkers?: boolean;
}

export const DEFAULT_MIN_FILES = 256;
export const DEFAULT_MIN_BYTES = 32 << 20;
export const DEFAULT_SLICE_BYTES = 4 << 20;
/** Capture files per job: about a millisecond of scanning at the least, so that messages stay cheap. */
export const FILES_PER_JOB = 32;
/**
 * Jobs in flight per worker: keeps workers busy while the main thread writes (or runs a job itself), and bounds
 * held results. In a cold ingest of 1M calls fewer were slower and more no faster, at the same peak memory.
 */
const JOBS_PER_WORKER = 8;
const START_TIMEOUT_MS = 20_000;

export function workerCount(options: IngestOptions): number {
  if (options.workers !== undefined) return options.workers;
  const env = process.env.CALLSCOPE_INGEST_WORKERS;
  if (env !== undefined && env !== '' && Number.isInteger(Number(env)) && Number(env) >= 0) return Number(env);
  // One core stays for the main thread, which writes every result to SQLite; more threads than cores was
  // measured slower (a 2-core machine with 2 workers, against one thread).
  return Math.max(0, Math.min(availableParallelism() - 1, 4));
}

interface Slot {
  worker: Worker;
  busy: number;
  dead: boolean;
  /** Its modules are loaded (it said so): only then does it get jobs. */
  ready: boolean;
}

export class IngestPool {
  private readonly waiting = new Map<number, { slot: Slot; resolve: (r: JobResult) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private readonly readyListeners: (() => void)[] = [];

  private constructor(private readonly slots: Slot[]) {
    for (const slot of slots) {
      // A worker loads TypeScript and the scanners first (about half a second): until it says it is ready, the
      // calling thread runs the jobs itself instead of waiting for it. One that is not ready in time is stopped.
      const timer = setTimeout(() => void (slot.ready || slot.worker.terminate().catch(() => 0)), START_TIMEOUT_MS);
      slot.worker.on('message', (msg: { id: number; result?: JobResult; error?: string; ready?: boolean }) => {
        if (msg?.ready) {
          clearTimeout(timer);
          slot.ready = !slot.dead;
          for (const listener of this.readyListeners) listener();
          return;
        }
        const w = this.waiting.get(msg.id);
        if (!w) return;
        this.waiting.delete(msg.id);
        slot.busy--;
        if (msg.result) w.resolve(msg.result);
        else w.reject(new Error(msg.error ?? 'ingest worker failed'));
      });
      const fail = (err: Error) => {
        clearTimeout(timer);
        slot.dead = true;
        for (const [id, w] of this.waiting) {
          if (w.slot !== slot) continue;
          this.waiting.delete(id);
          w.reject(err);
        }
      };
      slot.worker.on('error', fail);
      slot.worker.on('exit', () => fail(new Error('ingest worker exited')));
    }
  }

  /**
   * Starts `size` workers and answers at once, before they are ready (jobs go to each once it is); null when none
   * could be created (the caller ingests in-thread). Workers started ahead of it (warmIngestPool) are taken instead.
   */
  static async start(size: number): Promise<IngestPool | null> {
    if (warm && warm.size === size) {
      const taken = warm;
      warm = null;
      clearTimeout(taken.timer);
      const pool = await taken.pool;
      pool?.hold(true);
      return pool;
    }
    return IngestPool.create(size);
  }

  /** Starts `size` workers (start, without taking warm ones). */
  static async create(size: number): Promise<IngestPool | null> {
    if (size < 1) return null;
    // Built from a path rather than `new URL('./…', import.meta.url)`, which bundlers rewrite into an asset: from a
    // bundle (Next's server chunks, dist/cli) the worker sources are not beside it, no worker starts, and the
    // pass runs in-thread.
    const entry = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker.ts'));
    const slots: Slot[] = [];
    for (let k = 0; k < size; k++) {
      try {
        slots.push({ worker: tsWorker(entry), busy: 0, dead: false, ready: false });
      } catch {
        // this one cannot start
      }
    }
    return slots.length ? new IngestPool(slots) : null;
  }

  /** Live workers, ready or still loading. */
  get size(): number {
    return this.slots.filter((s) => !s.dead).length;
  }

  /** Live workers that are ready. */
  get readySize(): number {
    return this.slots.filter((s) => s.ready && !s.dead).length;
  }

  /** Results a caller may hold: as many as the live workers would have in flight. */
  get window(): number {
    return Math.max(1, this.size) * JOBS_PER_WORKER;
  }

  /** Resolves once every live worker is ready (or has failed). */
  ready(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => this.slots.every((slot) => slot.ready || slot.dead) && resolve();
      this.readyListeners.push(check);
      for (const slot of this.slots) slot.worker.once('exit', check);
      check();
    });
  }

  /** Calls `listener` each time a worker becomes ready. */
  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  /** Runs a job on the least busy ready worker; rejects when none is or the worker fails. */
  run(job: WorkerJob): Promise<JobResult> {
    let best: Slot | null = null;
    for (const s of this.slots) if (s.ready && !s.dead && (!best || s.busy < best.busy)) best = s;
    if (!best) return Promise.reject(new Error('no ingest worker ready'));
    const slot = best;
    const id = this.nextId++;
    slot.busy++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { slot, resolve, reject });
      slot.worker.postMessage({ id, job });
    });
  }

  /** Whether the workers keep the process alive (not while they wait, warm, for a pass that may never come). */
  hold(keep: boolean): void {
    for (const s of this.slots) {
      if (keep) s.worker.ref();
      else s.worker.unref();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate().catch(() => 0)));
  }
}

/** Workers started ahead of a pass: their modules load while the index opens (some half a second of a core). */
let warm: { size: number; pool: Promise<IngestPool | null>; timer: NodeJS.Timeout } | null = null;
/** Warm workers no pass has taken by then are stopped. */
const WARM_MS = 30_000;

/**
 * Starts the ingest workers `options` asks for ahead of the pass that will take them (the next IngestPool.start of
 * that size), so that they are ready when it begins: for an index that is about to read a large run for the first
 * time. Workers no pass takes within WARM_MS, or by dropWarmIngestPool, are stopped.
 */
export function warmIngestPool(options: IngestOptions): void {
  const size = workerCount(options);
  if (warm || size < 1) return;
  const pool = IngestPool.create(size);
  void pool.then((p) => p?.hold(false));
  warm = { size, pool, timer: setTimeout(dropWarmIngestPool, WARM_MS) };
  warm.timer.unref();
}

/** Stops the warm workers no pass has taken. */
export function dropWarmIngestPool(): void {
  if (!warm) return;
  const dropped = warm;
  warm = null;
  clearTimeout(dropped.timer);
  void dropped.pool.then((p) => p?.close());
}

/**
 * Jobs run on a pool with a bounded number in flight, their results taken strictly in job order. A job
 * whose worker failed yields a null result: the caller does that job in-thread. While the next result in
 * order is not there, the calling (main) thread runs jobs not yet sent out itself rather than wait: with the
 * writes it does, it and the workers keep every core busy.
 */
export class OrderedJobs<J> {
  private readonly queue: { job: J; settled: boolean; result: JobResult | null; promise: Promise<void> }[] = [];
  private readonly jobs: J[];
  private next = 0;
  /** Jobs sent to workers and not answered yet. */
  private inFlight = 0;

  /** Jobs each worker may have in flight (results held: twice as many as the live workers may have). */
  private readonly perWorker: number;

  constructor(
    private readonly pool: IngestPool,
    jobs: readonly J[],
    private readonly message: (job: J) => WorkerJob,
    perWorker = JOBS_PER_WORKER,
  ) {
    this.perWorker = perWorker;
    this.jobs = [...jobs];
    pool.onReady(() => this.fill());
    this.fill();
  }

  /** More jobs, after those given so far (a caller that adds jobs as results come takes them one by one, not in groups). */
  add(...jobs: J[]): void {
    for (const job of jobs) this.jobs.push(job);
    this.fill();
  }

  get done(): boolean {
    return this.queue.length === 0 && this.next >= this.jobs.length;
  }

  /** Whether the next result in order has arrived (it can be taken without waiting). */
  get headReady(): boolean {
    return this.queue.length > 0 && this.queue[0].settled;
  }

  async take(): Promise<{ job: J; result: JobResult | null }> {
    // Results held are bounded: the workers' window, and as much again run here.
    // (Nothing in flight, with no worker ready yet: every job runs here until one is.)
    while ((this.queue.length === 0 || !this.queue[0].settled) && this.next < this.jobs.length && this.queue.length < this.maxHeld) {
      const job = this.jobs[this.next++];
      let result: JobResult | null = null;
      try {
        result = runJob(this.message(job), false);
      } catch {
        // the caller redoes a job without a result
      }
      this.queue.push({ job, settled: true, result, promise: Promise.resolve() });
      await yieldToLoop(); // the workers' answers are taken in
    }
    await this.queue[0].promise;
    return this.takeReady();
  }

  /** Results held at most: the live workers' jobs in flight, and as many again. */
  private get maxHeld(): number {
    return 2 * Math.max(1, this.pool.size) * this.perWorker;
  }

  /**
   * Results in order, in groups: what arrived within about `periodMs` (at most `maxJobs`), so that the caller
   * writes each group in one transaction (fewer, larger commits).
   */
  async *groups(periodMs: number, maxJobs = this.pool.window): AsyncGenerator<{ job: J; result: JobResult | null }[]> {
    let since = performance.now();
    let held: { job: J; result: JobResult | null }[] = [];
    while (!this.done) {
      held.push(await this.take());
      while (this.headReady && held.length < maxJobs) held.push(this.takeReady());
      if (!this.done && held.length < maxJobs && performance.now() - since < periodMs) continue;
      yield held;
      held = [];
      since = performance.now();
    }
  }

  /** The next result in order; only when `headReady`. */
  takeReady(): { job: J; result: JobResult | null } {
    const head = this.queue.shift()!;
    this.fill();
    return { job: head.job, result: head.result };
  }

  private fill(): void {
    while (this.next < this.jobs.length && this.inFlight < this.pool.readySize * this.perWorker && this.queue.length < this.maxHeld) {
      const job = this.jobs[this.next++];
      const entry = { job, settled: false, result: null as JobResult | null, promise: Promise.resolve() };
      this.inFlight++;
      const settle = (r: JobResult | null) => {
        entry.result = r;
        entry.settled = true;
        this.inFlight--;
        this.fill();
      };
      entry.promise = this.pool.run(this.message(job)).then(settle, () => settle(null));
      this.queue.push(entry);
    }
  }
}
