// An ingest worker thread: the pure part of ingest (reading files and scanning their lines) for jobs the main
// thread sends, answered with plain values; the main thread alone writes the index (parallel.ts, ingest.ts).
import { parentPort } from 'node:worker_threads';
import { CALL_WIDTH, packCalls, readCaptureFile } from './capture-read';
import type { JobResult, WorkerJob } from './parallel';
import { readRolloutsSlice } from './rollouts-read';

function run(job: WorkerJob): JobResult {
  if (job.kind === 'capture') {
    const reads = job.files.map((f) => readCaptureFile(f.file, f.state));
    const all: unknown[] = [];
    const counts = reads.map((r) => {
      if (r.kind !== 'read') return 0;
      for (const v of r.calls) all.push(v);
      const n = r.calls.length / CALL_WIDTH;
      r.calls = [];
      return n;
    });
    return { kind: 'capture', reads, calls: packCalls(all), counts };
  }
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
