// An ingest worker thread: the pure part of ingest (reading files and scanning their lines) for jobs the main
// thread sends, answered with plain values; the main thread alone writes the index (parallel.ts, ingest.ts).
import { parentPort } from 'node:worker_threads';
import { readCaptureFile } from './capture-read';
import type { JobResult, WorkerJob } from './parallel';
import { readRolloutsSlice } from './rollouts-read';

function run(job: WorkerJob): JobResult {
  if (job.kind === 'capture') return { kind: 'capture', reads: job.files.map((f) => readCaptureFile(f.file, f.state)) };
  return { kind: 'rollouts', slice: readRolloutsSlice(job.file, job.from, job.to, job.size, job.atLineStart, job.countCalls) };
}

const port = parentPort!;
port.on('message', (msg: { id: number; job: WorkerJob }) => {
  let result: JobResult;
  try {
    result = run(msg.job);
  } catch (err) {
    port.postMessage({ id: msg.id, error: String((err as Error)?.stack ?? err) });
    return;
  }
  port.postMessage({ id: msg.id, result });
});
port.postMessage({ ready: true });
