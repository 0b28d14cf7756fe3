// Output for bulk generation. Capture files are written whole, one ordinary buffered write per rollout:
// the store's durable path (flock + one write + fsync per line, lib/capture/store.ts) exists for concurrent
// writers and crash safety, which a generator that owns its output does not need, and would make a
// million-line corpus take hours. The bytes are the same lines that path would append.
import { closeSync, createWriteStream, openSync, promises as fsp, writeSync, type WriteStream } from 'node:fs';
import type { JsonObject } from '../capture/json-value';
import { capturePath, incompletePath, serializeExchange } from '../capture/store';
import type { CaptureDamage } from './runs';

/** An append stream that respects backpressure and counts what it wrote. */
export class LineWriter {
  private readonly stream: WriteStream;
  private readonly closed: Promise<void>;
  bytes = 0;
  lines = 0;

  constructor(file: string) {
    this.stream = createWriteStream(file, { flags: 'wx' });
    this.closed = new Promise((resolve, reject) => {
      this.stream.on('close', resolve);
      this.stream.on('error', reject);
    });
    this.closed.catch(() => undefined); // surfaced by close()
  }

  async write(text: string): Promise<void> {
    const chunk = Buffer.from(text, 'utf8');
    this.bytes += chunk.length;
    this.lines++;
    if (!this.stream.write(chunk)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.stream.end();
    await this.closed;
  }
}

/**
 * Writes one rollout's capture file and returns the bytes written. `lost_call` leaves one call out and
 * touches the `.capture.incomplete` marker, as a failed persist does (spec §1.5); `torn_line` keeps only the
 * first half of one line, a damaged line the tolerant reader counts as unreadable (spec §3.6).
 */
export async function writeCaptureFile(dir: string, rolloutId: string, exchanges: JsonObject[], damage?: CaptureDamage): Promise<number> {
  if (exchanges.length === 0) return 0;
  // The damage hits a successful call that is not a retry, so every error in the file keeps its retry.
  const intact = (i: number) => exchanges[i].status_code === 200 && exchanges[i].error_category === null;
  const candidates = exchanges.map((_, i) => i).filter((i) => intact(i) && (i === 0 || intact(i - 1)));
  const victim = candidates.length ? candidates[Math.floor(candidates.length / 2)] : Math.floor(exchanges.length / 2);
  const lines: Buffer[] = [];
  exchanges.forEach((exchange, i) => {
    const line = serializeExchange(exchange);
    if (i !== victim || !damage) lines.push(line);
    else if (damage === 'torn_line') lines.push(line.subarray(0, Math.floor(line.length / 2)), Buffer.from('\n'));
  });
  const data = Buffer.concat(lines);
  await fsp.writeFile(capturePath(dir, rolloutId), data, { flag: 'wx' });
  if (damage === 'lost_call') await fsp.writeFile(incompletePath(dir, rolloutId), '', { flag: 'wx' });
  return data.length;
}

const FLUSH_BYTES = 1 << 20;

/**
 * Writes a rollout's capture file from its exchanges as they are produced (`exchanges` returns its end value), in
 * writes of about 1 MiB: memory stays bounded by one turn's calls, whatever the rollout's length.
 */
export function writeCaptureStream<T>(dir: string, rolloutId: string, exchanges: Iterator<JsonObject, T>): { bytes: number; end: T } {
  const fd = openSync(capturePath(dir, rolloutId), 'wx');
  let bytes = 0;
  let chunks: Buffer[] = [];
  let held = 0;
  const flush = () => {
    const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off);
    chunks = [];
    held = 0;
  };
  try {
    for (let next = exchanges.next(); ; next = exchanges.next()) {
      if (next.done) {
        if (held) flush();
        return { bytes, end: next.value };
      }
      const line = serializeExchange(next.value);
      chunks.push(line);
      held += line.length;
      bytes += line.length;
      if (held >= FLUSH_BYTES) flush();
    }
  } finally {
    closeSync(fd);
  }
}
