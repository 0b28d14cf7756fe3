// What the API, the pages and `serve` read from an index, whichever holds it: the embedded SQLite file
// (callscope-index.ts, whose answers are mostly synchronous) or a ClickHouse database (clickhouse/, whose answers
// are all promises). Callers `await` every answer; each backend answers the same for the same files.
import type { EventEmitter } from 'node:events';
import type { CallSummary } from '../api/call-schemas';
import type { Compare } from '../api/compare-schemas';
import type { RolloutDetail, Run } from '../api/schemas';
import type { TaskDetail, TaskPage } from '../api/task-schemas';
import type { JsonObject } from '../capture/json-value';
import type { AgentTasks } from '../rollouts/task-groups';
import type { PairBy } from '../rollouts/task-changes';
import type { TaskPageQuery } from './aggregates/tasks';
import type { CallBody, CallLocation } from './queries/payload';
import type { RolloutPage, RolloutPageQuery, RolloutRow } from './queries/rollouts';
import type { RunSource } from './sources/discovery';

export type Awaitable<T> = T | Promise<T>;

/** A byte span of a file the index read (a capture line, a rollout line). */
export interface FileSpan {
  path: string;
  start: number;
  length: number;
}

/** One call with its neighbours in call_index order and the previous call of the same model server (the call page). */
export interface CallContext {
  call: CallSummary;
  total: number;
  position: number;
  prev: CallSummary | null;
  next: CallSummary | null;
  previousOfServer: CallSummary | null;
}

export interface ChangeEvent {
  run: string;
  rollouts: string[];
}

/** A task as GET /api/runs/{run}/tasks/{task} answers it, its rollouts still index rows (lib/api/present.ts presents them). */
export type IndexTaskDetail = Omit<TaskDetail, 'rollouts'> & {
  /** Best to worst; `tool_calls_requested` is the sum of the tool calls its captured responses asked for (null without calls). */
  rollouts: (RolloutRow & { tool_calls_requested: number | null })[];
};

/** A rollout as GET /api/runs/{run}/rollouts/{rollout} answers it, before presentation: its index row, and the capture as the format's values. */
export type IndexRolloutDetail = Omit<RolloutDetail, 'rollout' | 'capture' | 'attachment'> & {
  rollout: RolloutRow;
  capture: JsonObject | null;
  /** The rollout line's own attachment, when it disagrees with the capture dir. */
  attachment: JsonObject | null;
};

export type CallDetail = CallBody | { kind: 'json'; record: JsonObject };

/**
 * The read side of an index. Unknown runs, rollouts and calls answer null (the routes answer 404). `change` events
 * (ChangeEvent) name the rollouts an ingest changed, for GET /api/events.
 */
export interface IndexReader extends Pick<EventEmitter, 'on' | 'off'> {
  readonly isClosed: boolean;
  close(): Awaitable<void>;
  runSource(id: string): Awaitable<RunSource | undefined>;
  listRuns(): Awaitable<Run[]>;
  listRollouts(runId: string, query: RolloutPageQuery): Awaitable<RolloutPage | null>;
  rollout(runId: string, key: string): Awaitable<RolloutRow | null>;
  rolloutDetail(runId: string, key: string): Promise<IndexRolloutDetail | null>;
  /** A rollout's calls as index columns, in call_index order (no capture line is opened). */
  rolloutCalls(runId: string, key: string): Awaitable<CallSummary[] | null>;
  callContext(runId: string, key: string, callId: string): Awaitable<CallContext | null>;
  /** Where each of a rollout's calls is stored, in call_index order. */
  callLocations(runId: string, key: string): Awaitable<CallLocation[] | null>;
  /** A call by model_call_id, or i<call_index>. */
  callLocation(runId: string, key: string, callId: string): Awaitable<CallLocation | null>;
  rolloutAttempts(runId: string, key: string): Awaitable<IndexRolloutDetail['attempts'] | null>;
  bestOfTask(runId: string, key: string): Awaitable<{ key: string; reward: number | null } | null>;
  callDetail(runId: string, key: string, callId: string): Promise<CallDetail | null>;
  rawLocation(runId: string, key: string, callId: string): Awaitable<FileSpan | null>;
  lineLocation(runId: string, key: string): Awaitable<FileSpan | null>;
  tasks(runId: string, query: TaskPageQuery): Awaitable<TaskPage | null>;
  taskGroups(runId: string): Awaitable<AgentTasks[] | null>;
  task(runId: string, agent: string, taskIndex: number, groups?: AgentTasks[] | null): Awaitable<IndexTaskDetail | null>;
  compare(runIds: string[], pairBy?: PairBy): Awaitable<Compare | null>;
}
