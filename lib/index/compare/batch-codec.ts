// A compact binary form for the compare figures kept per batch of rollouts (compare.ts, table compare_batches):
// sorted number arrays as deltas in variable-length integers, which is what keeps them inside the index's
// per-call byte budget (targets.md I4). Values are exact: an array is stored as integers when every value is
// one, as hundredths when every value is exactly a two-decimal number (latency and TTFT are rounded to 2
// decimals by the spec), and as raw float64 otherwise.

const MODE_INTEGER = 0;
const MODE_HUNDREDTHS = 1;
const MODE_FLOAT64 = 2;
/** Integers this codec stores as varints (magnitude); anything larger goes as float64. */
const MAX_EXACT = 2 ** 52;

export class ByteWriter {
  private buf = Buffer.allocUnsafe(1024);
  private len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** A non-negative integer up to 2^53, 7 bits per byte. */
  uint(x: number): void {
    this.room(8);
    while (x >= 128) {
      this.buf[this.len++] = (x % 128) | 128;
      x = Math.floor(x / 128);
    }
    this.buf[this.len++] = x;
  }

  /** Any safe integer (zigzag). */
  int(x: number): void {
    this.uint(x < 0 ? -2 * x - 1 : 2 * x);
  }

  float(x: number): void {
    this.room(8);
    this.buf.writeDoubleLE(x, this.len);
    this.len += 8;
  }

  text(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.uint(bytes.length);
    this.room(bytes.length);
    bytes.copy(this.buf, this.len);
    this.len += bytes.length;
  }

  /** A sorted array (ascending), in the smallest exact mode. */
  sorted(values: Float64Array): void {
    let integers = true;
    let hundredths = true;
    for (let i = 0; i < values.length && (integers || hundredths); i++) {
      const v = values[i];
      if (Object.is(v, -0)) integers = hundredths = false;
      if (!(Math.abs(v) < MAX_EXACT / 100)) hundredths = false;
      if (!Number.isInteger(v) || Math.abs(v) >= MAX_EXACT) integers = false;
      if (hundredths && Math.round(v * 100) / 100 !== v) hundredths = false;
    }
    this.uint(values.length);
    if (values.length === 0) return;
    const mode = integers ? MODE_INTEGER : hundredths ? MODE_HUNDREDTHS : MODE_FLOAT64;
    this.uint(mode);
    if (mode === MODE_FLOAT64) {
      for (const v of values) this.float(v);
      return;
    }
    const scale = mode === MODE_HUNDREDTHS ? 100 : 1;
    let prev = Math.round(values[0] * scale);
    this.int(prev);
    for (let i = 1; i < values.length; i++) {
      const cur = Math.round(values[i] * scale);
      this.uint(cur - prev);
      prev = cur;
    }
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

export class ByteReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  uint(): number {
    let x = 0;
    let mul = 1;
    for (;;) {
      if (this.pos >= this.buf.length) throw new RangeError('batch figures: truncated');
      const b = this.buf[this.pos++];
      x += (b & 127) * mul;
      if (b < 128) return x;
      mul *= 128;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
  }

  float(): number {
    if (this.pos + 8 > this.buf.length) throw new RangeError('batch figures: truncated');
    const v = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, 8).readDoubleLE(0);
    this.pos += 8;
    return v;
  }

  text(): string {
    const n = this.uint();
    if (this.pos + n > this.buf.length) throw new RangeError('batch figures: truncated');
    const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, n).toString('utf8');
    this.pos += n;
    return s;
  }

  sorted(): Float64Array {
    const n = this.uint();
    const out = new Float64Array(n);
    if (n === 0) return out;
    const mode = this.uint();
    if (mode === MODE_FLOAT64) {
      for (let i = 0; i < n; i++) out[i] = this.float();
      return out;
    }
    if (mode !== MODE_INTEGER && mode !== MODE_HUNDREDTHS) throw new RangeError(`batch figures: unknown mode ${mode}`);
    let cur = this.int();
    out[0] = cur;
    // The deltas, inlined: this loop decodes every latency of a run when a fresh process first compares.
    const buf = this.buf;
    const end = buf.length;
    let pos = this.pos;
    for (let i = 1; i < n; i++) {
      let b = pos < end ? buf[pos++] : -1;
      let x = b & 127;
      let mul = 128;
      while (b >= 128) {
        b = pos < end ? buf[pos++] : -1;
        x += (b & 127) * mul;
        mul *= 128;
      }
      if (b < 0) throw new RangeError('batch figures: truncated');
      cur += x;
      out[i] = cur;
    }
    this.pos = pos;
    if (mode === MODE_HUNDREDTHS) for (let i = 0; i < n; i++) out[i] = out[i] / 100;
    return out;
  }

  get done(): boolean {
    return this.pos === this.buf.length;
  }
}
