// Byte helpers of the line format, free of any file-system import (ingest workers load them).

const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** bytes.strip(): ASCII whitespace at both ends. */
export function stripAscii(b: Buffer): Buffer {
  let s = 0;
  let e = b.length;
  while (s < e && isAsciiSpace(b[s])) s++;
  while (e > s && isAsciiSpace(b[e - 1])) e--;
  return s === 0 && e === b.length ? b : b.subarray(s, e);
}
