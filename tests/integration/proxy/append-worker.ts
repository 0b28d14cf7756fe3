// A writer process for the kill -9 test (targets R4): appends exchanges through CaptureStore from several
// concurrent loops and prints `<worker>:<i>` for each line only after its append (write + fsync) resolved.
// Usage: node --import tsx append-worker.ts DIR ROLLOUT WORKER LOOPS
import { randomBytes } from 'node:crypto';
import { CaptureStore } from '../../../lib/capture/store';

const [dir, rollout, worker, loops] = process.argv.slice(2);
const store = await CaptureStore.open(dir);
let next = 0;

async function loop(): Promise<never> {
  for (;;) {
    const i = next++;
    // Sizes from a few hundred bytes to ~200 KB, so that some writes are large enough to be cut by the kill.
    const padding = randomBytes(Math.floor(Math.random() ** 3 * 150_000)).toString('base64');
    const result = await store.record(rollout, {
      model_call_id: `${worker}-${i}`,
      dialect: 'chat',
      model_ref: null,
      request: { worker, i, padding },
      response: { ok: true },
    });
    if (!result.ok) throw result.error;
    process.stdout.write(`${worker}:${i}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: Number(loops) }, loop));
