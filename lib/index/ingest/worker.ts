// An ingest worker thread: the pure part of ingest (reading files and scanning their lines, job.ts) for jobs
// the main thread sends, answered with plain values; the main thread alone writes the index (parallel.ts,
// capture-files.ts, rollouts-files.ts).
import { parentPort } from 'node:worker_threads';
import { runJob, type JobResult, type WorkerJob } from './job';
import { transferables } from '../clickhouse/call-columns';

const port = parentPort!;
port.on('message', (msg: { id: number; job: WorkerJob }) => {
  let result: JobResult;
  try {
    result = runJob(msg.job, true);
  } catch (err) {
    port.postMessage({ id: msg.id, error: String((err as Error)?.stack ?? err) });
    return;
  }
  // The packed calls' buffers are moved, not copied (the bulk of a capture job's message).
  const transfer =
    result.kind !== 'capture' ? [] : result.encoded ? transferables(result.encoded) : result.calls ? [result.calls.numbers.buffer, result.calls.nulls.buffer] : [];
  port.postMessage({ id: msg.id, result }, transfer as ArrayBuffer[]);
});
port.postMessage({ ready: true });
