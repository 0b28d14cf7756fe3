// The index in ClickHouse (`--clickhouse URL`): the same reader as the SQLite index (reader.ts), answered from the
// database, so that several `serve` processes can answer from one database and `ingest` can run on other machines.
//
// With `ingest` (serve over PATHs, and `callscope ingest`) this process also keeps the PATHs indexed: SQLite's
// ingest writes a working copy under the index dir and sync.ts mirrors what it changes into ClickHouse; a working
// copy that is missing or older than the database's rows of a run is first filled from them (hydrate.ts), so an
// ingest restarted anywhere reads only what was appended. Every reader, ingesting or not, follows the database: it
// polls for rows newer than the last it saw (POLL_MS) and emits `change` for the rollouts they are.
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { CallSummary } from '../../api/call-schemas';
import type { Compare } from '../../api/compare-schemas';
import type { Run } from '../../api/schemas';
import type { TaskPage } from '../../api/task-schemas';
import { bestFirst, bestOf, type AgentTasks } from '../../rollouts/task-groups';
import type { PairBy } from '../../rollouts/task-changes';
import { CallscopeIndex, type IndexOptions } from '../callscope-index';
import { dropWarmIngestPool, warmIngestPool } from '../ingest/parallel';
import { comparisonOf, sharedTasks, type RunFigures } from '../compare/compare';
import { relationOf, taskSample, type CompareRun } from '../compare/task-relation';
import { taskPage, type TaskPageQuery } from '../aggregates/tasks';
import type { CallLocation } from '../queries/payload';
import { callDetailOf, rolloutDetailOf, withTaskParts } from '../queries/rollout-detail';
import type { RolloutPage, RolloutPageQuery, RolloutRow, RunTotals } from '../queries/rollouts';
import type { PathSpec, RunSource } from '../sources/discovery';
import type { CallContext, CallDetail, ChangeEvent, FileSpan, IndexReader, IndexRolloutDetail, IndexTaskDetail } from '../reader';
import { describeTarget, openClient, type ClickhouseTarget } from './connection';
import { CLICKHOUSE_SCHEMA, ddl } from './schema';
import { attemptsOf, Reads, spans, type TaskMate } from './reads';
import { ClickhouseSync, Versions, type SyncedRun } from './sync';
import { NativeInserter } from './native-insert';
import type { NativeColumn } from './native';
import { Kept } from './kept';
import { hydrateRun, localState, markAllDirty, recordSynced } from './hydrate';

/** How often a reader looks for rows newer than those it has seen (live updates within a second). */
const POLL_MS = 250;
/** How often a long pass's changes are looked at (each pass's end writes at once: an append is written as it is read). */
const FLUSH_MS = 500;
/**
 * While a long pass runs, its changes are written every FLUSH_EVERY_MS or once FLUSH_CALLS calls wait, whichever
 * comes first: every insert is a part that the engine merges again, so a cold ingest written in a few large inserts
 * costs the engine a third of what one written every half second does (one-off chdb measure of 1M call rows: 1.8 core-s
 * as one insert, 3.1 as ten, 6.2 as 42).
 */
const FLUSH_EVERY_MS = 5_000;
const FLUSH_CALLS = 250_000;
/** Compare builds the task groups of runs up to this size itself; larger ones are built in the background (as SQLite's). */
const COMPARE_BUILD_ROWS = 20_000;
/** Runs whose task groups are kept at once (a run of 1M rollouts keeps some 200 MB of them). */
const KEPT_GROUPS = 6;
/** How long a run is quiet before its kept task groups are built again. */
const REBUILD_QUIET_MS = 1_000;
/** Rollout rows kept (a rollout page reads its row several times; a list page's rows are not kept). */
const KEPT_ROWS = 2_000;

type RowRead = NonNullable<Awaited<ReturnType<Reads['rollout']>>>;
/** A run's task groups at a version: being built (`built` null) or built. */
type GroupsEntry = { groups: Promise<AgentTasks[]>; built: AgentTasks[] | null };

export interface ClickhouseIndexOptions extends IndexOptions {
  /** Keep the PATHs ingested (a working copy under the index dir, mirrored into the database). */
  ingest: boolean;
  /** Answers no pages (`callscope ingest`): builds no task groups ahead of a request. */
  ingestOnly?: boolean;
  pollMs?: number;
}

type RunRow = RunSource & { month: number; ord: number };
type Progress = Run['progress'];

export class ClickhouseIndex extends EventEmitter implements IndexReader {
  private closed = false;
  private runs: RunRow[] = [];
  private readonly reads: Reads;
  /** Each run's newest version seen by the poll: what the kept totals and task groups were read at. */
  private readonly runVersions = new Map<string, number>();
  private lastVersion = 0;
  /** What is kept per run until the poll sees a newer version of it (`v`: the version it was read at). */
  private readonly kept = {
    totals: new Kept<RunTotals>(),
    groups: new Kept<GroupsEntry>(KEPT_GROUPS),
    figures: new Kept<Promise<RunFigures>>(),
    rows: new Kept<RowRead>(KEPT_ROWS),
    mates: new Kept<TaskMate[]>(KEPT_ROWS),
  };
  private readonly progress = new Map<string, Progress>();
  private timers: NodeJS.Timeout[] = [];
  private sync: ClickhouseSync | null = null;
  private pendingFlush: Promise<void> | null = null;
  /** When the last flush started (the timer's flushes of a long pass are FLUSH_EVERY_MS apart). */
  private lastFlushAt = 0;
  private flushError: string | null = null;
  private readonly versions = new Versions();
  private readonly inserter: NativeInserter;
  private polling: Promise<void> = Promise.resolve();
  /** The task groups of the most recently written runs, built in the background once the reader has started. */
  prebuilt: Promise<void> = Promise.resolve();
  private readonly rebuilds = new Map<string, NodeJS.Timeout>();
  /** Task groups being stored (close waits for them). */
  private readonly storing = new Set<Promise<void>>();

  private constructor(
    readonly target: ClickhouseTarget,
    private readonly client: ClickHouseClient,
    private readonly specs: PathSpec[],
    /** The working copy this process ingests into, or null (a reader only). */
    readonly local: CallscopeIndex | null,
    private readonly options: ClickhouseIndexOptions,
  ) {
    super();
    this.reads = new Reads(client, target.database);
    this.inserter = new NativeInserter(client, target);
  }

  static async open(target: ClickhouseTarget, specs: PathSpec[], indexDir: string, options: ClickhouseIndexOptions): Promise<ClickhouseIndex> {
    // One working copy per database (never shared between databases).
    const workingCopy = path.join(indexDir, `clickhouse-${createHash('sha256').update(describeTarget(target)).digest('hex').slice(0, 16)}`);
    // A working copy not made yet: the first refresh reads every file, and a large run takes the ingest workers (they
    // load while the database and the copy open).
    if (options.ingest && !existsSync(workingCopy)) warmIngestPool(options);
    const client = await openClient(target);
    try {
      await prepareDatabase(client, target);
    } catch (err) {
      dropWarmIngestPool();
      await client.close().catch(() => undefined);
      const e = new Error(`ClickHouse at ${describeTarget(target)}: ${(err as Error).message}`);
      e.name = (err as Error).name === 'ClickhouseUrlError' ? 'ClickhouseUrlError' : 'ClickhouseUnavailable';
      throw e;
    }
    let local: CallscopeIndex | null = null;
    if (options.ingest) local = await CallscopeIndex.open(specs, workingCopy, { ...options, workingCopy: true });
    const index = new ClickhouseIndex(target, client, specs, local, options);
    await index.start();
    return index;
  }

  private async start(): Promise<void> {
    if (this.local) {
      const local = this.local;
      await this.registerRuns();
      // Filled before the mirror's triggers exist, so that rows read from the database are not written back.
      const resync: number[] = [];
      for (const run of this.runs) {
        const no = local.runSource(run.id)!.no;
        const { state, version } = await localState(this.client, this.target.database, local.db, run.id, no);
        if (state === 'hydrate') await hydrateRun(this.client, this.target.database, local.db, run.id, no, version);
        else if (state === 'resync') resync.push(no);
      }
      this.sync = new ClickhouseSync(local.db, this.client, this.target.database, this.versions, this.inserter);
      this.sync.setRuns(this.syncedRuns());
      for (const no of resync) markAllDirty(local.db, no);
      local.on('runs', () => void this.registerRuns().then(() => this.sync?.setRuns(this.syncedRuns())).catch(() => undefined));
      local.on('pass', () => void this.flush().catch(() => undefined));
      this.timers.push(setInterval(() => {
        const sync = this.sync;
        if (!sync || this.pendingFlush || !sync.dirty) return;
        if (sync.heldCalls >= FLUSH_CALLS || performance.now() - this.lastFlushAt >= FLUSH_EVERY_MS) void this.flush().catch(() => undefined);
      }, FLUSH_MS));
    }
    await this.loadRuns();
    await this.poll(true);
    if (!this.options.ingestOnly) this.prebuilt = this.prebuildGroups();
    this.timers.push(setInterval(() => void this.poll(false).catch(() => undefined), this.options.pollMs ?? POLL_MS));
    for (const t of this.timers) t.unref();
  }

  private syncedRuns(): SyncedRun[] {
    return this.runs.filter((r) => this.local?.runSource(r.id)).map((r) => ({ no: this.local!.runSource(r.id)!.no, id: r.id, month: r.month, captureDir: r.captureDir }));
  }

  /** Writes the working copy's runs (each keeps the month it was first written in: its rows' partition). */
  private async registerRuns(): Promise<void> {
    const local = this.local!;
    const months = new Map((await this.reads.arrays<[string, number]>(`SELECT id, run_month FROM ${this.target.database}.runs FINAL`)).map(([id, m]) => [id, m]));
    const now = new Date();
    const month = now.getUTCFullYear() * 100 + now.getUTCMonth() + 1;
    const version = this.versions.next();
    const values = local.listRunSources().map((r, ord) => ({
      id: r.id, root: r.root, rollouts_file: r.rolloutsFile, failures_file: r.failuresFile, capture_dir: r.captureDir, capture_dir_note: r.captureDirNote ?? null,
      reward_profile_file: r.rewardProfileFile ?? null, aggregate_metrics_file: r.aggregateMetricsFile ?? null, inputs_file: r.inputsFile ?? null,
      run_month: months.get(r.id) ?? month, ord, version,
    }));
    if (values.length) await this.client.insert({ table: `${this.target.database}.runs`, values, format: 'JSONEachRow' });
    this.runs = values.map((v) => ({ ...local.runSource(v.id)!, month: v.run_month, ord: v.ord }));
  }

  /** The database's runs whose files lie under the served PATHs (payloads are read from nowhere else). */
  private async loadRuns(): Promise<void> {
    const rows = await this.reads.rows<{
      id: string; root: string; rollouts_file: string | null; failures_file: string | null; capture_dir: string | null; capture_dir_note: string | null;
      reward_profile_file: string | null; aggregate_metrics_file: string | null; inputs_file: string | null; run_month: number; ord: number;
    }>(`SELECT * FROM ${this.target.database}.runs FINAL ORDER BY ord, id`);
    const roots = this.specs.map((s) => path.resolve(s.path));
    this.runs = rows
      .map((r) => ({
        id: r.id, root: r.root, rolloutsFile: r.rollouts_file, failuresFile: r.failures_file, captureDir: r.capture_dir, captureDirNote: r.capture_dir_note,
        rewardProfileFile: r.reward_profile_file, aggregateMetricsFile: r.aggregate_metrics_file, inputsFile: r.inputs_file, month: r.run_month, ord: r.ord,
      }))
      .filter((r) => (this.local ? this.local.runSource(r.id) !== undefined : [r.root, r.rolloutsFile, r.failuresFile, r.captureDir].every((p) => p === null || roots.some((root) => inside(p, root)))));
  }

  /** Writes what the working copy changed; its progress rows too. */
  flush(): Promise<void> {
    if (!this.sync || this.closed) return Promise.resolve();
    this.lastFlushAt = performance.now();
    // Done once the poll has seen what was written: a run shows `ready` only with the totals of its rows.
    // A run whose pass is under way writes its rollouts once they have their calls (sync.ts MARKS).
    const underway = new Set(this.syncedRuns().filter((r) => this.local!.passRunning(r.id)).map((r) => r.no));
    const run = this.sync.flush(underway).then(
      async () => {
        this.flushError = null;
        recordSynced(this.local!.db, this.syncedRuns(), this.sync!.lastVersions());
        await this.poll(false);
        await this.writeProgress();
      },
      (err: Error) => {
        this.flushError = `writing to ClickHouse: ${err.message}`;
        throw err;
      },
    );
    // Never rejects (the caller of `flush` hears of a failure; a flush started by a timer or a pass is not awaited,
    // and an unhandled rejection would stop the process).
    const pending: Promise<void> = run.then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      if (this.pendingFlush === pending) this.pendingFlush = null;
    });
    this.pendingFlush = pending;
    return run;
  }

  private async writeProgress(): Promise<void> {
    if (!this.local || this.closed) return;
    const version = this.versions.next();
    const values = this.local.listProgress().map((r) => ({ run: r.id, ...this.localProgress(r.progress, true), version }));
    values.forEach(({ run, version: _, ...p }) => this.progress.set(run, p));
    if (values.length) await this.client.insert({ table: `${this.target.database}.progress`, values, format: 'JSONEachRow' });
  }

  /** The working copy's progress, `ready` only once what it read is in the database. */
  private localProgress(p: Progress, written = false): Progress {
    if (this.flushError) return { ...p, state: 'error', error: this.flushError };
    if (p.state === 'ready' && (this.sync?.dirty || (this.pendingFlush && !written))) return { ...p, state: 'indexing' };
    return p;
  }

  /** Ingests what changed under the PATHs and writes it (an ingesting process; a reader has nothing to do). */
  async refresh(): Promise<void> {
    if (!this.local) return;
    // The runs a cold pass wrote are filled into the working copy first (a database that refuses the reads says so here).
    await this.sync?.fillColdRuns(false);
    await this.local.refresh();
    await this.flush();
    await this.poll(false);
  }

  /** New rows since the last poll: each run's newest version, and a `change` naming the rollouts they are. */
  private poll(first: boolean): Promise<void> {
    const next = this.polling.then(async () => {
      if (this.closed) return;
      if (first) {
        for (const [run, v] of await this.reads.arrays<[string, number]>(`SELECT run, max(version) FROM ${this.target.database}.rollouts GROUP BY run`)) {
          this.runVersions.set(run, v);
          this.lastVersion = Math.max(this.lastVersion, v);
        }
        return;
      }
      const rows = await this.reads.arrays<[string, string, number]>(
        `SELECT run, key, version FROM ${this.target.database}.rollouts WHERE version > {v:UInt64} ORDER BY version`,
        { v: this.lastVersion },
      );
      if (!rows.length) return;
      const byRun = new Map<string, Set<string>>();
      for (const [run, key, v] of rows) {
        if (!byRun.has(run)) byRun.set(run, new Set());
        byRun.get(run)!.add(key);
        this.runVersions.set(run, Math.max(this.runVersions.get(run) ?? 0, v));
        this.lastVersion = Math.max(this.lastVersion, v);
      }
      if (!this.local || [...byRun.keys()].some((id) => !this.runs.some((r) => r.id === id))) await this.loadRuns();
      for (const [run, keys] of byRun) {
        if (!this.runs.some((r) => r.id === run)) continue;
        // Groups someone asked for are built again once the run is quiet, so that the next Tasks page finds them; an
        // ingest stores the groups of the runs it writes for the dashboards.
        if (this.options.ingestOnly ? this.local?.runSource(run) : this.kept.groups.has(run)) this.rebuildWhenQuiet(run);
        this.emit('change', { run, rollouts: [...keys] } satisfies ChangeEvent);
      }
    });
    this.polling = next.catch(() => undefined);
    return next;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    for (const t of this.timers) clearInterval(t);
    for (const t of this.rebuilds.values()) clearTimeout(t);
    await this.pendingFlush?.catch(() => undefined);
    await Promise.all(this.storing);
    this.closed = true;
    this.local?.close();
    await this.polling;
    this.inserter.close();
    await this.client.close();
    dropWarmIngestPool();
  }

  runSource(id: string): RunSource | undefined {
    return this.runs.find((r) => r.id === id);
  }

  listRunSources(): readonly RunSource[] {
    return this.runs;
  }

  async listRuns(): Promise<Run[]> {
    const progress = this.local ? new Map(this.local.listProgress().map((r) => [r.id, this.localProgress(r.progress)])) : await this.dbProgress();
    return Promise.all(
      this.runs.map(async (r) => ({
        id: r.id,
        rollouts_file: r.rolloutsFile,
        failures_file: r.failuresFile,
        capture_dir: r.captureDir,
        capture_dir_note: r.captureDirNote ?? null,
        reward_profile_file: r.rewardProfileFile ?? null,
        aggregate_metrics_file: r.aggregateMetricsFile ?? null,
        progress: progress.get(r.id) ?? { state: 'pending', files_read: 0, bytes_read: 0, lines_read: 0, error: null },
        totals: await this.totals(r.id),
      })),
    );
  }

  private async dbProgress(): Promise<Map<string, Progress>> {
    const rows = await this.reads.rows<Progress & { run: string }>(`SELECT run, state, files_read, bytes_read, lines_read, error FROM ${this.target.database}.progress FINAL`);
    return new Map(rows.map(({ run, ...p }) => [run, p]));
  }

  /** Kept per run until the poll sees a newer version of it. */
  private async totals(run: string): Promise<RunTotals> {
    const v = this.runVersions.get(run) ?? 0;
    const kept = this.kept.totals.get(run, v);
    if (kept) return structuredClone(kept);
    const totals = await this.reads.totals(run);
    this.kept.totals.set(run, v, totals);
    return structuredClone(totals);
  }

  async listRollouts(runId: string, query: RolloutPageQuery): Promise<RolloutPage | null> {
    return this.runSource(runId) ? this.reads.listRollouts(runId, query) : null;
  }

  /** The rollouts of a row's task, kept until the run's version moves (a rollout page asks for its attempts and its task's best). */
  private async mates(runId: string, row: RolloutRow): Promise<TaskMate[]> {
    if (row.task_index === null) return [];
    const id = `${runId}\u0000${row.task_index}`;
    const v = this.runVersions.get(runId) ?? 0;
    const kept = this.kept.mates.get(id, v);
    if (kept) return kept;
    const mates = await this.reads.taskMates(runId, row.task_index);
    this.kept.mates.set(id, v, mates);
    return mates;
  }

  /** A rollout's row, kept until its run's version moves (`fresh`: read it again). */
  private async row(runId: string, key: string, fresh = false): Promise<RowRead | null> {
    if (!this.runSource(runId)) return null;
    const id = `${runId}\u0000${key}`;
    const v = this.runVersions.get(runId) ?? 0;
    const kept = this.kept.rows.get(id, v);
    if (kept && !fresh) return copyRow(kept);
    const r = await this.reads.rollout(runId, key);
    if (r) this.kept.rows.set(id, v, r);
    else this.kept.rows.delete(id);
    return r && copyRow(r);
  }

  async rollout(runId: string, key: string): Promise<RolloutRow | null> {
    return (await this.row(runId, key))?.row ?? null;
  }

  /**
   * A rollout's calls at its row's version. A merge that replaced that version between the two reads (a newer write
   * of the rollout landed meanwhile) leaves fewer calls than the row counts: read both again, once.
   */
  private async callsAt(runId: string, key: string): Promise<{ row: RowRead; calls: CallSummary[] } | null> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.row(runId, key, attempt > 0);
      if (!r) return null;
      const calls = await this.reads.calls(runId, key, r.version);
      if (calls.length === r.row.num_calls || attempt === 1) return { row: r, calls };
    }
  }

  async rolloutCalls(runId: string, key: string): Promise<CallSummary[] | null> {
    return (await this.callsAt(runId, key))?.calls ?? null;
  }

  async callContext(runId: string, key: string, callId: string): Promise<CallContext | null> {
    const got = await this.callsAt(runId, key);
    if (!got) return null;
    const { calls } = got;
    const byIndex = /^i(\d{1,9})$/.exec(callId);
    const at = byIndex ? calls.findIndex((c) => c.call_index === Number(byIndex[1])) : calls.findIndex((c) => c.model_call_id === callId);
    if (at < 0) return null;
    const call = calls[at];
    let previousOfServer: CallSummary | null = null;
    for (let i = at - 1; i >= 0 && !previousOfServer; i--) if (calls[i].model_server === call.model_server) previousOfServer = calls[i];
    return { call, total: calls.length, position: at, prev: calls[at - 1] ?? null, next: calls[at + 1] ?? null, previousOfServer };
  }

  async callLocations(runId: string, key: string): Promise<CallLocation[] | null> {
    const r = await this.row(runId, key);
    if (!r) return null;
    const root = this.runSource(runId)!.root;
    return (await this.reads.locations(runId, key, r.row.pk, r.version)).filter((l) => inside(l.path, root));
  }

  async callLocation(runId: string, key: string, callId: string): Promise<CallLocation | null> {
    const locs = await this.callLocations(runId, key);
    if (!locs) return null;
    const byIndex = /^i(\d{1,9})$/.exec(callId);
    return (byIndex ? locs.find((l) => l.call_index === Number(byIndex[1])) : locs.find((l) => l.model_call_id === callId)) ?? null;
  }

  async rolloutAttempts(runId: string, key: string): Promise<IndexRolloutDetail['attempts'] | null> {
    const r = await this.row(runId, key);
    return r ? attemptsOf(r.row, await this.mates(runId, r.row)) : null;
  }

  async bestOfTask(runId: string, key: string): Promise<{ key: string; reward: number | null } | null> {
    const r = await this.row(runId, key);
    if (!r || r.row.task_index === null) return null;
    const others = (await this.mates(runId, r.row)).filter((m) => m.pk !== r.row.pk);
    const best = bestOf(others.map((o) => ({ key: o.key, reward: o.reward, failed: o.failure_class !== null, order: o.rollout_index ?? 0, attempt: o.attempt ?? 0 })));
    return best && { key: best.key, reward: best.reward };
  }

  async rolloutDetail(runId: string, key: string): Promise<IndexRolloutDetail | null> {
    const run = this.runSource(runId);
    const r = await this.row(runId, key);
    if (!run || !r) return null;
    return rolloutDetailOf(runId, run, r.row, this.spanOf(run, r), async () => (await this.callLocations(runId, key)) ?? [], attemptsOf(r.row, await this.mates(runId, r.row)));
  }

  async callDetail(runId: string, key: string, callId: string): Promise<CallDetail | null> {
    const loc = await this.callLocation(runId, key, callId);
    return loc ? callDetailOf(loc, () => this.lineLocation(runId, key)) : null;
  }

  async rawLocation(runId: string, key: string, callId: string): Promise<FileSpan | null> {
    const loc = await this.callLocation(runId, key, callId);
    return loc && loc.kind === 'capture' ? { path: loc.path, start: loc.line_offset, length: loc.line_length } : null;
  }

  async lineLocation(runId: string, key: string): Promise<FileSpan | null> {
    const run = this.runSource(runId);
    const r = await this.row(runId, key);
    return run && r ? this.spanOf(run, r) : null;
  }

  private spanOf(run: RunSource, r: { row: RolloutRow; line_path: string | null }): FileSpan | null {
    const s = spans.get(r.row);
    if (r.line_path === null || !s || s.line_offset === null || s.line_length === null || !inside(r.line_path, run.root)) return null;
    return { path: r.line_path, start: s.line_offset, length: s.line_length };
  }

  /** A run's task groups, kept for a few runs until the run's version moves (one build at a time per version). */
  async taskGroups(runId: string): Promise<AgentTasks[] | null> {
    if (!this.runSource(runId)) return null;
    const v = this.runVersions.get(runId) ?? 0;
    const kept = this.kept.groups.get(runId, v);
    if (kept) return kept.groups;
    const entry: GroupsEntry = { groups: this.groupsAt(runId, v), built: null };
    this.kept.groups.set(runId, v, entry);
    entry.groups.then(
      (g) => (entry.built = g),
      () => this.kept.groups.forget(runId, entry),
    );
    return entry.groups;
  }

  /**
   * A run's task groups at version `v` (its rollouts' newest): as stored by the process that built them at `v`, else built
   * now from its rollouts and stored for every other process (bench:clickhouse's reports from 539f894 to f9443ca, a run of
   * 100k rollouts: built for its first Tasks page in 0.41–0.62 s, read stored in 0.12–0.26 s).
   */
  private async groupsAt(run: string, v: number): Promise<AgentTasks[]> {
    const stored = v ? await this.reads.storedTaskGroups(run, v).catch(() => null) : null;
    return stored ?? (await this.buildGroups(run, v)).groups;
  }

  /** A run's task groups built from its rollouts now, and their store at version `v` (after the answer; close waits for it). */
  private async buildGroups(run: string, v: number): Promise<{ groups: AgentTasks[]; stored: Promise<void> }> {
    const groups = await this.reads.taskGroups(run);
    if (!v) return { groups, stored: Promise.resolve() };
    const stored = this.storeGroups(run, v, groups).catch(() => undefined);
    this.storing.add(stored);
    void stored.finally(() => this.storing.delete(stored));
    return { groups, stored };
  }

  /** Stores a run's task groups built at version `v` (not when a figure would not survive JSON: they are built again then). */
  private async storeGroups(run: string, v: number, groups: AgentTasks[]): Promise<void> {
    await yieldToLoop(); // after the answer that built them
    if (this.closed) return;
    let text: string;
    try {
      text = JSON.stringify(groups, (_, value) => {
        if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not JSON');
        return value;
      });
    } catch {
      return;
    }
    await this.inserter.insert('task_groups', GROUPS_COLUMNS, [[[run, v, text]]]);
  }

  /**
   * Builds and stores the task groups of these runs (by default those this process ingests) at their current version,
   * where none are stored (`callscope ingest` after its pass: every dashboard's first Tasks page of them reads them
   * instead of building them).
   */
  async storeTaskGroups(runs: readonly string[] = this.syncedRuns().map((r) => r.id)): Promise<void> {
    for (const run of runs) {
      if (this.closed) return;
      const v = this.runVersions.get(run) ?? 0;
      if (v && !(await this.reads.hasTaskGroups(run, v).catch(() => false))) await (await this.buildGroups(run, v).catch(() => null))?.stored;
    }
  }

  /**
   * Builds the task groups of the runs written last (up to KEPT_GROUPS), one at a time, so that their first Tasks page
   * finds them: a run of 100k rollouts takes most of a second (the same build SQLite's index does after each pass).
   */
  private async prebuildGroups(): Promise<void> {
    const recent = [...this.runs].sort((a, b) => (this.runVersions.get(b.id) ?? 0) - (this.runVersions.get(a.id) ?? 0) || a.ord - b.ord).slice(0, KEPT_GROUPS);
    for (const run of recent) {
      if (this.closed) return;
      await this.taskGroups(run.id).catch(() => undefined);
    }
  }

  /**
   * Builds a run's task groups again REBUILD_QUIET_MS after its last change (kept, or for an ingest only stored), and
   * not while this process's own pass over it runs (a cold ingest changes it at every flush: each build would read the
   * whole run again, on the thread that ingests), nor while rows this process read wait to be written (the pass's last
   * flush makes a new version of the run: groups built before it are stale at once, and were built twice).
   */
  private rebuildWhenQuiet(run: string): void {
    clearTimeout(this.rebuilds.get(run));
    const t = setTimeout(() => {
      this.rebuilds.delete(run);
      if (this.closed) return;
      const no = this.local?.runSource(run)?.no;
      if (no !== undefined && (this.local!.passRunning(run) || this.pendingFlush || this.sync?.unwritten(no))) return this.rebuildWhenQuiet(run);
      if (this.options.ingestOnly) void this.groupsAt(run, this.runVersions.get(run) ?? 0).catch(() => undefined);
      else void this.taskGroups(run).catch(() => undefined);
    }, REBUILD_QUIET_MS);
    t.unref();
    this.rebuilds.set(run, t);
  }

  /** Compare's task groups of a run: kept ones, or built now for a small run; a large run's are built in the background (null: pending). */
  private async groupsForCompare(runId: string): Promise<AgentTasks[] | null> {
    const kept = this.kept.groups.get(runId, this.runVersions.get(runId) ?? 0);
    if (kept?.built) return kept.built;
    if ((await this.totals(runId)).rollouts <= (this.options.compareTaskRows ?? COMPARE_BUILD_ROWS)) return (await this.taskGroups(runId)) ?? [];
    void this.taskGroups(runId).catch(() => undefined);
    return null;
  }

  /** A run's compare figures, computed in the database once per version of the run. */
  private figures(runId: string): Promise<RunFigures> {
    const v = this.runVersions.get(runId) ?? 0;
    const kept = this.kept.figures.get(runId, v);
    if (kept) return kept;
    const figures = this.totals(runId).then((totals) => this.reads.figures(runId, totals));
    this.kept.figures.set(runId, v, figures);
    figures.catch(() => this.kept.figures.forget(runId, figures));
    return figures;
  }

  async tasks(runId: string, query: TaskPageQuery): Promise<TaskPage | null> {
    const groups = await this.taskGroups(runId);
    return groups && taskPage(groups, query);
  }

  async task(runId: string, agent: string, taskIndex: number, groups?: AgentTasks[] | null): Promise<IndexTaskDetail | null> {
    groups ??= await this.taskGroups(runId);
    const group = groups?.find((a) => (a.agent ?? '') === agent)?.tasks.find((t) => t.task_index === taskIndex);
    if (!this.runSource(runId) || !group) return null;
    const rows = await this.reads.taskRollouts(runId, group.rollout_ids);
    const place = new Map(bestFirst(group).map((k, i) => [k, i]));
    rows.sort((a, b) => place.get(a.key)! - place.get(b.key)!);
    return { group, rollouts: rows, failures: await this.reads.taskFailures(runId, taskIndex, agent) };
  }

  async compare(runIds: string[], pairBy?: PairBy): Promise<Compare | null> {
    const runs = runIds.map((id) => this.runSource(id));
    if (runs.some((r) => !r)) return null;
    const compareRuns: CompareRun[] = runs.map((r, no) => ({ id: r!.id, no, inputsFile: r!.inputsFile ?? null }));
    const figures = (await Promise.all(runIds.map((id) => this.figures(id)))).map((f) => structuredClone(f));
    const shared = sharedTasks(figures.map((f) => f.tasks));
    const sample = runIds.length >= 2 && shared.length ? taskSample(shared) : [];
    const names = sample.length ? await Promise.all(runIds.map((id) => this.reads.taskNames(id, sample))) : [];
    const comparison = comparisonOf(compareRuns, figures, shared, relationOf(compareRuns, shared, sample, names));
    return withTaskParts(comparison, runIds, await Promise.all(runIds.map((id) => this.groupsForCompare(id))), pairBy);
  }
}

/** The task_groups table's columns as written. */
const GROUPS_COLUMNS = [
  { name: 'run', type: 'String' },
  { name: 'version', type: 'UInt64' },
  { name: 'groups', type: 'String' },
] as const satisfies readonly NativeColumn[];

/** A kept row for a caller (its own object, with its line span). */
function copyRow(r: RowRead): RowRead {
  const row = { ...r.row };
  const span = spans.get(r.row);
  if (span) spans.set(row, span);
  return { ...r, row };
}

/** Whether `p` is `root` or lies under it. */
function inside(p: string, root: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Creates the database and tables, or checks that those there are this version's. */
async function prepareDatabase(client: ClickHouseClient, target: ClickhouseTarget): Promise<void> {
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${target.database}` });
  for (const query of ddl(target.database)) await client.command({ query });
  const rs = await client.query({ query: `SELECT value FROM ${target.database}.meta FINAL WHERE key = 'schema'`, format: 'JSONCompactEachRow' });
  const [row] = await rs.json<[string]>();
  if (!row) {
    await client.insert({ table: `${target.database}.meta`, values: [{ key: 'schema', value: CLICKHOUSE_SCHEMA, version: 1 }], format: 'JSONEachRow' });
  } else if (row[0] !== CLICKHOUSE_SCHEMA) {
    throw new Error(`database '${target.database}' holds a callscope index of schema ${row[0]}; this callscope writes ${CLICKHOUSE_SCHEMA}: point --clickhouse at a new database`);
  }
}
