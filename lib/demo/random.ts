// Seeded randomness for the demo data set. Every random choice flows from the user's seed through named
// forks (`rng.fork('run', 'task', 3)`), so a rollout's content depends only on the seed and its own
// coordinates, never on how many numbers other rollouts drew: the output is byte-identical for a seed, and
// changing one run's definition does not reshuffle the others.

/** cyrb128: a fast, well-mixed 128-bit string hash (four 32-bit words) used to seed sfc32. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly key: string) {
    [this.a, this.b, this.c, this.d] = cyrb128(key);
    for (let i = 0; i < 12; i++) this.u32(); // sfc32 warm-up
  }

  /** An independent stream named by `parts` under this one's key. */
  fork(...parts: (string | number)[]): Rng {
    return new Rng(`${this.key}/${parts.join('/')}`);
  }

  /** sfc32: the next uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Uniform float in [lo, hi). */
  float(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** A log-normal draw around `median` (spread 0.3 ≈ ±35%): latencies and sizes have long right tails. */
  around(median: number, spread = 0.3): number {
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return median * Math.exp(spread * z);
  }

  hex(length: number): string {
    let s = '';
    while (s.length < length) s += this.u32().toString(16).padStart(8, '0');
    return s.slice(0, length);
  }

  base62(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += BASE62[this.u32() % 62];
    return s;
  }

  /** `uuid.uuid4().hex`: 32 lowercase hex digits with the version and variant nibbles set. */
  uuid4hex(): string {
    const h = this.hex(32);
    return h.slice(0, 12) + '4' + h.slice(13, 16) + '89ab'[this.u32() & 3] + h.slice(17);
  }
}
