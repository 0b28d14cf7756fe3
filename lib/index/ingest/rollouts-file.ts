// Reading a rollouts (or failures) file for ingest, with no index access: each line parsed (lib/rollouts/rollout-line.ts)
// into the plain values ingest stores. A file is read in slices; a slice owns the lines that start in it, so
// that ingest workers can parse slices of one file side by side and the main thread numbers the lines and
// stores them in file order, exactly as a single-thread read would.
import { closeSync, openSync, readSync } from 'node:fs';
import { JsonFloat } from '../../capture/json-value';
import { callValues } from './capture-file';
import { readLinesSync } from './line-reader';
import { parseRolloutLine, type RolloutLine } from '../../rollouts/rollout-line';
import { scanShallowFast } from '../scan/fast-scan';

/** A rollout line as stored: plain values only (it crosses from a worker by structured clone). */
export interface StoredRolloutLine extends Omit<RolloutLine, 'search' | 'attachment'> {
  /** In a slice read by a worker: the line's index within the slice (ingest adds the slice's first line number). */
  lineNo: number;
  /** null: the default, `line <lineNo>` (a line that is not a JSON object). */
  search: string | null;
  attachment: {
    calls: number;
    tokensTotal: number | null;
    gaps: string;
    /** The attached calls' call rows (`CALL_WIDTH` values each), only when they are the rollout's calls. */
    callValues: unknown[];
  } | null;
}

export function storedRolloutLine(l: RolloutLine, countCalls: boolean): StoredRolloutLine {
  const a = l.attachment;
  let attachment: StoredRolloutLine['attachment'] = null;
  if (a) {
    const values: unknown[] = [];
    // A call without a usable call_index (a hand-made or damaged attachment) is placed by its position, so that
    // one such call never stops the file's ingest.
    if (!countCalls) {
      a.records.forEach((call, i) => {
        const at = call.call_index;
        const record = typeof at === 'number' && Number.isInteger(at) && at >= 0 ? call : { ...call, call_index: i };
        values.push(...callValues(0, 0, l.offset, l.length, { record, request: null, response: null }));
      });
    }
    attachment = { calls: a.calls, tokensTotal: a.tokensTotal, gaps: JSON.stringify(a.gaps, plainNumbers), callValues: values };
  }
  return {
    lineNo: l.lineNo, offset: l.offset, length: l.length, rolloutId: l.rolloutId, reward: l.reward, taskIndex: l.taskIndex,
    rolloutIndex: l.rolloutIndex, attempt: l.attempt, failureClass: l.failureClass, agent: l.agent, task: l.task,
    // A JSON object's search text joins several fields with newlines, so it is never the default's.
    search: l.search === `line ${l.lineNo}` ? null : l.search, attachment, usage: l.usage, problem: l.problem,
    prompt: l.prompt, expected: l.expected, extracted: l.extracted, outcome: l.outcome, trajectory: l.trajectory,
  };
}

/** JSON.stringify replacer: lossless numbers (bigint, JsonFloat) as plain ones (non-finite: null), so that any line's gaps store. */
function plainNumbers(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof JsonFloat) return Number.isFinite(v.value) ? v.value : null;
  return v;
}

export interface RolloutsSlice {
  lines: StoredRolloutLine[];
  /** Terminated lines that start in the slice (blank ones included). */
  count: number;
  /** Offset just past the slice's last terminated line; -1 when it has none. */
  end: number;
  bytes: number;
}

/**
 * The terminated lines of `file` that start in [from, to), read up to `size`; `from` is a line start when
 * `atLineStart`, else the slice begins at the first line start at or after it. Line numbers are 0-based
 * within the slice.
 */
export function readRolloutsSlice(file: string, from: number, to: number, size: number, atLineStart: boolean, countCalls: boolean): RolloutsSlice {
  const fd = openSync(file, 'r');
  try {
    const start = atLineStart ? from : lineStartAtOrAfter(fd, from, size);
    const out: RolloutsSlice = { lines: [], count: 0, end: -1, bytes: 0 };
    if (start < 0 || start >= to) return out;
    const read = readLinesSync(fd, start, size, 0, (bytes, offset, lineNo) => {
      out.bytes += bytes.length + 1;
      const parsed = parseRolloutLine(bytes, lineNo, offset, countCalls, scanShallowFast);
      if (parsed) out.lines.push(storedRolloutLine(parsed, countCalls));
    }, to);
    out.count = read.nextLine;
    out.end = read.nextLine > 0 ? read.offset : -1;
    return out;
  } finally {
    closeSync(fd);
  }
}

/** The first offset >= `at` (and < size) where a line starts, or -1. */
function lineStartAtOrAfter(fd: number, at: number, size: number): number {
  if (at <= 0) return size > 0 ? 0 : -1;
  const buf = Buffer.allocUnsafe(64 << 10);
  for (let pos = at - 1; pos < size; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n === 0) return -1;
    const nl = buf.subarray(0, n).indexOf(10);
    if (nl >= 0) return pos + nl + 1 < size ? pos + nl + 1 : -1;
    pos += n;
  }
  return -1;
}
