// Inserting Native blocks (native.ts). A ClickHouse server takes the block as the body of `INSERT … FORMAT Native`;
// the embedded engine's client passes an insert's body as text (chdb's connection joins it to the SQL as a string),
// so there the block is written to a file beside the database and inserted with `INSERT … SELECT * FROM file(…,
// Native)`: the same bytes, read by the same format reader.
import { mkdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickhouseTarget } from './connection';
import { nativeBlockPieces, nativeRows, type BlockRows, type NativeColumn } from './native';

let sequence = 0;

/** An insert whose blocks are ready (NativeInserter.prepare): `run` inserts them, `discard` drops them unrun. */
export interface PreparedInsert {
  run(): Promise<void>;
  discard(): void;
}

/**
 * No merging of the insert's own rows as it is written (`optimize_on_insert`, on by default, which for a
 * ReplacingMergeTree sorts and collapses each block by key first): a write never holds two rows of one key and version
 * (sync.ts writes each rollout once per flush, its calls and its dropped calls' deleted rows in separate inserts), so the
 * step found nothing to collapse and cost about half of the engine's work per call (1M calls inserted on chdb: 1.5 s of
 * CPU with it, 0.7–0.9 s without; a one-off probe, not committed). Rows of one key at several versions are collapsed by
 * merges and FINAL as before.
 */
const INSERT_SETTINGS = { optimize_on_insert: 0 } as const;

export class NativeInserter {
  private readonly spool: string | null;
  /** This inserter made the spool directory (a reader that never inserts leaves another's alone). */
  private spooled = false;

  constructor(
    private readonly client: ClickHouseClient,
    private readonly target: ClickhouseTarget,
  ) {
    // Beside the engine's directory (never inside it: that is the engine's own), one per process.
    this.spool = target.kind === 'chdb' ? `${target.dir}.inserts-${process.pid}` : null;
  }

  /**
   * Inserts the rows of `parts` (each a list of rows: values in `columns`' order, or each column's at its index in
   * `at`; or rows given column by column) into `table` of the target's database, as one insert of a block per part
   * (encoded one at a time, with a turn of the event loop between).
   */
  async insert(
    table: string, columns: readonly NativeColumn[], parts: readonly (readonly (readonly unknown[])[] | BlockRows)[], at?: readonly number[],
  ): Promise<void> {
    await (await this.prepare(table, columns, parts, at))?.run();
  }

  /**
   * `insert` in two steps: the blocks encoded (and on chdb written to the spool) now, the insert itself by `run`, once.
   * A write encodes its next table's rows while the engine inserts the one before (sync.ts). Null when there is no row;
   * a prepared insert that will not be run is `discard`ed (its spool file goes).
   */
  async prepare(
    table: string, columns: readonly NativeColumn[], parts: readonly (readonly (readonly unknown[])[] | BlockRows)[], at?: readonly number[],
  ): Promise<PreparedInsert | null> {
    const blocks: Uint8Array[] = [];
    for (const rows of parts) {
      if (rowCount(rows) === 0) continue;
      if (blocks.length) await yieldToLoop();
      for (const piece of encodeBlocks(columns, [rows], at)) blocks.push(piece);
    }
    return this.prepareEncoded(table, columns, blocks);
  }

  /** `prepare` of blocks already encoded (encodeBlocks' pieces, several calls' one after another). */
  async prepareEncoded(table: string, columns: readonly NativeColumn[], blocks: readonly Uint8Array[]): Promise<PreparedInsert | null> {
    if (!blocks.length) return null;
    const into = `${this.target.database}.${table} (${columns.map((c) => c.name).join(', ')})`;
    if (!this.spool) {
      return {
        run: async () => {
          const result = await this.client.exec({ query: `INSERT INTO ${into} FORMAT Native`, values: Readable.from(blocks.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength))), clickhouse_settings: INSERT_SETTINGS });
          for await (const _ of result.stream) void _;
        },
        discard: () => undefined,
      };
    }
    mkdirSync(this.spool, { recursive: true });
    this.spooled = true;
    const file = path.join(this.spool, `${++sequence}.native`);
    const discard = () => rmSync(file, { force: true });
    try {
      // Written off this thread in one call (a cold ingest spools some 300 MB per 1M calls). `writeFile` writes 512 KiB
      // at a time, each awaited: behind a busy event loop a 100 MB block took seconds to reach the file.
      const handle = await open(file, 'w');
      try {
        const { bytesWritten } = await handle.writev(blocks);
        const bytes = blocks.reduce((n, b) => n + b.length, 0);
        if (bytesWritten !== bytes) throw new Error(`${file}: ${bytesWritten} of ${bytes} bytes written`);
      } finally {
        await handle.close();
      }
    } catch (err) {
      discard();
      throw err;
    }
    return {
      run: async () => {
        try {
          await this.client.command({ query: `INSERT INTO ${into} SELECT * FROM file(${quote(file)}, Native)`, clickhouse_settings: INSERT_SETTINGS });
        } finally {
          discard();
        }
      },
      discard,
    };
  }

  /** Removes the spool directory (the engine's inserts are done). */
  close(): void {
    if (this.spool && this.spooled) rmSync(this.spool, { recursive: true, force: true });
  }
}

/**
 * The rows of `parts` (as `insert` takes them) as Native blocks, one per part with rows, as the pieces of their bytes
 * (native.ts nativeBlockPieces: encoded calls are not copied together). Encoding rows as soon as they are read lets
 * them die young: a write's rollout rows kept until their insert were copied by every young collection on the way.
 */
export function encodeBlocks(columns: readonly NativeColumn[], parts: readonly (readonly (readonly unknown[])[] | BlockRows)[], at?: readonly number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (const rows of parts) {
    if (rowCount(rows) === 0) continue;
    for (const piece of nativeBlockPieces(columns, Array.isArray(rows) ? nativeRows(columns, rows, at) : (rows as BlockRows))) pieces.push(piece);
  }
  return pieces;
}

function rowCount(rows: readonly (readonly unknown[])[] | BlockRows): number {
  return Array.isArray(rows) ? rows.length : (rows as BlockRows).n;
}

/** A ClickHouse string literal. */
function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
