// The parts of a rollout's and a call's answers that are made the same way whichever index holds the rows
// (callscope-index.ts, clickhouse/): what they read from the files the index points at, and how they put it together.
import { attachmentCall, buildAttachment, type Gap } from '../../capture/attachment';
import { isJsonObject, type JsonObject } from '../../capture/json-value';
import { RECORD_FIELDS, type ModelCallRecord } from '../../capture/record';
import type { Compare } from '../../api/compare-schemas';
import type { AgentTasks } from '../../rollouts/task-groups';
import { taskChanges, type PairBy } from '../../rollouts/task-changes';
import type { Comparison } from '../compare/compare';
import type { RunSource } from '../sources/discovery';
import type { Awaitable, CallDetail, FileSpan, IndexRolloutDetail } from '../reader';
import { callBody, loadRolloutLine, readCaptureCalls, trajectoryPayloads, type CallLocation } from './payload';
import type { RolloutRow } from './rollouts';

/** A rollout's own line, read from its span; null without one, or when it can no longer be read. */
export async function readRolloutLine(span: FileSpan | null): Promise<JsonObject | null> {
  if (!span) return null;
  try {
    return await loadRolloutLine(span.path, span.start, span.length);
  } catch {
    return null;
  }
}

/** A rollout's fields and its capture in the attachment shape (calls without payloads). */
export async function rolloutDetailOf(
  runId: string, run: RunSource, row: RolloutRow, span: FileSpan | null, locations: () => Awaitable<CallLocation[]>, attempts: IndexRolloutDetail['attempts'],
): Promise<IndexRolloutDetail> {
  const line = row.line_no !== null ? await readRolloutLine(span) : null;
  const stored = line && isJsonObject(line.ng_model_call_capture) ? line.ng_model_call_capture : null;
  let capture: JsonObject | null = null;
  if (run.captureDir && row.rollout_id !== null) {
    // (A line without a derivable rollout id gets no attachment from NeMo Gym's merge: §5.1 step 1.)
    const records = await readCaptureCalls(await locations());
    const gaps = JSON.parse(row.gaps ?? '[]') as Gap[];
    capture = buildAttachment(row.rollout_id, { captureDir: run.captureDir, records, gaps, problems: [] }, false);
  } else if (stored) {
    capture = { ...stored, calls: (Array.isArray(stored.calls) ? stored.calls.filter(isJsonObject) : []).map((c) => attachmentCall(c, false)) };
  }
  return { run: runId, rollout: row, capture, attachment: run.captureDir && row.mismatch ? stored : null, attempts };
}

/** One call with its payloads: spliced from the capture line, or from the rollout line's trajectory. */
export async function callDetailOf(loc: CallLocation, span: () => Awaitable<FileSpan | null>): Promise<CallDetail | null> {
  if (loc.kind === 'capture') return callBody(loc);
  const line = await readRolloutLine(await span());
  const stored = line && isJsonObject(line.ng_model_call_capture) && Array.isArray(line.ng_model_call_capture.calls) ? line.ng_model_call_capture.calls : [];
  const call = stored.filter(isJsonObject).find((c) => c.call_index === loc.call_index);
  if (!call || !line) return null;
  const payloads = trajectoryPayloads(line, typeof call.model_call_id === 'string' ? call.model_call_id : null);
  const record: ModelCallRecord = {};
  for (const f of RECORD_FIELDS) record[f] = call[f] ?? null;
  if (payloads) {
    record.request = isJsonObject(payloads.request) ? payloads.request : null;
    record.response = isJsonObject(payloads.response) ? payloads.response : null;
    if (typeof payloads.request === 'string') record.request_raw = payloads.request;
    if (typeof payloads.response === 'string') record.response_raw = payloads.response;
  }
  return { kind: 'json', record };
}

/**
 * The comparison with each run's headline pass@k per agent and the tasks whose pass@1 changed from the first run to
 * the second (`groups[i]`: run i's task groups, null while they are being built).
 */
export function withTaskParts(comparison: Comparison, runIds: string[], groups: (AgentTasks[] | null)[], pairBy?: PairBy): Compare {
  const pass = groups.map((agents, i) => ({ run: runIds[i], pending: agents === null, agents: (agents ?? []).map((a) => ({ agent: a.agent, max_k: a.max_k, tasks: a.tasks.length, metrics: a.metrics })) }));
  let changes: Compare['task_changes'] = null;
  const [ga, gb] = groups;
  if (ga && gb && ga.length && gb.length) {
    const a = ga.find((x) => gb.some((y) => y.agent === x.agent)) ?? ga[0];
    const b = gb.find((y) => y.agent === a.agent) ?? gb[0];
    changes = { ...taskChanges(a, b, pairBy ?? (comparison.task_relation.same ? 'index' : 'task')), agent_a: a.agent, agent_b: b.agent };
  }
  return { ...comparison, pass_at_k: pass, task_changes: changes };
}
