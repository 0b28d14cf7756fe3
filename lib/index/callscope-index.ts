// The index facade: one SQLite file under the index dir, the runs discovered from the served PATHs, ingest
// with visible progress, and change events. The API, the pages and `serve` talk to this and nothing below.
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { callIdSql } from './call-id';
import { discoverRuns, type PathSpec, type RunSource } from './sources/discovery';
import { Ingestor, type IngestStats } from './ingest/ingest';
import type { IngestOptions } from './ingest/parallel';
import { listRollouts, runTotals, ROLLOUT_COLUMNS, type RolloutPage, type RolloutPageQuery, type RolloutRow, type RunTotals } from './queries/rollouts';
import { ROLLOUT_INDEXES, dropRolloutIndexes, migrate } from './schema';
import { CompareCache, compareRuns } from './compare/compare';
import { TaskCache, taskPage, type TaskPageQuery } from './aggregates/tasks';
import { bestFirst, bestOf, type AgentTasks } from '../rollouts/task-groups';
import type { PairBy } from '../rollouts/task-changes';
import { callsOfRollout, locateCall, type CallLocation } from './queries/payload';
import { callDetailOf, rolloutDetailOf, withTaskParts } from './queries/rollout-detail';
import type { CallSummary } from '../api/call-schemas';
import type { Compare } from '../api/compare-schemas';
import type { Run } from '../api/schemas';
import type { TaskPage } from '../api/task-schemas';
import type { CallContext, CallDetail, ChangeEvent, FileSpan, IndexReader, IndexRolloutDetail, IndexTaskDetail } from './reader';

/** A pass that changed rollouts in this many batches or more fills their compare figures in the background. */
const FILL_MIN_BATCHES = 3;

/** Ingest workers (parallel.ts), and for tests smaller compare batches and fill threshold than the defaults. */
export interface IndexOptions extends IngestOptions {
  compareBatchShift?: number;
  compareFillMin?: number;
  /**
   * An index nobody reads from (the ClickHouse ingest's working copy, clickhouse/sync.ts): its compare figures and
   * task groups are not filled in the background after a pass.
   */
  workingCopy?: boolean;
  /** Runs of at most this many rollouts get their task groups built by compare itself (default COMPARE_BUILD_ROWS). */
  compareTaskRows?: number;
}

type RunProgress = Run['progress'];

export type { ChangeEvent, IndexRolloutDetail, IndexTaskDetail } from './reader';

/** Compare builds the task groups of runs up to this size itself; larger ones are built in the background. */
const COMPARE_BUILD_ROWS = 20_000;

export class CallscopeIndex extends EventEmitter implements IndexReader {
  readonly db: Database.Database;
  private runs: (RunSource & { no: number })[] = [];
  private readonly progress = new Map<string, RunProgress>();
  private readonly ingestor: Ingestor;
  private ingesting: Promise<void> | null = null;
  private readonly compareCache: CompareCache;
  private readonly taskCache = new TaskCache();
  /** Each run's count of passes that changed it: the task groups kept for a run are those of its last count. */
  private readonly runChanges = new Map<number, number>();
  /** The index's data_version when the kept totals were last checked (see totals()). */
  private dataVersion = -1;
  private again = false;
  private closed = false;
  /** Each run's passes in progress (a full pass and the live path's can overlap): what each has changed so far. */
  private readonly passes = new Map<number, Set<IngestStats>>();
  private fillChecked = false;
  private readonly fillScheduled = new Set<number>();
  private filling: Promise<void> = Promise.resolve();

  private constructor(
    readonly specs: PathSpec[],
    readonly indexFile: string,
    private readonly options: IndexOptions,
  ) {
    super();
    this.compareCache = new CompareCache(options.compareBatchShift);
    this.db = new Database(indexFile);
    migrate(this.db, { rolloutIndexes: !options.workingCopy });
    this.ingestor = new Ingestor(this.db, options);
  }

  static async open(specs: PathSpec[], indexDir: string, options: IndexOptions = {}): Promise<CallscopeIndex> {
    mkdirSync(indexDir, { recursive: true });
    const index = new CallscopeIndex(specs, path.join(indexDir, 'index.sqlite'), options);
    await index.discover();
    return index;
  }

  /** Whether close() was called (a pass that was running when it was ends without writing). */
  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.compareCache.flush(this.db);
    this.db.close();
  }

  /**
   * After a pass that changed many batches of a run's rollouts (a cold ingest, a re-read file), and after the
   * first pass of this process over runs whose figures were never computed (an index from an older version),
   * computes the compare figures of those batches in the background, one batch per event-loop turn, so that
   * the first compare does not. Small changes (live appends) leave it to the next compare, which recomputes a
   * batch or two.
   */
  private fillCompare(runNo: number, batches: Iterable<number>): void {
    const todo = [...new Set(batches)].sort((x, y) => x - y);
    if (this.options.workingCopy || todo.length < (this.options.compareFillMin ?? FILL_MIN_BATCHES)) return;
    this.fillScheduled.add(runNo);
    const previous = this.filling;
    const pass = this.ingesting; // a full pass (and its index build) finishes first
    this.filling = (async () => {
      await previous;
      await pass?.catch(() => undefined);
      for (const b of todo) {
        await yieldToLoop();
        if (this.closed) return;
        this.compareCache.fill(this.db, runNo, b);
      }
      await yieldToLoop();
      if (!this.closed) this.compareCache.figures(this.db, runNo, true); // and the whole figures, for a fresh process
    })();
  }

  /** Resolves when the background compare figures scheduled so far are computed. */
  compareFilled(): Promise<void> {
    return this.filling;
  }

  /** (Re)discovers runs under the PATHs and registers them. */
  async discover(): Promise<void> {
    const sources = await discoverRuns(this.specs);
    const upsert = this.db.prepare(
      `INSERT INTO runs (id, root, rollouts_file, failures_file, capture_dir) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET root = excluded.root, rollouts_file = excluded.rollouts_file, failures_file = excluded.failures_file,
       capture_dir = excluded.capture_dir`,
    );
    const noOf = this.db.prepare('SELECT no FROM runs WHERE id = ?');
    this.runs = sources.map((s) => {
      upsert.run(s.id, s.root, s.rolloutsFile, s.failuresFile, s.captureDir);
      const no = (noOf.get(s.id) as { no: number }).no;
      if (!this.progress.has(s.id)) this.progress.set(s.id, { state: 'pending', files_read: 0, bytes_read: 0, lines_read: 0, error: null });
      return { ...s, no };
    });
    this.emit('runs');
  }

  /** The runs as discovered (paths only; no totals). */
  listRunSources(): readonly RunSource[] {
    return this.runs;
  }

  /** Ingests whatever changed; concurrent calls coalesce into one more pass. */
  refresh(): Promise<void> {
    if (this.ingesting) {
      this.again = true;
      return this.ingesting;
    }
    this.ingesting = (async () => {
      // A cold ingest (nothing indexed yet) writes the rollouts without their secondary indexes and builds
      // them at the end (schema.ts, ROLLOUT_INDEXES); queries meanwhile run without them.
      // (A working copy has none: migrate.)
      const cold = !this.options.workingCopy && this.db.prepare('SELECT 1 FROM rollouts LIMIT 1').get() === undefined;
      if (cold) dropRolloutIndexes(this.db);
      try {
        do {
          this.again = false;
          for (const run of this.runs) if (!this.closed) await this.ingestOne(run);
        } while (this.again && !this.closed);
      } finally {
        // One index per turn of the event loop: over 100k rollouts each is a sort of a few hundred ms at most.
        if (cold) {
          for (const index of ROLLOUT_INDEXES) {
            if (this.closed) break;
            await yieldToLoop();
            if (!this.closed) this.db.exec(index.sql);
          }
        }
      }
      if (!this.fillChecked && !this.closed) {
        this.fillChecked = true;
        // Runs this pass already scheduled (a cold ingest) are not looked at again.
        for (const run of this.runs) if (!this.fillScheduled.has(run.no)) this.fillCompare(run.no, this.compareCache.missing(this.db, run.no));
      }
    })().finally(() => {
      this.ingesting = null;
    });
    return this.ingesting;
  }

  /**
   * Ingests only what changed under the given paths: capture files and markers, rollouts files. A path no
   * known run owns (a new run directory, a new capture dir) triggers discovery and a full pass.
   */
  async refreshPaths(paths: Set<string>): Promise<void> {
    const byRun = new Map<RunSource & { no: number }, Set<string>>();
    let unknown = false;
    for (const p of paths) {
      const run = this.runs.find(
        (r) => r.rolloutsFile === p || r.failuresFile === p || (r.captureDir !== null && path.dirname(p) === r.captureDir),
      );
      if (!run) {
        unknown = true;
        continue;
      }
      if (!byRun.has(run)) byRun.set(run, new Set());
      byRun.get(run)!.add(p);
    }
    if (unknown) {
      await this.discover();
      await this.refresh();
      return;
    }
    for (const [run, files] of byRun) await this.ingestOne(run, files);
  }

  private async ingestOne(run: RunSource & { no: number }, only?: Set<string>): Promise<void> {
    const p = this.progress.get(run.id)!;
    if (p.state !== 'ready') p.state = 'indexing';
    const stats: IngestStats = {
      filesRead: 0, bytesRead: 0, linesRead: 0, rolloutsChanged: new Set(), onFirstChange: () => this.compareCache.dropStored(this.db, run.no),
    };
    let running = this.passes.get(run.no);
    if (!running) this.passes.set(run.no, (running = new Set()));
    running.add(stats);
    try {
      await this.ingestor.ingestRun(run.no, run, stats, only);
      p.state = 'ready';
      p.error = null;
    } catch (err) {
      if (this.closed) return; // closed while the pass awaited: nothing more to write
      p.state = 'error';
      p.error = (err as Error).message;
    } finally {
      running.delete(stats);
      if (running.size === 0) this.passes.delete(run.no);
    }
    if (this.closed) return;
    this.prebuildTasks(run);
    p.files_read += stats.filesRead;
    p.bytes_read += stats.bytesRead;
    p.lines_read += stats.linesRead;
    if (stats.rolloutsChanged.size) {
      // After the pass, so that compare figures computed mid-pass are not kept.
      this.compareCache.invalidate(this.db, run.no, stats.rolloutsChanged);
      this.runChanges.set(run.no, (this.runChanges.get(run.no) ?? 0) + 1);
      this.fillCompare(run.no, [...stats.rolloutsChanged].map((pk) => pk >> this.compareCache.shift));
      // Keys only for someone listening (a working copy's owner, the ClickHouse index, follows the database instead).
      if (this.listenerCount('change') > 0) this.emit('change', { run: run.id, rollouts: this.keysOf(run.no, stats.rolloutsChanged) } satisfies ChangeEvent);
    }
    this.emit('pass', run.id); // every pass, changed or not (the ClickHouse mirror writes what it wrote: files' offsets too)
  }

  /**
   * The keys of these rollouts of a run: looked up one by one for a few (the live path), read with the run's
   * rows for many (a cold pass changes every rollout; a statement with 100k literals cost a third of a second).
   */
  private keysOf(runNo: number, pks: Set<number>): string[] {
    if (pks.size <= 1000) {
      const rows = this.db.prepare('SELECT key FROM rollouts WHERE pk IN (SELECT value FROM json_each(?))').all(JSON.stringify([...pks])) as { key: string }[];
      return rows.map((r) => r.key);
    }
    const keys: string[] = [];
    for (const r of this.db.prepare('SELECT pk, key FROM rollouts WHERE run_no = ?').iterate(runNo) as Iterable<{ pk: number; key: string }>) {
      if (pks.has(r.pk)) keys.push(r.key);
    }
    return keys;
  }

  runSource(id: string): (RunSource & { no: number }) | undefined {
    return this.runs.find((r) => r.id === id);
  }

  /** Whether a pass over the run is running now. */
  passRunning(id: string): boolean {
    const run = this.runSource(id);
    return run !== undefined && this.passes.has(run.no);
  }

  /** Each run's ingest progress, without its totals (a ClickHouse working copy's, written after every flush). */
  listProgress(): { id: string; progress: Run['progress'] }[] {
    return this.runs.map((r) => ({ id: r.id, progress: { ...this.progress.get(r.id)! } }));
  }

  listRuns(): Run[] {
    return this.runs.map((r) => ({
      id: r.id,
      rollouts_file: r.rolloutsFile,
      failures_file: r.failuresFile,
      capture_dir: r.captureDir,
      capture_dir_note: r.captureDirNote ?? null,
      reward_profile_file: r.rewardProfileFile ?? null,
      aggregate_metrics_file: r.aggregateMetricsFile ?? null,
      progress: { ...this.progress.get(r.id)! },
      totals: this.totals(r.no, r.id),
    }));
  }

  /**
   * A run's totals: every page and /api/runs ask for them, and over 100k rollouts a scan of the run's rows costs
   * tens of milliseconds. Once the run is indexed they come from the compare cache's per-batch parts, which a
   * change drops for its own batches only (so a live run reads one batch again, and the other runs nothing).
   * While the run's first pass has changed rollouts and is still going, they are read whole each time, so that they
   * grow visibly. Before that (a warm start over unchanged files, or no pass begun yet) the kept ones hold, those
   * stored by a previous process included (the compare cache drops them in the transaction of a pass's first
   * change), so that /api/runs answers at once instead of reading 100k rows. A write by another connection (another
   * process on the same index: data_version moves) drops every kept part.
   */
  private totals(runNo: number, id: string): RunTotals {
    if (this.progress.get(id)?.state !== 'ready' && [...(this.passes.get(runNo) ?? [])].some((p) => p.rolloutsChanged.size > 0)) {
      return runTotals(this.db, runNo);
    }
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version !== this.dataVersion) {
      this.compareCache.dropTotals();
      this.dataVersion = version;
    }
    return structuredClone(this.compareCache.runTotals(this.db, runNo));
  }

  listRollouts(runId: string, query: RolloutPageQuery): RolloutPage | null {
    const run = this.runSource(runId);
    return run ? listRollouts(this.db, run.no, query) : null;
  }

  rollout(runId: string, key: string): RolloutRow | null {
    const run = this.runSource(runId);
    if (!run) return null;
    return (this.db.prepare(`SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE run_no = ? AND key = ?`).get(run.no, key) as RolloutRow | undefined) ?? null;
  }

  /** A rollout's fields and its capture in the attachment shape (calls without payloads). */
  async rolloutDetail(runId: string, key: string): Promise<IndexRolloutDetail | null> {
    const run = this.runSource(runId);
    const row = this.rollout(runId, key);
    if (!run || !row) return null;
    return rolloutDetailOf(runId, run, row, this.lineSpan(row.pk), () => callsOfRollout(this.db, row.pk), this.attemptsOf(run.no, row));
  }

  /**
   * A rollout's calls as index columns, in call_index order, read from SQLite only (no capture line is opened):
   * what the timeline, charts and calls table draw, fast even for a 30,000-call rollout. Null for an unknown id.
   */
  rolloutCalls(runId: string, key: string): CallSummary[] | null {
    const row = this.rollout(runId, key);
    if (!row) return null;
    return (this.db.prepare(`SELECT ${CALL_ROW_COLUMNS} FROM calls WHERE rollout_pk = ? ORDER BY call_index`).raw().all(row.pk) as never[][]).map(toCallSummary);
  }

  /**
   * One call (by model_call_id, or i<call_index>) with its neighbours in call_index order and the previous call
   * of the same model server, for the call page: a few indexed lookups instead of reading every call.
   */
  callContext(runId: string, key: string, callId: string): CallContext | null {
    const row = this.rollout(runId, key);
    const loc = row ? locateCall(this.db, row.pk, callId) : null;
    if (!row || !loc) return null;
    const one = (sql: string, ...args: unknown[]) => {
      const r = this.db.prepare(`SELECT ${CALL_ROW_COLUMNS} FROM calls WHERE rollout_pk = ? AND ${sql} LIMIT 1`).raw().get(row.pk, ...args) as never[] | undefined;
      return r ? toCallSummary(r) : null;
    };
    const at = loc.call_index;
    const call = one('call_index = ?', at)!;
    const count = (sql: string, ...args: unknown[]) => (this.db.prepare(`SELECT count(*) FROM calls WHERE rollout_pk = ?${sql}`).pluck().get(row.pk, ...args) as number);
    return {
      call,
      total: count(''),
      position: count(' AND call_index < ?', at),
      prev: one('call_index < ? ORDER BY call_index DESC', at),
      next: one('call_index > ? ORDER BY call_index', at),
      previousOfServer: one('call_index < ? AND model_server IS ? ORDER BY call_index DESC', at, call.model_server),
    };
  }

  /** The other attempts at the same task and rollout index as this rollout, or null for an unknown id. */
  rolloutAttempts(runId: string, key: string): IndexRolloutDetail['attempts'] | null {
    const run = this.runSource(runId);
    const row = this.rollout(runId, key);
    return run && row ? this.attemptsOf(run.no, row) : null;
  }

  /**
   * The best other rollout of the same task in the run, persisted or a failed attempt, any agent (what "diff with…"
   * offers; lib/rollouts/task-groups.ts byBest); null for a rollout without a task index or alone.
   */
  bestOfTask(runId: string, key: string): { key: string; reward: number | null } | null {
    const run = this.runSource(runId);
    const row = this.rollout(runId, key);
    if (!run || !row || row.task_index === null) return null;
    const others = this.db
      .prepare('SELECT key, reward, failure_class, rollout_index, attempt FROM rollouts WHERE run_no = ? AND task_index = ? AND pk != ?')
      .all(run.no, row.task_index, row.pk) as { key: string; reward: number | null; failure_class: string | null; rollout_index: number | null; attempt: number | null }[];
    const best = bestOf(others.map((r) => ({ key: r.key, reward: r.reward, failed: r.failure_class !== null, order: r.rollout_index ?? 0, attempt: r.attempt ?? 0 })));
    return best && { key: best.key, reward: best.reward };
  }

  private attemptsOf(runNo: number, row: RolloutRow): IndexRolloutDetail['attempts'] {
    if (row.task_index === null || row.rollout_index === null) return [];
    return this.db
      .prepare('SELECT key, attempt, failure_class, reward FROM rollouts WHERE run_no = ? AND task_index = ? AND rollout_index = ? AND pk != ? ORDER BY IFNULL(attempt, 0)')
      .all(runNo, row.task_index, row.rollout_index, row.pk) as IndexRolloutDetail['attempts'];
  }

  /** One call with its payloads: spliced from the capture line, or from the rollout line's trajectory. */
  async callDetail(runId: string, key: string, callId: string): Promise<CallDetail | null> {
    const row = this.rollout(runId, key);
    const loc = row ? locateCall(this.db, row.pk, callId) : null;
    return row && loc ? callDetailOf(loc, () => this.lineSpan(row.pk)) : null;
  }

  /** Where each of a rollout's calls is stored, in call_index order; null for an unknown rollout. */
  callLocations(runId: string, key: string): CallLocation[] | null {
    const row = this.rollout(runId, key);
    return row ? callsOfRollout(this.db, row.pk) : null;
  }

  /** A call's location by model_call_id or i<call_index>; null for an unknown rollout or call. */
  callLocation(runId: string, key: string, callId: string): CallLocation | null {
    const row = this.rollout(runId, key);
    return row ? locateCall(this.db, row.pk, callId) : null;
  }

  /** The byte span of a call's stored capture line, or null when the call has none. */
  rawLocation(runId: string, key: string, callId: string): FileSpan | null {
    const row = this.rollout(runId, key);
    if (!row) return null;
    const loc = locateCall(this.db, row.pk, callId);
    if (!loc || loc.kind !== 'capture') return null;
    return { path: loc.path, start: loc.line_offset, length: loc.line_length };
  }

  /** Where a rollout's own line is stored (its rollouts file and byte span); null for a rollout with no line. */
  lineLocation(runId: string, key: string): FileSpan | null {
    const row = this.rollout(runId, key);
    return row ? this.lineSpan(row.pk) : null;
  }

  private lineSpanQuery?: Database.Statement;

  private lineSpan(pk: number): FileSpan | null {
    // Prepared once: the rollout page, the line route and the detail each ask.
    this.lineSpanQuery ??= this.db.prepare('SELECT f.path, r.line_offset, r.line_length FROM rollouts r JOIN files f ON f.id = r.line_file WHERE r.pk = ?');
    const r = this.lineSpanQuery.get(pk) as
      | { path: string; line_offset: number; line_length: number }
      | undefined;
    return r ? { path: r.path, start: r.line_offset, length: r.line_length } : null;
  }

  /**
   * The version a run's kept task groups are checked against: its change count here and the index's data_version
   * (writes by another process). Null while a pass is changing the run: its groups are read whole each time.
   */
  private taskVersion(runNo: number, id: string): string | null {
    if (this.progress.get(id)?.state !== 'ready' && [...(this.passes.get(runNo) ?? [])].some((p) => p.rolloutsChanged.size > 0)) return null;
    return `${this.runChanges.get(runNo) ?? 0}:${this.db.pragma('data_version', { simple: true }) as number}`;
  }

  private readonly taskBuilds = new Map<number, Promise<void>>();
  private readonly taskBuildQueued = new Set<number>();

  /**
   * After a pass over a run, its task groups are built in the background: one build at a time per run, and at most
   * one waiting (it reads the run as it is when it starts, so passes that land meanwhile need no build of their own).
   */
  private prebuildTasks(run: RunSource & { no: number }): void {
    if (this.options.workingCopy || this.taskBuildQueued.has(run.no)) return;
    this.taskBuildQueued.add(run.no);
    const previous = this.taskBuilds.get(run.no) ?? Promise.resolve();
    const next = previous
      .then(() => void this.taskBuildQueued.delete(run.no))
      .then(() => yieldToLoop())
      .then(() => (this.closed ? undefined : this.taskCache.prebuild(this.db, run.no, () => (this.closed ? null : this.taskVersion(run.no, run.id)))))
      .catch(() => undefined); // a build that fails leaves the first request to build
    this.taskBuilds.set(run.no, next);
  }

  /** Resolves when the task groups scheduled so far are built (tests, benchmarks). */
  tasksBuilt(): Promise<void> {
    return Promise.all(this.taskBuilds.values()).then(() => undefined);
  }

  /**
   * A run's task groups for compare, which must answer fast (A2): those already built, or built now for a run of
   * at most COMPARE_BUILD_ROWS rollouts; for a larger run whose groups are not built yet, null (a build starts).
   */
  private groupsForCompare(run: RunSource & { no: number }): AgentTasks[] | null {
    const version = this.taskVersion(run.no, run.id);
    const kept = version === null ? null : this.taskCache.peek(run.no, version);
    if (kept) return kept;
    const rows = this.db.prepare('SELECT count(*) FROM rollouts WHERE run_no = ?').pluck().get(run.no) as number;
    if (rows <= (this.options.compareTaskRows ?? COMPARE_BUILD_ROWS)) return this.taskGroups(run.id) ?? [];
    this.prebuildTasks(run);
    return null;
  }

  /** A page of a run's task groups (lib/index/aggregates/tasks.ts); null for an unknown run. */
  tasks(runId: string, query: TaskPageQuery): TaskPage | null {
    const groups = this.taskGroups(runId);
    return groups && taskPage(groups, query);
  }

  /** Every agent's task groups of a run, whole (compare's changed tasks); null for an unknown run. */
  taskGroups(runId: string): AgentTasks[] | null {
    const run = this.runSource(runId);
    if (!run) return null;
    return this.taskCache.groups(this.db, run.no, this.taskVersion(run.no, run.id));
  }

  /**
   * One task of one agent ('' for lines without agent_ref): its group, its rollouts best first (bestFirst) with each
   * one's requested tool calls, and the sidecar's failure rows of the task. Null when the run or the task is unknown.
   * `groups`: the run's groups when the caller has them already (one build per request while a pass runs).
   */
  task(runId: string, agent: string, taskIndex: number, groups: AgentTasks[] | null = this.taskGroups(runId)): IndexTaskDetail | null {
    const run = this.runSource(runId);
    const group = groups?.find((a) => (a.agent ?? '') === agent)?.tasks.find((t) => t.task_index === taskIndex);
    if (!run || !group) return null;
    const rows = this.db
      .prepare(
        `SELECT ${ROLLOUT_COLUMNS}, (SELECT sum(c.tool_calls) FROM calls c WHERE c.rollout_pk = rollouts.pk) AS tool_calls_requested
         FROM rollouts WHERE run_no = ? AND key IN (SELECT value FROM json_each(?))`,
      )
      .all(run.no, JSON.stringify(group.rollout_ids)) as (RolloutRow & { tool_calls_requested: number | null })[];
    const place = new Map(bestFirst(group).map((k, i) => [k, i]));
    rows.sort((a, b) => place.get(a.key)! - place.get(b.key)!);
    const failures = this.db
      .prepare(
        `SELECT r.key, r.rollout_index, r.attempt, r.failure_class FROM rollouts r JOIN files f ON f.id = r.line_file
         WHERE r.run_no = ? AND r.task_index = ? AND f.kind = 'failures' AND IFNULL(r.agent, '') = ? ORDER BY r.rollout_index, IFNULL(r.attempt, 0)`,
      )
      .all(run.no, taskIndex, agent) as IndexTaskDetail['failures'];
    return { group, rollouts: rows, failures };
  }

  /**
   * The comparison of runs, with each run's headline pass@k per agent and the tasks whose pass@1 changed from the
   * first run to the second: paired by task index when the runs are over the same tasks, else by what names the
   * task (or as `pairBy` says).
   */
  compare(runIds: string[], pairBy?: PairBy): Compare | null {
    const runs = runIds.map((id) => this.runSource(id));
    if (runs.some((r) => !r)) return null;
    const comparison = compareRuns(this.db, runs.map((r) => ({ id: r!.id, no: r!.no, inputsFile: r!.inputsFile ?? null })), this.compareCache);
    return withTaskParts(comparison, runIds, runs.map((r) => this.groupsForCompare(r!)), pairBy);
  }
}

const CALL_ROW_COLUMNS = `call_index, ${callIdSql('model_call_id')}, model_server, model, dialect, status_code, error_category, finish_reason, started_at,
  completed_at, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, cache_creation_tokens, cache_hit, latency_ms, ttft_ms, tool_calls`;

// Raw rows and an object literal: several times faster than better-sqlite3's object mode at 30,000 rows.
const toCallSummary = (r: never[]): CallSummary => ({
  call_index: r[0], model_call_id: r[1], model_server: r[2], model: r[3], dialect: r[4], status_code: r[5], error_category: r[6],
  finish_reason: r[7], started_at: r[8], completed_at: r[9], tokens_in: r[10], tokens_out: r[11], tokens_reasoning: r[12],
  tokens_total: r[13], cached_tokens: r[14], cache_creation_tokens: r[15], cache_hit: r[16], latency_ms: r[17], ttft_ms: r[18], tool_calls: r[19],
});
