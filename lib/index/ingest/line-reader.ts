// Synchronous line splitting for ingest: one buffer reused across files (no per-line or per-chunk
// allocation), lines handed to the caller as views into it. Callers must not keep a view past the callback.
// Only terminated lines are delivered (an unterminated last line is pending); a line longer than the buffer
// grows it for that file only, so a 256 MB line is held as bytes, never as a string.
import { readSync } from 'node:fs';

const CHUNK_BYTES = 4 << 20;
let shared: Buffer | null = null;

export interface LinesRead {
  /** Offset just past the last terminated line. */
  offset: number;
  nextLine: number;
}

/**
 * Calls `onLine(bytes, offset, lineNumber)` for every terminated line of `fd` in [start, end) that starts
 * before `stopAt` (`start` must be where a line starts).
 */
export function readLinesSync(
  fd: number,
  start: number,
  end: number,
  startLine: number,
  onLine: (bytes: Buffer, offset: number, lineNumber: number) => void,
  stopAt = Infinity,
): LinesRead {
  let buf = shared ?? (shared = Buffer.allocUnsafe(CHUNK_BYTES));
  let base = start; // file offset of buf[0]
  let filled = 0;
  let lineStart = 0;
  let lineNumber = startLine;
  while (base + filled < end && base + lineStart < stopAt) {
    if (filled === buf.length) {
      if (lineStart > 0) {
        buf.copy(buf, 0, lineStart, filled);
        filled -= lineStart;
        base += lineStart;
        lineStart = 0;
      } else {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
    }
    const n = readSync(fd, buf, filled, Math.min(buf.length - filled, end - base - filled), base + filled);
    if (n === 0) break;
    const from = filled;
    filled += n;
    let nl = buf.indexOf(10, Math.max(from, lineStart));
    while (nl >= 0 && nl < filled && base + lineStart < stopAt) {
      onLine(buf.subarray(lineStart, nl), base + lineStart, lineNumber++);
      lineStart = nl + 1;
      nl = buf.indexOf(10, lineStart);
    }
  }
  return { offset: base + lineStart, nextLine: lineNumber };
}
