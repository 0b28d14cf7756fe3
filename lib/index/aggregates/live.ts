// Per-rollout aggregates kept up to date by folding in appended calls, for the live path: a batch that
// appended k calls to a rollout costs O(k) (plus O(k log n) for the TTFT median) instead of re-reading all
// of the rollout's n calls. The fold computes exactly what `recomputeRollout` computes from all calls (same
// null-skipping sums, the same compensated latency sum carried as its running (sum, compensation) pair, the
// same median and tag lists); tests/unit/index/aggregates/live.test.ts checks the two agree on random data.
// Folds are cached only for rollouts the live path touched, a bounded number of them; any change that is
// not a pure append (a file read again, a deleted file, an error) drops the rollout's fold.
import type Database from 'better-sqlite3';
import { gapsAndMismatch, type RolloutCaptureState } from './rollouts';
import { callMirror } from '../ingest/rows';

const AGG_COLUMNS = `tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_ms, ttft_ms, error_category, model_server, dialect,
  started_at, completed_at`;

type Row = [
  tokensIn: number | null, tokensOut: number | null, tokensReasoning: number | null, tokensTotal: number | null, cachedTokens: number | null,
  latencyMs: number | null, ttftMs: number | null, errorCategory: string | null, modelServer: string | null, dialect: string | null,
  startedAt: number | null, completedAt: number | null,
];

const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

function prepare(db: Database.Database) {
  return {
    calls: db.prepare(`SELECT ${AGG_COLUMNS} FROM calls WHERE rollout_pk = ? AND call_index >= ? AND call_index < ? ORDER BY call_index`).raw(),
    rollout: db.prepare('SELECT rollout_id, capture_file, marker, unreadable, attached_calls, attached_tokens_total, attached_gaps FROM rollouts WHERE pk = ?'),
    update: db.prepare(
      `UPDATE rollouts SET num_calls = ?, tokens_in = ?, tokens_out = ?, tokens_reasoning = ?, tokens_total = ?, cached_tokens = ?,
        latency_sum = ?, latency_max = ?, ttft_p50 = ?, errors = ?, gaps = ?, gap_count = ?, model_servers = ?, dialects = ?,
        error_categories = ?, started_at = ?, completed_at = ?, mismatch = ? WHERE pk = ?`,
    ),
  };
}

function stmts(db: Database.Database) {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepare(db)));
  return s;
}

const add = (s: number | null, v: number | null) => (v === null ? s : (s ?? 0) + v);

function insertSorted(a: number[], v: number): void {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  a.splice(lo, 0, v);
}

export class RolloutFold {
  calls = 0;
  /** The capture file's next call index this fold has seen up to (the next append starts there). */
  upTo = 0;
  private tokens: (number | null)[] = [null, null, null, null, null];
  private latencyN = 0;
  private latencyS = 0;
  private latencyC = 0;
  private latencyMax: number | null = null;
  private readonly ttfts: number[] = [];
  private errors = 0;
  private readonly servers = new Set<string>();
  private readonly dialects = new Set<string>();
  private readonly errorCategories = new Set<string>();
  private startedAt: number | null = null;
  private completedAt: number | null = null;

  add(r: Row): void {
    this.calls++;
    for (let i = 0; i < 5; i++) this.tokens[i] = add(this.tokens[i], r[i] as number | null);
    const latency = r[5];
    if (latency !== null) {
      // neumaierSum, one step at a time.
      const t = this.latencyS + latency;
      if (Math.abs(this.latencyS) >= Math.abs(latency)) this.latencyC += this.latencyS - t + latency;
      else this.latencyC += latency - t + this.latencyS;
      this.latencyS = t;
      this.latencyN++;
      this.latencyMax = this.latencyMax === null ? latency : Math.max(this.latencyMax, latency);
    }
    if (r[6] !== null) insertSorted(this.ttfts, r[6]);
    if (r[7] !== null) {
      this.errors++;
      this.errorCategories.add(r[7]);
    }
    if (r[8] !== null) this.servers.add(r[8]);
    if (r[9] !== null) this.dialects.add(r[9]);
    if (r[10] !== null) this.startedAt = this.startedAt === null ? r[10] : Math.min(this.startedAt, r[10]);
    if (r[11] !== null) this.completedAt = this.completedAt === null ? r[11] : Math.max(this.completedAt, r[11]);
  }

  /**
   * Folds in the rollout's calls with from <= call_index < to, in call_index order, and moves upTo there. The
   * bound matters: a concurrent full pass may already have stored calls past `to`, which a later append
   * starting at `to` will bring.
   */
  addFromDb(db: Database.Database, pk: number, from: number, to: number): void {
    callMirror(db)?.localize(pk);
    const rows = stmts(db).calls.all(pk, from, to) as Row[];
    for (const r of rows) this.add(r);
    this.upTo = to;
  }

  /** Writes the aggregates to the rollout's row, with the gaps and mismatch rules of `rolloutAggregate`. */
  write(db: Database.Database, pk: number, hasCaptureDir: boolean): void {
    const r = stmts(db).rollout.get(pk) as RolloutCaptureState;
    const tokensTotal = this.tokens[3];
    const { gaps, mismatch } = gapsAndMismatch(r, hasCaptureDir, this.calls, tokensTotal);
    const c = this.latencyC;
    const latencySum = this.latencyN ? (c && Number.isFinite(c) ? this.latencyS + c : this.latencyS) : null;
    const n = this.ttfts.length;
    const ttftP50 = n === 0 ? null : n % 2 ? this.ttfts[n >> 1] : (this.ttfts[(n >> 1) - 1] + this.ttfts[n >> 1]) / 2;
    const tags = (set: Set<string>) => (set.size ? `|${[...set].sort().join('|')}|` : null);
    stmts(db).update.run(
      this.calls, ...this.tokens, latencySum, this.latencyMax, ttftP50, this.errors, JSON.stringify(gaps), gaps.length,
      tags(this.servers), tags(this.dialects), tags(this.errorCategories), this.startedAt, this.completedAt, mismatch, pk,
    );
  }
}

/** A bounded cache of folds, least recently used out first. */
export class FoldCache {
  private readonly folds = new Map<number, RolloutFold>();

  constructor(private readonly limit = 4096) {}

  get(pk: number): RolloutFold | undefined {
    const fold = this.folds.get(pk);
    if (fold) {
      this.folds.delete(pk);
      this.folds.set(pk, fold);
    }
    return fold;
  }

  set(pk: number, fold: RolloutFold): void {
    this.folds.delete(pk);
    this.folds.set(pk, fold);
    if (this.folds.size > this.limit) this.folds.delete(this.folds.keys().next().value!);
  }

  delete(pk: number): void {
    this.folds.delete(pk);
  }

  clear(): void {
    this.folds.clear();
  }
}
