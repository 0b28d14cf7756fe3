// The files a benchmark reads, read once beforehand: an ingest measured from files should not measure the disk (this
// machine's page cache holds the 7 GB corpus only some of the time, and a cold read runs at disk speed, some 190 MB/s,
// against some 2 GB/s from memory). The read's own rate is reported, so a reader sees whether the files were in memory.
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { now } from './time';

function* filesUnder(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (e.isFile()) yield p;
  }
}

/** Reads every file under `dir` once; its bytes, files and seconds. */
export function readAllFiles(dir: string): { files: number; bytes: number; s: number; mb_per_s: number } {
  const buf = Buffer.allocUnsafe(4 << 20);
  const t0 = now();
  let files = 0;
  let bytes = 0;
  for (const file of filesUnder(dir)) {
    const fd = openSync(file, 'r');
    try {
      for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) bytes += n;
    } finally {
      closeSync(fd);
    }
    files++;
  }
  const s = (now() - t0) / 1000;
  return { files, bytes, s: Math.round(s * 100) / 100, mb_per_s: Math.round(bytes / s / 1e6) };
}
