// Worker-thread entry of a demo shard (see workers.ts): runs the shard from `workerData` and posts each
// result, waiting for credit from the writer so that it never runs too far ahead.
import { parentPort, workerData } from 'node:worker_threads';
import { runShard, type ShardJob } from './shard';
import { CREDIT, type WorkerMessage } from './workers';

const port = parentPort!;
let credit = CREDIT;
let wake: (() => void) | null = null;
port.on('message', (m: { type: 'credit'; n: number }) => {
  credit += m.n;
  wake?.();
  wake = null;
});

const post = (m: WorkerMessage) => port.postMessage(m);

try {
  for await (const result of runShard(workerData as ShardJob)) {
    while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
    credit--;
    post({ type: 'result', result });
  }
  post({ type: 'done' });
} catch (err) {
  post({ type: 'error', message: (err as Error).stack ?? String(err) });
}
