// The CaptureStore directory (spec §1): file names, the tolerant reader (§3.6) and the durable writer (§1.5).
//
// Interop with NeMo Gym's Python writers and readers on the same files needs BSD flock (fcntl locks do not
// exclude flock locks on Linux), so locking goes through fs-ext, whose async flock runs on libuv's thread
// pool: a held lock never blocks the event loop. Writes are one `O_SYNC` write of the whole batch of lines
// (write + fsync in one call).
// Lines are read as bytes in chunks, so neither a whole file nor a long line ever becomes one JS string.
import fs, { promises as fsp, constants as fsc } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { assertStoreRolloutId } from './ids';
import { isJsonObject, type JsonObject } from './json-value';
import { parseStrict } from './json-parse';
import { serialize, serializeWithPreserialized } from './json-serialize';
import { lock, unlock } from './lock';
import { stripAscii } from './bytes';
import { deriveRecord, withoutPayloads, type ModelCallRecord } from './record';

export const CAPTURE_SUFFIX = '.capture.jsonl';
export const INCOMPLETE_SUFFIX = '.capture.incomplete';

export function capturePath(root: string, rolloutId: string): string {
  return path.join(root, assertStoreRolloutId(rolloutId) + CAPTURE_SUFFIX);
}

export function incompletePath(root: string, rolloutId: string): string {
  return path.join(root, assertStoreRolloutId(rolloutId) + INCOMPLETE_SUFFIX);
}

/** The rollout id of a capture file name, or null for any other file (token-capture files included). */
export function rolloutIdOfCaptureFile(name: string): string | null {
  return name.endsWith(CAPTURE_SUFFIX) && name.length > CAPTURE_SUFFIX.length ? name.slice(0, -CAPTURE_SUFFIX.length) : null;
}

export async function exists(p: string): Promise<boolean> {
  try {
    await fsp.access(p, fsc.F_OK);
    return true;
  } catch {
    return false;
  }
}

// --- reading ---------------------------------------------------------------------------------------------

export interface RawLine {
  /** 1-based physical line number, blank lines included. */
  lineNumber: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte length without the trailing newline. */
  length: number;
  bytes: Buffer;
  /** False for a last line without a trailing newline. */
  terminated: boolean;
}

export interface LineReadOptions {
  start?: number;
  startLine?: number;
  /** Stop before an unterminated last line (a reader that follows a growing file keeps it as pending). */
  holdUnterminated?: boolean;
  chunkSize?: number;
}

/** Splits a file on `\n` from `start`, yielding each line with its byte span. */
export async function* readLines(handle: FileHandle, options: LineReadOptions = {}): AsyncGenerator<RawLine> {
  const chunkSize = options.chunkSize ?? 1 << 20;
  let position = options.start ?? 0;
  let lineNumber = options.startLine ?? 1;
  let lineStart = position;
  let parts: Buffer[] = [];
  for (;;) {
    const chunk = Buffer.allocUnsafe(chunkSize);
    const { bytesRead } = await handle.read(chunk, 0, chunkSize, position);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    let from = 0;
    for (;;) {
      const nl = data.indexOf(10, from);
      if (nl < 0) break;
      const piece = data.subarray(from, nl);
      const bytes = parts.length ? Buffer.concat([...parts, piece]) : Buffer.from(piece);
      parts = [];
      yield { lineNumber: lineNumber++, offset: lineStart, length: bytes.length, bytes, terminated: true };
      lineStart = position + nl + 1;
      from = nl + 1;
    }
    if (from < bytesRead) parts.push(Buffer.from(data.subarray(from)));
    position += bytesRead;
  }
  if (parts.length && !options.holdUnterminated) {
    const bytes = Buffer.concat(parts);
    yield { lineNumber, offset: lineStart, length: bytes.length, bytes, terminated: false };
  }
}

export { stripAscii };

export interface ReadProblem {
  file: string;
  line: number;
  offset: number;
  message: string;
}

export interface CaptureRead {
  records: ModelCallRecord[];
  unreadable: number;
  problems: ReadProblem[];
}

export type LineOutcome = { kind: 'blank' } | { kind: 'record'; record: ModelCallRecord } | { kind: 'unreadable'; message: string };

/** One line through the tolerant reader's rules: blank, a record, or unreadable with the reason. */
export function readExchangeLine(bytes: Buffer, callIndex: number): LineOutcome {
  const stripped = stripAscii(bytes);
  if (stripped.length === 0) return { kind: 'blank' };
  let value;
  try {
    value = parseStrict(stripped);
  } catch (err) {
    return { kind: 'unreadable', message: `invalid JSON: ${(err as Error).message}` };
  }
  if (!isJsonObject(value)) return { kind: 'unreadable', message: 'not a JSON object' };
  try {
    return { kind: 'record', record: deriveRecord(value, callIndex) };
  } catch (err) {
    return { kind: 'unreadable', message: `record derivation failed: ${(err as Error).message}` };
  }
}

export interface ReadOptions {
  includePayloads?: boolean;
  /** Take a shared flock for the whole read, as NeMo Gym's readers do (waits for an in-progress append). */
  lock?: boolean;
}

export type ReadEvent = { line: RawLine; callIndex: number } & ({ kind: 'record'; record: ModelCallRecord } | { kind: 'unreadable'; message: string });

/**
 * The tolerant reader as a stream of non-blank lines with their outcome. A missing file reads as empty.
 * With `lock`, holds a shared flock for the whole read.
 */
export async function* readCaptureEvents(file: string, options: ReadOptions = {}): AsyncGenerator<ReadEvent> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (options.lock !== false) await lock(handle.fd, 'sh');
    let callIndex = 0;
    for await (const line of readLines(handle)) {
      const outcome = readExchangeLine(line.bytes, callIndex);
      if (outcome.kind === 'blank') continue;
      yield { line, callIndex, ...outcome };
      callIndex++;
    }
  } finally {
    await handle.close();
  }
}

/** The tolerant reader (§3.6): valid records with their physical ordinals, and the unreadable count. */
export async function readCaptureFile(file: string, options: ReadOptions = {}): Promise<CaptureRead> {
  const result: CaptureRead = { records: [], unreadable: 0, problems: [] };
  for await (const event of readCaptureEvents(file, options)) {
    if (event.kind === 'record') {
      result.records.push(options.includePayloads === false ? withoutPayloads(event.record) : event.record);
    } else {
      result.unreadable++;
      result.problems.push({ file, line: event.line.lineNumber, offset: event.line.offset, message: event.message });
    }
  }
  return result;
}

// --- writing ----------------------------------------------------------------------------------------------

// O_SYNC makes the write itself durable: it returns once the data and the metadata needed to read it back
// are on disk, which is what `write` then `fsync` guarantees (§1.5), in one thread-pool round trip instead of
// two. The lock is taken with a non-blocking flock on the event loop (see lock.ts) and released before the
// close, which is not waited for: the line is durable once the write returns.
const APPEND_DURABLE = fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | fsc.O_SYNC;

function openForAppend(file: string): Promise<number> {
  return new Promise((resolve, reject) => fs.open(file, APPEND_DURABLE, 0o666, (err, fd) => (err ? reject(err) : resolve(fd))));
}

function writeAll(fd: number, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => fs.write(fd, data, 0, data.length, null, (err, written) => (err ? reject(err) : resolve(written))));
}

/** Appends whole lines under an exclusive flock with a single durable write (§1.5). */
export async function appendLocked(file: string, data: Buffer): Promise<void> {
  const fd = await openForAppend(file);
  let locked = false;
  try {
    await lock(fd, 'ex');
    locked = true;
    const bytesWritten = await writeAll(fd, data);
    if (bytesWritten !== data.length) throw new Error(`short write: ${bytesWritten} of ${data.length} bytes`);
  } finally {
    if (locked) unlock(fd);
    fs.close(fd, () => undefined);
  }
}

interface Pending {
  line: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Group commit per file: appends to one file from this process queue up while a write is in flight, and the
 * next write takes them all (one lock, one write, one fsync). Every line is whole and newline-terminated, so
 * a batch is as safe as single lines for readers, and no two processes' lines can interleave.
 */
export class GroupAppender {
  private readonly queues = new Map<string, Pending[]>();

  append(file: string, line: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(file);
      if (queue) {
        queue.push({ line, resolve, reject });
        return;
      }
      this.queues.set(file, [{ line, resolve, reject }]);
      void this.drain(file);
    });
  }

  private async drain(file: string): Promise<void> {
    for (;;) {
      const batch = this.queues.get(file)!;
      if (batch.length === 0) {
        this.queues.delete(file);
        return;
      }
      this.queues.set(file, []);
      try {
        await appendLocked(file, batch.length === 1 ? batch[0].line : Buffer.concat(batch.map((p) => p.line)));
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err as Error);
      }
    }
  }
}

const sharedAppender = new GroupAppender();

/** Touches the `.capture.incomplete` marker: create if missing, never truncate, no lock. */
export async function markIncomplete(root: string, rolloutId: string): Promise<void> {
  const marker = incompletePath(root, rolloutId);
  const handle = await fsp.open(marker, 'a');
  await handle.close();
  const now = new Date();
  await fsp.utimes(marker, now, now);
}

/**
 * orjson.dumps(exchange) + b"\n". Throws JsonSerializeError (64-bit overflow, lone surrogates, depth).
 * `preserialized` gives top-level values (the request, the response) whose bytes are already canonical.
 */
export function serializeExchange(exchange: JsonObject, preserialized?: Readonly<Record<string, Uint8Array>>): Buffer {
  if (preserialized) return serializeWithPreserialized(exchange, preserialized, '\n');
  return Buffer.from(serialize(exchange) + '\n', 'utf8');
}

export class CaptureStore {
  private constructor(readonly root: string) {}

  /** Opening a store creates its directory (mkdir -p), as upstream does. */
  static async open(root: string): Promise<CaptureStore> {
    await fsp.mkdir(root, { recursive: true });
    return new CaptureStore(path.resolve(root));
  }

  pathFor(rolloutId: string): string {
    return capturePath(this.root, rolloutId);
  }

  incompletePathFor(rolloutId: string): string {
    return incompletePath(this.root, rolloutId);
  }

  /** Appends an exchange, or a line already serialized by `serializeExchange`. */
  async append(rolloutId: string, exchange: JsonObject | Buffer): Promise<void> {
    await sharedAppender.append(this.pathFor(rolloutId), Buffer.isBuffer(exchange) ? exchange : serializeExchange(exchange));
  }

  /**
   * Best-effort record (§1.5, §6.8): on any serialize or write failure the marker is touched (best-effort
   * too) and the failure is reported through the return value, never thrown.
   */
  async record(rolloutId: string, exchange: JsonObject | Buffer): Promise<{ ok: true } | { ok: false; error: Error }> {
    try {
      await this.append(rolloutId, exchange);
      return { ok: true };
    } catch (error) {
      await markIncomplete(this.root, rolloutId).catch(() => undefined);
      return { ok: false, error: error as Error };
    }
  }

  read(rolloutId: string, options?: ReadOptions): Promise<CaptureRead> {
    return readCaptureFile(this.pathFor(rolloutId), options);
  }
}
