// A rollout's trajectory answer (GET .../trajectory) read for the views. A stored ng_trajectory is returned as
// stored even when it does not validate (the API's `problems`), so nothing here trusts its shape: every entry is
// read field by field into the schema's types, a field of the wrong type reads as null (unknown, never a made-up
// value), and an entry without its identity (an invocation without an id, a tool call without its ids) is left
// out and said so in `problems`. The views then never crash on a record the schema rejects.
import type { TrajectoryResponse } from '../api/trajectory-schemas';
import { INVOCATION_STATUSES, TIMING_SOURCES, TOOL_STATUSES } from '../rollouts/observation-values';
import type {
  AgentInvocation,
  ContextCompactionObservation,
  ModelCallRef,
  ObservationGap,
  SandboxObservation,
  TrajectoryToolCall,
} from '../rollouts/observations';
import type { TrajectoryModelCall, TrajectoryTurn } from '../rollouts/trajectory-model';
import { isObj, type Obj } from './json-object';
import { losslessNumber } from './plain-json';

/** A model call as the views need it: its payloads stay a call page away. */
export type ViewModelCall = Omit<TrajectoryModelCall, 'request' | 'response'>;

export interface TrajectoryParts {
  invocations: AgentInvocation[];
  modelCalls: ViewModelCall[];
  toolCalls: TrajectoryToolCall[];
  turns: TrajectoryTurn[];
  gaps: ObservationGap[];
  compactions: ContextCompactionObservation[];
  sandboxes: SandboxObservation[];
  /** model_call_id -> the tool_call_ids its response asked for. */
  requestedTools: Record<string, string[]>;
  /** Entries that could not be read (and are not shown), in words. */
  problems: string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A number, whichever way it was read: plainly (JSON.parse) or losslessly on the server (lib/view/plain-json.ts). */
function num(v: unknown): number | null {
  const n = losslessNumber(v) ?? v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}
const count = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && Number.isInteger(n) && n >= 0 ? n : null;
};
const oneOf = <T extends string>(values: readonly T[], v: unknown, fallback: T): T => (values.includes(v as T) ? (v as T) : fallback);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function serverRef(v: unknown): ModelCallRef['model_ref'] {
  return isObj(v) && typeof v.name === 'string' ? { type: 'responses_api_models', name: v.name } : null;
}

export function readRef(v: unknown): ModelCallRef | null {
  if (!isObj(v)) return null;
  return { model_call_id: str(v.model_call_id), model_ref: serverRef(v.model_ref), response_id: str(v.response_id) };
}

const refs = (v: unknown): ModelCallRef[] => list(v).map(readRef).filter((r): r is ModelCallRef => r !== null);

function readInvocation(v: Obj): AgentInvocation | null {
  const id = str(v.invocation_id);
  if (id === null) return null;
  return {
    kind: 'agent_invocation',
    invocation_id: id,
    parent_invocation_id: str(v.parent_invocation_id),
    spawned_by_tool_call_id: str(v.spawned_by_tool_call_id),
    status: oneOf(INVOCATION_STATUSES, v.status, 'unknown'),
    duration_ms: num(v.duration_ms),
    error_type: str(v.error_type),
    model_calls: refs(v.model_calls),
    conversation: list(v.conversation).filter(isObj),
  };
}

function readModelCall(v: Obj): ViewModelCall {
  const m = isObj(v.response_metadata) ? v.response_metadata : {};
  const t = isObj(v.token_stats) ? v.token_stats : {};
  return {
    model_call_id: str(v.model_call_id),
    started_at: num(v.started_at),
    completed_at: num(v.completed_at),
    duration_ms: num(v.duration_ms),
    response_metadata: {
      response_id: str(m.response_id),
      model_ref: serverRef(m.model_ref),
      model: str(m.model),
      dialect: str(m.dialect),
      status_code: num(m.status_code),
      response_status: str(m.response_status),
      finish_reason: str(m.finish_reason),
      error_category: str(m.error_category),
      latency_ttft_ms: num(m.latency_ttft_ms),
    },
    token_stats: {
      prompt_tokens: count(t.prompt_tokens),
      completion_tokens: count(t.completion_tokens),
      reasoning_tokens: count(t.reasoning_tokens),
      total_tokens: count(t.total_tokens),
      cached_tokens: count(t.cached_tokens),
    },
  };
}

function readToolCall(v: Obj): TrajectoryToolCall | null {
  const invocation = str(v.invocation_id);
  const id = str(v.tool_call_id);
  if (invocation === null || id === null) return null;
  return {
    kind: 'tool_call',
    invocation_id: invocation,
    tool_call_id: id,
    sandbox_id: str(v.sandbox_id),
    tool_name: str(v.tool_name),
    started_at: num(v.started_at),
    completed_at: num(v.completed_at),
    duration_ms: num(v.duration_ms),
    timing_source: TIMING_SOURCES.includes(v.timing_source as never) ? (v.timing_source as TrajectoryToolCall['timing_source']) : null,
    status: oneOf(TOOL_STATUSES, v.status, 'unknown'),
    error_type: str(v.error_type),
    output: v.output ?? null,
  };
}

function readTurn(v: Obj): TrajectoryTurn | null {
  const invocation = str(v.invocation_id);
  if (invocation === null) return null;
  return {
    invocation_id: invocation,
    task_id: str(v.task_id) ?? '',
    rollout_id: str(v.rollout_id) ?? '',
    turn_no: num(v.turn_no) ?? 0,
    timestamp: num(v.timestamp) ?? Number.NaN,
    question: v.question ?? null,
    answer: v.answer ?? null,
    reasoning_content: v.reasoning_content ?? null,
    resolved: typeof v.resolved === 'boolean' ? v.resolved : null,
    step_count: count(v.step_count) ?? 0,
    model_calls: refs(v.model_calls),
  };
}

function readCompaction(v: ContextCompactionObservation): ContextCompactionObservation {
  return { ...v, observed_at: num(v.observed_at), tokens_before: count(v.tokens_before), tokens_after: count(v.tokens_after) };
}

function readSandbox(v: SandboxObservation): SandboxObservation {
  return { ...v, exit_code: num(v.exit_code), wall_time_s: num(v.wall_time_s), cpu_time_s: num(v.cpu_time_s), peak_memory_mib: num(v.peak_memory_mib) };
}

export function readGap(v: unknown): ObservationGap | null {
  if (!isObj(v) || typeof v.code !== 'string') return null; // a gap without its code says nothing
  return { code: v.code, invocation_id: str(v.invocation_id), detail: str(v.detail) };
}

/** Reads `field` of the record, keeping what can be read and naming what cannot. */
function readList<T>(record: Obj, field: string, read: (v: Obj) => T | null, problems: string[]): T[] {
  const raw = record[field];
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) problems.push(`${field} is not a list: not shown`);
  const out: T[] = [];
  let skipped = 0;
  for (const v of list(raw)) {
    const r = isObj(v) ? read(v) : null;
    if (r === null) skipped++;
    else out.push(r);
  }
  if (skipped) problems.push(`${skipped} of the ${field} entries are not objects or lack their ${field === 'gaps' ? 'code' : 'ids'}: not shown`);
  return out;
}

/** The parts of an answer's trajectory, or null when it has none. */
export function readTrajectory(answer: Pick<TrajectoryResponse, 'trajectory' | 'observations' | 'requested_tools'>): TrajectoryParts | null {
  const t = answer.trajectory;
  if (!isObj(t)) return null;
  const problems: string[] = [];
  const requested: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(answer.requested_tools ?? {})) requested[k] = list(v).filter((id): id is string => typeof id === 'string');
  return {
    invocations: readList(t, 'invocations', readInvocation, problems),
    modelCalls: readList(t, 'model_calls', readModelCall, problems),
    toolCalls: readList(t, 'tool_calls', readToolCall, problems),
    turns: readList(t, 'turns', readTurn, problems),
    gaps: readList(t, 'gaps', readGap, problems),
    // the observations were validated by the API (their schema is strict): only their numbers' form can differ
    compactions: (answer.observations?.compactions ?? []).map(readCompaction),
    sandboxes: (answer.observations?.sandboxes ?? []).map(readSandbox),
    requestedTools: requested,
    problems,
  };
}
