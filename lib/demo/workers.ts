// Shards in worker threads, for large corpora: generation is CPU-bound (JSON serialize and parse), so two
// threads roughly double the rate. The sources are TypeScript, so each worker first registers tsx's loader
// (hooks are per thread in Node 20). Results flow back under credit-based flow control, so a fast worker
// can run at most CREDIT results ahead of what the writer has consumed: memory stays bounded.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ShardJob, ShardResult } from './shard';

export const CREDIT = 32;

export type WorkerMessage =
  | { type: 'result'; result: ShardResult }
  | { type: 'done' }
  | { type: 'error'; message: string };

/** tsx's ESM API entry (the package's `import` export), resolved from this project. */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('tsx/package.json');
  const exported = (require(pkgPath) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'];
  return pathToFileURL(path.join(path.dirname(pkgPath), exported.import.default)).href;
}

function spawn(job: ShardJob): Worker {
  const entry = new URL('./shard-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApiUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: job });
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
