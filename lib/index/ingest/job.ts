// One ingest job (a group of capture files, or a slice of a rollouts file) read and scanned: the pure part of
// ingest, run by an ingest worker (worker.ts) or, while it would otherwise wait, by the main thread
// itself (parallel.ts, OrderedJobs). A worker packs the calls for its message; the main thread keeps them.
import { CALL_WIDTH } from '../call-row';
import { packCalls, readFileForIngest, type IngestRead, type FileState, type PackedCalls } from './capture-file';
import { readRolloutsSlice, type RolloutsSlice } from './rollouts-file';
import { encodeCalls, type EncodedCalls } from '../clickhouse/call-columns';
import { isNewFile, readCapturesNative } from './native-read';

export type WorkerJob =
  /** `encode`: the calls as the ClickHouse mirror takes them (clickhouse/call-columns.ts), instead of their values. */
  | { kind: 'capture'; files: { file: string; state: FileState }[]; encode?: boolean }
  | { kind: 'rollouts'; file: string; from: number; to: number; size: number; atLineStart: boolean; countCalls: boolean };
/**
 * Capture reads from a worker come with the job's calls packed, in order (each read's `calls` emptied); from a job
 * run in-thread, unpacked (`calls` null, each read's own).
 */
export type JobResult =
  | { kind: 'capture'; reads: IngestRead[]; calls: PackedCalls | null; encoded?: EncodedCalls; counts: number[] }
  | { kind: 'rollouts'; slice: RolloutsSlice };

export function runJob(job: WorkerJob, pack: boolean): JobResult {
  if (job.kind === 'capture') {
    // A cold pass's files, never read before: read and encoded by the addon when it can (native-read.ts).
    if (job.encode && job.files.every((f) => isNewFile(f.state))) {
      const native = readCapturesNative(job.files.map((f) => f.file));
      if (native) return { kind: 'capture', reads: native.reads, calls: null, encoded: native.encoded, counts: native.counts };
    }
    const reads = job.files.map((f) => readFileForIngest(f.file, f.state));
    const counts = reads.map((r) => (r.kind === 'read' ? r.calls.length / CALL_WIDTH : 0));
    if (!pack && !job.encode) return { kind: 'capture', reads, calls: null, counts };
    const flats: unknown[][] = [];
    for (const r of reads) {
      if (r.kind !== 'read') continue;
      flats.push(r.calls);
      r.calls = [];
    }
    return job.encode ? { kind: 'capture', reads, calls: null, encoded: encodeCalls(flats), counts } : { kind: 'capture', reads, calls: packCalls(flats.flat()), counts };
  }
  return { kind: 'rollouts', slice: readRolloutsSlice(job.file, job.from, job.to, job.size, job.atLineStart, job.countCalls) };
}
