// The fields of one rollout line that the views need (§8.2, §8.3), read without materializing the big
// values: the request params, the final response (only its usage and ids) and the trajectory are skipped.
import { rolloutIdOfLine } from '../capture/ids';
import { isUtf8 } from 'node:buffer';
import { countArrayObjects, isJsonObject, numericValue, parsePython, scanShallowFast, scanStrict, type JsonObject, type JsonValue, type ScanResult } from '../capture/json';
import { stripAscii } from '../capture/bytes';
import { NOT_AN_OBJECT, notJson } from './line-problem';
import { cacheSignal, extractTokenStats } from '../capture/record';

const SHALLOW = {
  responses_create_params: ['metadata'], // an agent's ids for the task (SWE: instance_id, dataset_name)
  response: ['id', 'model', 'status', 'usage'],
  ng_trajectory: [],
  ng_agent_observations: [],
} as const;

// With a capture dir the attached calls are only counted (the capture files are the calls): skipped, not built.
// The attachment's rollout_id is kept: it names the rollout (§8.3) before anything else on the line.
const SHALLOW_COUNTING = { ...SHALLOW, ng_model_call_capture: ['metrics', 'gaps', 'rollout_id'] } as const;
const ATTACHED_CALLS = 'ng_model_call_capture.calls';

// What names the task, by meaning (an id, else the question asked); the answers are searched, never the task.
const TASK_FIELDS = ['task_id', 'instance_id', 'problem_id', 'question'];
const SEARCHED_FIELDS = [...TASK_FIELDS, 'expected_answer', 'extracted_answer'];

export interface RolloutAttachment {
  /** The number of calls (objects) in the attachment. */
  calls: number;
  /** The calls themselves; empty when they were only counted. */
  records: JsonObject[];
  tokensTotal: number | null;
  gaps: JsonValue[];
}

/**
 * The token counts of the line's own `response.usage` (what the agent's final response reports), read with the
 * rules of a call's usage (spec §3.1, §3.2). Not the captured calls' sums: an agent may report one turn or all.
 */
export interface ResponseUsage {
  tokens_in: number | null;
  tokens_out: number | null;
  tokens_reasoning: number | null;
  cached_tokens: number | null;
  tokens_total: number | null;
}

export interface RolloutLine {
  lineNo: number;
  offset: number;
  length: number;
  rolloutId: string | null;
  problem: string | null;
  reward: number | null;
  taskIndex: number | null;
  rolloutIndex: number | null;
  attempt: number | null;
  failureClass: string | null;
  agent: string | null;
  task: string | null;
  search: string;
  attachment: RolloutAttachment | null;
  /** null: no `response.usage` object, or not one count in it. */
  usage: ResponseUsage | null;
}

const int = (v: JsonValue | undefined): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

function parseLine(bytes: Buffer, countCalls: boolean, exact: boolean): { value: JsonValue; attachedCalls: number | null } {
  // The fast scan answers only when its answer is scanStrict's (json.ts, scanShallowFast).
  const fast = !exact && isUtf8(bytes) ? scanShallowFast(bytes, countCalls ? SHALLOW_COUNTING : SHALLOW, countCalls ? ATTACHED_CALLS : null) : null;
  if (fast) return { value: fast.value, attachedCalls: fast.counted };
  let scanned: ScanResult;
  try {
    scanned = scanStrict(bytes, countCalls ? SHALLOW_COUNTING : SHALLOW, 'python');
  } catch {
    return { value: parsePython(bytes), attachedCalls: null }; // e.g. a BOM or UTF-16 line: Python's json.loads still reads it
  }
  const span = scanned.spans[ATTACHED_CALLS];
  return { value: scanned.value, attachedCalls: span ? countArrayObjects(bytes.subarray(span.start, span.end), 'python') : null };
}

/**
 * `countCalls`: the attached calls are counted, not built (a capture dir supplies the calls). `exact`: without the
 * fast scan (for the tests that hold the two equal).
 */
export function readRolloutLine(bytes: Buffer, lineNo: number, offset: number, countCalls = false, exact = false): RolloutLine | null {
  const stripped = stripAscii(bytes);
  if (stripped.length === 0) return null;
  const base: RolloutLine = {
    lineNo, offset, length: bytes.length, rolloutId: null, problem: null, reward: null, taskIndex: null, rolloutIndex: null,
    attempt: null, failureClass: null, agent: null, task: null, search: `line ${lineNo}`, attachment: null, usage: null,
  };
  let row: JsonValue;
  let attachedCalls: number | null;
  try {
    ({ value: row, attachedCalls } = parseLine(stripped, countCalls, exact));
  } catch (err) {
    return { ...base, problem: notJson((err as Error).message) };
  }
  if (!isJsonObject(row)) return { ...base, problem: NOT_AN_OBJECT };
  let rolloutId: string | null = null;
  let problem: string | null = null;
  try {
    rolloutId = rolloutIdOfLine(row);
  } catch (err) {
    problem = (err as Error).message;
  }
  const ids = taskIds(row);
  const task = TASK_FIELDS.map((k) => row[k]).find((v): v is string => typeof v === 'string') ?? ids[0] ?? null;
  const agentRef = row.agent_ref;
  const capture = row.ng_model_call_capture;
  let attachment: RolloutAttachment | null = null;
  if (isJsonObject(capture)) {
    const metrics = isJsonObject(capture.metrics) ? capture.metrics : {};
    const records = Array.isArray(capture.calls) ? capture.calls.filter(isJsonObject) : [];
    attachment = {
      calls: attachedCalls ?? records.length,
      records,
      tokensTotal: numericValue(metrics.tokens_total),
      gaps: Array.isArray(capture.gaps) ? capture.gaps : [],
    };
  }
  const searchParts = [rolloutId ?? '', ...SEARCHED_FIELDS.map((k) => (typeof row[k] === 'string' ? (row[k] as string) : '')), ...ids];
  return {
    ...base,
    rolloutId,
    problem,
    reward: numericValue(row.reward),
    taskIndex: int(row._ng_task_index),
    rolloutIndex: int(row._ng_rollout_index),
    attempt: int(row._ng_attempt_index),
    failureClass: typeof row._ng_failure_class === 'string' ? row._ng_failure_class : null,
    agent: isJsonObject(agentRef) && typeof agentRef.name === 'string' ? agentRef.name : null,
    task: task ? task.slice(0, 500) : null,
    search: searchParts.join('\n').toLowerCase().slice(0, 4000),
    attachment,
    usage: isJsonObject(row.response) ? lineUsage(row.response.usage) : null,
  };
}

/**
 * Short ids a line gives its task besides the usual task fields: the request metadata's string values (a SWE
 * agent's `instance_id`, `dataset_name`) and a `task` object's `id` (tau2), so that search finds them.
 */
function taskIds(row: JsonObject): string[] {
  const ids: string[] = [];
  const params = row.responses_create_params;
  const metadata = isJsonObject(params) ? params.metadata : undefined;
  if (isJsonObject(metadata)) {
    for (const k in metadata) {
      const v = metadata[k];
      if (typeof v === 'string' && v && v.length <= 200) ids.push(v);
    }
  }
  const task = row.task;
  if (isJsonObject(task) && (typeof task.id === 'string' || typeof task.id === 'number')) ids.push(String(task.id));
  return ids;
}

function lineUsage(usage: JsonValue | undefined): ResponseUsage | null {
  if (!isJsonObject(usage)) return null;
  const t = extractTokenStats(usage);
  const count = (v: number | bigint | null): number | null => (v === null ? null : Number(v));
  const u: ResponseUsage = {
    tokens_in: count(t.tokens_in), tokens_out: count(t.tokens_out), tokens_reasoning: count(t.tokens_reasoning),
    cached_tokens: count(cacheSignal(usage).cached_tokens), tokens_total: count(t.tokens_total),
  };
  return Object.values(u).some((v) => v !== null) ? u : null;
}
