// Shards in worker threads, for large corpora: generation is CPU-bound (JSON serialize and parse), so two
// threads roughly double the rate (the sources are TypeScript: util/ts-worker.ts). Results flow back under credit-based flow control, so a fast worker
// can run at most CREDIT results ahead of what the writer has consumed: memory stays bounded.
import type { Worker } from 'node:worker_threads';
import { tsWorker } from '../util/ts-worker';
import type { ShardJob, ShardResult } from './shard';

export const CREDIT = 32;

export type WorkerMessage =
  | { type: 'result'; result: ShardResult }
  | { type: 'done' }
  | { type: 'error'; message: string };

function spawn(job: ShardJob): Worker {
  return tsWorker(new URL('./shard-worker.ts', import.meta.url), { workerData: job });
}

/** Runs a shard in a worker thread; its results arrive in the shard's order. */
export async function* workerShard(job: ShardJob): AsyncGenerator<ShardResult> {
  const worker = spawn(job);
  const queue: WorkerMessage[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  worker.on('message', (m: WorkerMessage) => {
    queue.push(m);
    notify();
  });
  worker.on('error', (err) => {
    failure = err;
    notify();
  });
  worker.on('exit', (code) => {
    if (code !== 0) failure ??= new Error(`demo worker exited with code ${code}`);
    queue.push({ type: 'done' });
    notify();
  });
  try {
    for (;;) {
      if (failure) throw failure;
      const m = queue.shift();
      if (!m) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if (m.type === 'error') throw new Error(`demo worker: ${m.message}`);
      if (m.type === 'done') return;
      worker.postMessage({ type: 'credit', n: 1 });
      yield m.result;
    }
  } finally {
    await worker.terminate();
  }
}
