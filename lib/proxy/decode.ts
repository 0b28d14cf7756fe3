// Content decoding for the capture only: the client always receives the upstream's bytes unchanged, while
// the capture holds the decoded response (what NeMo Gym's in-process middleware sees). gzip, deflate (zlib
// or raw) and br are decoded off the event loop. Decoding is lenient about a truncated end, so a body cut by
// a reset still yields the text that arrived; an unknown or corrupt coding leaves the capture with the raw
// bytes (and so, usually, a `capture_parse_error`).
import zlib from 'node:zlib';
import { promisify } from 'node:util';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

const SUPPORTED = new Set(['gzip', 'x-gzip', 'deflate', 'br']);
const ZLIB_LENIENT = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };

export function canDecode(codings: readonly string[]): boolean {
  return codings.every((c) => SUPPORTED.has(c));
}

/** A zlib stream (RFC 1950) starts with a CMF/FLG pair whose value is a multiple of 31; raw deflate does not. */
function isZlibWrapped(b: Uint8Array): boolean {
  return b.length < 2 || ((b[0] & 0x0f) === 8 && ((b[0] << 8) | b[1]) % 31 === 0);
}

function decodeOne(body: Buffer, coding: string): Promise<Buffer> {
  if (coding === 'br') return brotli(body, BROTLI_LENIENT);
  if (coding === 'deflate') return isZlibWrapped(body) ? inflate(body, ZLIB_LENIENT) : inflateRaw(body, ZLIB_LENIENT);
  return gunzip(body, ZLIB_LENIENT);
}

/** The body with every coding undone (last applied first), or null when that is not possible. */
export async function decodeBody(body: Buffer, codings: readonly string[]): Promise<Buffer | null> {
  if (codings.length === 0 || body.length === 0) return body;
  if (!canDecode(codings)) return null;
  try {
    let out = body;
    for (const coding of [...codings].reverse()) out = await decodeOne(out, coding);
    return out;
  } catch {
    return null;
  }
}

/**
 * Incremental decoding of one coding, for event streams whose terminal event must be found as chunks
 * arrive: each push resolves with the text that chunk completed (a sync flush), or null once decoding has
 * failed.
 */
export class StreamDecoder {
  private stream: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress | null = null;
  private output: Buffer[] = [];
  private failed = false;
  private waiting: ((result: Buffer | null) => void) | null = null;

  constructor(private readonly coding: string) {}

  static supports(codings: readonly string[]): boolean {
    return codings.length === 1 && SUPPORTED.has(codings[0]);
  }

  private open(first: Buffer): NonNullable<StreamDecoder['stream']> {
    const c = this.coding;
    const stream =
      c === 'br' ? zlib.createBrotliDecompress() : c === 'deflate' ? (isZlibWrapped(first) ? zlib.createInflate() : zlib.createInflateRaw()) : zlib.createGunzip();
    stream.on('data', (b: Buffer) => this.output.push(b));
    stream.on('error', () => {
      this.failed = true;
      this.settle();
    });
    return stream;
  }

  private settle(): void {
    const resolve = this.waiting;
    this.waiting = null;
    const out = this.output.length === 1 ? this.output[0] : Buffer.concat(this.output);
    this.output = [];
    resolve?.(this.failed ? null : out);
  }

  push(chunk: Buffer): Promise<Buffer | null> {
    if (this.failed) return Promise.resolve(null);
    const stream = (this.stream ??= this.open(chunk));
    return new Promise((resolve) => {
      this.waiting = resolve;
      stream.write(chunk);
      const kind = this.coding === 'br' ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
      stream.flush(kind, () => this.settle());
    });
  }

  close(): void {
    this.stream?.destroy();
  }
}
