// The fields of one rollout line that the views need (§8.2, §8.3), read without materializing the big
// values: the request params, the final response (only its usage and ids) and the trajectory's model calls (which
// own the payloads, §5.2) are skipped; the trajectory's invocations, turns, tool calls and gaps and the observations
// are read for the trajectory summary (lib/rollouts/trajectory-summary.ts).
import { rolloutIdOfLine } from '../capture/ids';
import { isUtf8 } from 'node:buffer';
import { isJsonObject, JsonFloat, numericValue, type JsonObject, type JsonValue } from '../capture/json-value';
import { countArrayObjects, parsePython, scanStrict, type ScanResult, type ShallowScanner } from '../capture/json-parse';
import { stripAscii } from '../capture/bytes';
import { NOT_AN_OBJECT, notJson } from './line-problem';
import { cacheSignal, extractTokenStats } from '../capture/record';
import { trajectorySummary, type TrajectorySummary } from './trajectory-summary';

const SHALLOW = {
  responses_create_params: ['metadata', 'input'], // an agent's ids for the task (SWE: instance_id, dataset_name); the prompt
  response: ['id', 'model', 'status', 'usage'],
  ng_trajectory: ['invocations', 'turns', 'tool_calls', 'gaps'],
  ng_agent_observations: ['source', 'records', 'gaps'],
} as const;

// With a capture dir the attached calls are only counted (the capture files are the calls): skipped, not built.
// The attachment's rollout_id is kept: it names the rollout (§8.3) before anything else on the line.
const SHALLOW_COUNTING = { ...SHALLOW, ng_model_call_capture: ['metrics', 'gaps', 'rollout_id'] } as const;
const ATTACHED_CALLS = 'ng_model_call_capture.calls';

// What names the task, by meaning (an id, else the question asked); the answers are searched, never the task.
const TASK_FIELDS = ['task_id', 'instance_id', 'problem_id', 'question'];
// What the resource server compared, under the names NeMo Gym's servers give them, the first one not null winning:
// most write expected_answer / extracted_answer; browsecomp (and the judge-graded search servers) ground_truth and
// the judge's extracted_final_answer.
const EXPECTED_FIELDS = ['expected_answer', 'ground_truth'];
const EXTRACTED_FIELDS = ['extracted_answer', 'extracted_final_answer'];
const SEARCHED_FIELDS = [...TASK_FIELDS, ...EXPECTED_FIELDS, ...EXTRACTED_FIELDS];

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
  /** The task's prompt: the first user message of `responses_create_params.input` (truncated), or null. */
  prompt: string | null;
  /** What the resource server compared: the line's EXPECTED_FIELDS and EXTRACTED_FIELDS (as text, truncated). */
  expected: string | null;
  extracted: string | null;
  /** The outcome fields the line has (OUTCOME_FIELDS), as a JSON object; null with none. */
  outcome: string | null;
  /** Its trajectory's counts and tool calls; null when there is no trajectory to show (trajectory-summary.ts). */
  trajectory: TrajectorySummary | null;
}

/**
 * Fields NeMo Gym's resource servers and agents write that say how a rollout ended (swe: resolved, patch_exists,
 * agent_timed_out, eval_timed_out, agent_error_kind, error_kind; math agents: finished_naturally, turns_used;
 * browsecomp: num_tool_calls, reset_count (context resets), agent_error (a failed sample scored 0); others:
 * context_length_exceeded_error), kept when they are scalars.
 */
export const OUTCOME_FIELDS = [
  'resolved', 'patch_exists', 'finished_naturally', 'turns_used', 'num_tool_calls', 'reset_count', 'agent_timed_out', 'eval_timed_out',
  'context_length_exceeded_error', 'agent_error_kind', 'error_kind', 'agent_error', 'mask_sample',
] as const;

const PROMPT_CHARS = 1000;
const ANSWER_CHARS = 300;

/** The text of a Responses input item's content (a string, or its text parts joined). */
function contentText(content: JsonValue | undefined): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.filter(isJsonObject).map((p) => (typeof p.text === 'string' ? p.text : '')).filter(Boolean);
  return texts.length ? texts.join('\n') : null;
}

/** The first user message of the request's input (a string input is the prompt itself). */
export function promptOf(params: JsonValue | undefined): string | null {
  if (!isJsonObject(params)) return null;
  const input = params.input;
  if (typeof input === 'string') return input.slice(0, PROMPT_CHARS) || null;
  if (!Array.isArray(input)) return null;
  for (const item of input) {
    if (isJsonObject(item) && item.role === 'user') {
      const text = contentText(item.content);
      if (text) return text.slice(0, PROMPT_CHARS);
    }
  }
  return null;
}

/** The first of `fields` the line has (not null), as text. */
function firstAnswer(row: JsonObject, fields: readonly string[]): string | null {
  for (const k of fields) {
    const text = answerText(row[k]);
    if (text !== null) return text;
  }
  return null;
}

function answerText(v: JsonValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v.slice(0, ANSWER_CHARS);
  // Numbers as plain JSON numbers (a whole float reads as an integer): the fast scan reads them so, and a column
  // must not depend on which scan read the line.
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x instanceof JsonFloat ? (Number.isFinite(x.value) ? x.value : null) : x)).slice(0, ANSWER_CHARS);
}

function outcomeOf(row: JsonObject): string | null {
  const out: Record<string, string | number | boolean | null> = {};
  let any = false;
  for (const k of OUTCOME_FIELDS) {
    if (!(k in row)) continue;
    const v = row[k];
    const n = numericValue(v);
    if (typeof v === 'boolean' || typeof v === 'string' || v === null) out[k] = typeof v === 'string' ? v.slice(0, 80) : v;
    else if (n !== null) out[k] = n;
    else continue;
    any = true;
  }
  return any ? JSON.stringify(out) : null;
}

const int = (v: JsonValue | undefined): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

function parseLine(bytes: Buffer, countCalls: boolean, fastScan: ShallowScanner | null): { value: JsonValue; attachedCalls: number | null } {
  // The fast scan answers only when its answer is scanStrict's (json-parse.ts, ShallowScanner).
  const fast = fastScan && isUtf8(bytes) ? fastScan(bytes, countCalls ? SHALLOW_COUNTING : SHALLOW, countCalls ? ATTACHED_CALLS : null) : null;
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
 * `countCalls`: the attached calls are counted, not built (a capture dir supplies the calls). `fastScan`: tried before
 * the lossless scan, which reads the line when it declines or without one (ingest passes the index's scanShallowFast,
 * lib/index/scan/fast-shallow.ts; this module stays pure).
 */
export function parseRolloutLine(bytes: Buffer, lineNo: number, offset: number, countCalls = false, fastScan: ShallowScanner | null = null): RolloutLine | null {
  const stripped = stripAscii(bytes);
  if (stripped.length === 0) return null;
  const base: RolloutLine = {
    lineNo, offset, length: bytes.length, rolloutId: null, problem: null, reward: null, taskIndex: null, rolloutIndex: null,
    attempt: null, failureClass: null, agent: null, task: null, search: `line ${lineNo}`, attachment: null, usage: null,
    prompt: null, expected: null, extracted: null, outcome: null, trajectory: null,
  };
  let row: JsonValue;
  let attachedCalls: number | null;
  try {
    ({ value: row, attachedCalls } = parseLine(stripped, countCalls, fastScan));
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
  const prompt = promptOf(row.responses_create_params);
  const searchParts = [rolloutId ?? '', ...SEARCHED_FIELDS.map((k) => (typeof row[k] === 'string' ? (row[k] as string) : '')), ...ids, prompt ?? ''];
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
    search: searchParts.join('\n').toLowerCase().slice(0, 6000),
    attachment,
    usage: isJsonObject(row.response) ? lineUsage(row.response.usage) : null,
    prompt,
    expected: firstAnswer(row, EXPECTED_FIELDS),
    extracted: firstAnswer(row, EXTRACTED_FIELDS),
    outcome: outcomeOf(row),
    // with a capture dir a line with a rollout id is merged with its calls, so the collector projects it
    trajectory: trajectorySummary(row.ng_trajectory, row.ng_agent_observations, attachment !== null || (countCalls && rolloutId !== null)),
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
