// Rows written to ClickHouse in its Native format: columns one after the other, numbers as their bytes, strings
// length-prefixed. The engine reads a Native block without parsing text: on chdb, an insert of 1M call rows as
// JSONCompactEachRow or TabSeparated took some 10 s of CPU (the text parse; the same into a Null table), the same
// rows as Native 0.4 s (measured with one-off probes on bench:clickhouse's corpus, not committed).
//
// A block (https://clickhouse.com/docs/interfaces/formats/Native): varint column count, varint row count, then per
// column its name, its type name and its values: Int64/UInt64/Float64 8 bytes little-endian, UInt32 4, UInt8 1,
// String a varint length and the UTF-8 bytes, Nullable(T) a byte per row (1: null) and then T's values for every
// row (a null's is T's default). Blocks follow each other in one payload. LowCardinality columns are sent as their
// plain type: the insert converts (an INSERT … SELECT casts by position; FORMAT Native converts as well).

/** The types a block's columns are written as. */
export type NativeType = 'Int64' | 'UInt64' | 'UInt32' | 'UInt8' | 'Float64' | 'String' | `Nullable(${'Int64' | 'Float64' | 'String'})`;

export interface NativeColumn {
  name: string;
  type: NativeType;
}

/** The Native type a table's column is written as: its declared type without LowCardinality. */
export function nativeTypeOf(declared: string): NativeType {
  const plain = declared.replace(/^LowCardinality\((.*)\)$/, '$1');
  if (!NATIVE_TYPES.has(plain)) throw new Error(`no Native encoding for the ClickHouse type ${declared}`);
  return plain as NativeType;
}

const NATIVE_TYPES = new Set(['Int64', 'UInt64', 'UInt32', 'UInt8', 'Float64', 'String', 'Nullable(Int64)', 'Nullable(Float64)', 'Nullable(String)']);

const TWO_32 = 4294967296;

/** A growing byte buffer. */
class Bytes {
  buf: Buffer;
  at = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(Math.max(64, size));
  }

  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const bigger = Buffer.allocUnsafe(size);
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  bytes(a: Uint8Array): void {
    this.room(a.length);
    this.buf.set(a, this.at);
    this.at += a.length;
  }

  varint(n: number): void {
    this.room(10);
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
  }

  string(s: string): void {
    const len = s.length;
    if (len < 0x80) {
      // Short ASCII (ids, names, keys: most values) copied unit by unit: cheaper than a call into the encoder per value.
      this.room(1 + len);
      const buf = this.buf;
      const at = this.at;
      let k = 0;
      for (; k < len; k++) {
        const u = s.charCodeAt(k);
        if (u >= 0x80) break;
        buf[at + 1 + k] = u;
      }
      if (k === len) {
        buf[at] = len;
        this.at = at + 1 + len;
        return;
      }
    }
    // A JS string's UTF-8 is at most 3 bytes per UTF-16 unit; written after a length of the most bytes it can take.
    if (len < 0x80 / 3) {
      this.room(1 + s.length * 3);
      const n = this.buf.write(s, this.at + 1, 'utf8');
      this.buf[this.at] = n;
      this.at += 1 + n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.room(n);
    this.buf.write(s, this.at, 'utf8');
    this.at += n;
  }
}

/** An integer column's value (a number, a bigint, a boolean), truncated toward zero if it is not whole. */
function integer(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}

/**
 * A number column given whole (a typed array's bytes are the column's: no value by value encoding): its values, 0 where
 * null, and for a Nullable column a byte per row (1: null).
 */
export interface NumberColumn {
  numbers: Float64Array;
  nulls: Uint8Array | null;
}

/**
 * A column already in Native's form (encodeColumns', or ranges of several: call-columns.ts concatRanges): its null bytes,
 * for a Nullable column, and its values' bytes, each whole or as pieces that follow each other (a block takes them as
 * they are, without copying them together).
 */
export interface EncodedColumn {
  encoded: true;
  nulls: Uint8Array | readonly Uint8Array[] | null;
  values: Uint8Array | readonly Uint8Array[];
}

/** An encoded column whole, as encodeColumns gives it: for a String column `offsets` says where each row's bytes start (n + 1 of them). */
export interface WholeColumn extends EncodedColumn {
  nulls: Uint8Array | null;
  values: Uint8Array;
  offsets: Uint32Array | null;
}

/**
 * A block's rows: how many, and each column (in the block's column order) as a getter of row r's value, for a number
 * column its values whole, or its bytes already encoded.
 */
export interface BlockRows {
  n: number;
  column(c: number): ((r: number) => unknown) | NumberColumn | EncodedColumn;
}

/** Typed arrays' bytes are Native's little-endian values only on a little-endian machine (elsewhere: value by value). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Rows given row by row as BlockRows: each row's values in `columns`' order, or column c's at index `at[c]` of each row.
 */
export function nativeRows(columns: readonly NativeColumn[], rows: readonly (readonly unknown[])[], at?: readonly number[]): BlockRows {
  if (at && at.length !== columns.length) throw new Error(`a Native block of ${columns.length} columns given ${at.length} indices`);
  return {
    n: rows.length,
    column: (column) => {
      const c = at ? at[column] : column;
      return (r) => rows[r][c];
    },
  };
}

/**
 * One Native block of rows given column by column, as the pieces of its bytes in order. An encoded column's bytes are
 * pieces as given (not copied); each other column is written into a buffer of its own (a block is never grown, and so
 * copied, as a whole). A null in a column that is not Nullable is written as the type's default (deleted rows' unused
 * columns).
 */
export function nativeBlockPieces(columns: readonly NativeColumn[], rows: BlockRows): Uint8Array[] {
  const n = rows.n;
  const head = new Bytes(20);
  head.varint(columns.length);
  head.varint(n);
  const pieces: Uint8Array[] = [head.buf.subarray(0, head.at)];
  columns.forEach((col, column) => {
    const given = rows.column(column);
    const nullable = col.type.startsWith('Nullable(');
    const base = nullable ? col.type.slice(9, -1) : col.type;
    const named = new Bytes(2 + col.name.length + col.type.length);
    named.string(col.name);
    named.string(col.type);
    pieces.push(named.buf.subarray(0, named.at));
    if (typeof given !== 'function' && 'encoded' in given) {
      if (nullable) pushAll(pieces, given.nulls ?? new Uint8Array(n));
      return pushAll(pieces, given.values);
    }
    const b = new Bytes(sizeOf(base, given, n) + (nullable ? n : 0));
    if (typeof given !== 'function' && LITTLE_ENDIAN && base !== 'String') numberColumn(b, base, nullable, given, n);
    else {
      const get = typeof given === 'function' ? given : (r: number) => (given.nulls?.[r] ? null : given.numbers[r]);
      if (!nullable) writeValues(b, base, get, n, null, null);
      else {
        // The null bytes come first in the block: their place kept, filled once the values are written.
        const nulls = new Uint8Array(n);
        b.bytes(nulls);
        writeValues(b, base, get, n, null, nulls);
        b.buf.set(nulls, 0);
      }
    }
    pieces.push(b.buf.subarray(0, b.at));
  });
  return pieces;
}

function pushAll(pieces: Uint8Array[], bytes: Uint8Array | readonly Uint8Array[]): void {
  if (bytes instanceof Uint8Array) pieces.push(bytes);
  else for (const piece of bytes) pieces.push(piece);
}

/**
 * About the bytes of a column's values (a buffer too small grows by doubling, copying what it holds): a number's 8, and
 * for strings the UTF-16 length of some rows, sampled, and their length bytes.
 */
function sizeOf(base: string, given: ((r: number) => unknown) | NumberColumn, n: number): number {
  if (base !== 'String' || typeof given !== 'function') return 8 * n;
  const step = Math.max(1, Math.floor(n / 32));
  let units = 0;
  let sampled = 0;
  for (let r = 0; r < n; r += step, sampled++) {
    const v = given(r);
    if (v !== null && v !== undefined) units += text(v).length;
  }
  return sampled ? Math.ceil((1.25 * units) / sampled + 2) * n : 0;
}

/**
 * Columns of n rows each in Native's form, to be written into blocks later (nativeBlockPieces, as EncodedColumns) or cut by
 * row (offsets): all of them in one buffer, so that a worker's message moves one buffer for a job's calls. Each column is
 * written into a buffer of this thread's kept from call to call, then copied into that one.
 */
export function encodeColumns(specs: readonly { type: NativeType; get: (r: number) => unknown }[], n: number): WholeColumn[] {
  const written = specs.map(({ type, get }, k) => {
    const nullable = type.startsWith('Nullable(');
    const base = nullable ? type.slice(9, -1) : type;
    const b = (scratch[k] ??= new Bytes(9 * n));
    b.at = 0;
    const offsets = base === 'String' ? scratchWords(k, n + 1) : null;
    const nulls = nullable ? scratchNulls(k, n) : null;
    writeValues(b, base, get, n, offsets, nulls);
    return { b, offsets, nulls };
  });
  // Offsets first (4-byte aligned), then each column's null bytes and values.
  let bytes = 0;
  for (const w of written) bytes += (w.offsets ? 4 * (n + 1) : 0) + (w.nulls ? n : 0) + w.b.at;
  const buffer = new ArrayBuffer(bytes);
  const all = new Uint8Array(buffer);
  let at = 0;
  const offsets = written.map((w) => {
    if (!w.offsets) return null;
    const o = new Uint32Array(buffer, at, n + 1);
    o.set(w.offsets);
    at += 4 * (n + 1);
    return o;
  });
  return written.map((w, k) => {
    let nulls: Uint8Array | null = null;
    if (w.nulls) {
      nulls = all.subarray(at, at + n);
      nulls.set(w.nulls);
      at += n;
    }
    const values = all.subarray(at, at + w.b.at);
    values.set(w.b.buf.subarray(0, w.b.at));
    at += w.b.at;
    return { encoded: true, nulls, values, offsets: offsets[k] };
  });
}

const scratch: Bytes[] = [];
const words: Uint32Array[] = [];
const nullBytes: Uint8Array[] = [];

function scratchWords(k: number, n: number): Uint32Array {
  if (!words[k] || words[k].length < n) words[k] = new Uint32Array(Math.max(n, 2 * (words[k]?.length ?? 0)));
  return words[k].subarray(0, n);
}

/** Zeroed null bytes for n rows (writeValues sets only the nulls). */
function scratchNulls(k: number, n: number): Uint8Array {
  if (!nullBytes[k] || nullBytes[k].length < n) nullBytes[k] = new Uint8Array(Math.max(n, 2 * (nullBytes[k]?.length ?? 0)));
  return nullBytes[k].subarray(0, n).fill(0);
}

/**
 * The values of a column of type `base` (a null as the type's default), each row's value read once: a Nullable column's
 * null bytes into `nulls` (1: null), a String column's row offsets into `offsets`.
 */
function writeValues(b: Bytes, base: string, get: (r: number) => unknown, n: number, offsets: Uint32Array | null, nulls: Uint8Array | null): void {
  const start = b.at;
  switch (base) {
    case 'String': {
      // A value equal to the row above's is a copy of its bytes (a run's id, a rollout's key over its calls, a
      // model's name): no second UTF-8 encoding.
      let prev: unknown;
      let prevAt = 0;
      let prevLen = 0;
      for (let r = 0; r < n; r++) {
        if (offsets) offsets[r] = b.at - start;
        const v = get(r);
        if (v === null || v === undefined) {
          if (nulls !== null) nulls[r] = 1;
          b.room(1);
          b.buf[b.at++] = 0;
          continue;
        }
        if (v === prev) {
          b.room(prevLen);
          const buf = b.buf;
          if (prevLen <= 64) for (let k = 0; k < prevLen; k++) buf[b.at + k] = buf[prevAt + k];
          else buf.copy(buf, b.at, prevAt, prevAt + prevLen);
          b.at += prevLen;
          continue;
        }
        prev = v;
        prevAt = b.at;
        b.string(text(v));
        prevLen = b.at - prevAt;
      }
      if (offsets) offsets[n] = b.at - start;
      break;
    }
    case 'Float64':
      b.room(8 * n);
      for (let r = 0; r < n; r++) {
        const v = get(r);
        if (nulls !== null && (v === null || v === undefined)) nulls[r] = 1;
        b.buf.writeDoubleLE(v === null || v === undefined ? 0 : Number(v), b.at);
        b.at += 8;
      }
      break;
    case 'Int64':
    case 'UInt64': {
      b.room(8 * n);
      const buf = b.buf;
      for (let r = 0; r < n; r++) {
        const v = get(r);
        if (nulls !== null && (v === null || v === undefined)) nulls[r] = 1;
        const x = v === null || v === undefined ? 0 : integer(v);
        const p = b.at;
        if (x >= 0 && x < TWO_32) {
          // Most values (counts, offsets, lengths): four bytes and four zeros, without the generic path's division.
          buf[p] = x & 0xff;
          buf[p + 1] = (x >>> 8) & 0xff;
          buf[p + 2] = (x >>> 16) & 0xff;
          buf[p + 3] = x >>> 24;
          buf[p + 4] = 0;
          buf[p + 5] = 0;
          buf[p + 6] = 0;
          buf[p + 7] = 0;
        } else {
          const hi = Math.floor(x / TWO_32);
          buf.writeUInt32LE(x - hi * TWO_32, p);
          buf.writeInt32LE(hi | 0, p + 4);
        }
        b.at = p + 8;
      }
      break;
    }
    case 'UInt32':
      b.room(4 * n);
      for (let r = 0; r < n; r++) {
        const v = get(r);
        if (nulls !== null && (v === null || v === undefined)) nulls[r] = 1;
        b.buf.writeUInt32LE((v === null || v === undefined ? 0 : integer(v)) >>> 0, b.at);
        b.at += 4;
      }
      break;
    case 'UInt8':
      b.room(n);
      for (let r = 0; r < n; r++) {
        const v = get(r);
        if (nulls !== null && (v === null || v === undefined)) nulls[r] = 1;
        b.buf[b.at++] = (v === null || v === undefined ? 0 : integer(v)) & 0xff;
      }
      break;
    default:
      throw new Error(`no Native encoding for ${base}`);
  }
}

/** A number column given whole, on a little-endian machine: its typed values' bytes. */
function numberColumn(b: Bytes, base: string, nullable: boolean, col: NumberColumn, n: number): void {
  const { numbers, nulls } = col;
  if (nullable) b.bytes(nulls ? nulls.subarray(0, n) : new Uint8Array(n));
  const bytes = (a: Float64Array | Uint32Array | Uint8Array) => b.bytes(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  switch (base) {
    case 'Float64':
      return bytes(numbers.subarray(0, n));
    case 'Int64':
    case 'UInt64': {
      const words = new Uint32Array(2 * n);
      for (let r = 0; r < n; r++) {
        const x = integer(numbers[r]);
        if (x >= 0 && x < TWO_32) words[2 * r] = x;
        else {
          const hi = Math.floor(x / TWO_32);
          words[2 * r] = x - hi * TWO_32;
          words[2 * r + 1] = hi >>> 0;
        }
      }
      return bytes(words);
    }
    case 'UInt32': {
      const words = new Uint32Array(n);
      for (let r = 0; r < n; r++) words[r] = integer(numbers[r]) >>> 0;
      return bytes(words);
    }
    case 'UInt8': {
      const out = new Uint8Array(n);
      for (let r = 0; r < n; r++) out[r] = integer(numbers[r]) & 0xff;
      return bytes(out);
    }
    default:
      throw new Error(`no Native encoding for ${base}`);
  }
}
