// The fields of one rollout line that the views need (§8.2, §8.3), read without materializing the big
// values: the request params, the final response (only its usage and ids) and the trajectory are skipped.
import { rolloutIdOfLine } from '../capture/ids';
import { isJsonObject, numericValue, parsePython, scanStrict, type JsonObject, type JsonValue } from '../capture/json';
import { stripAscii } from '../capture/store';

const SHALLOW = {
  responses_create_params: [],
  response: ['id', 'model', 'status', 'usage'],
  ng_trajectory: [],
  ng_agent_observations: [],
} as const;

const TASK_FIELDS = ['task_id', 'instance_id', 'problem_id', 'question', 'expected_answer', 'extracted_answer'];

export interface RolloutAttachment {
  calls: JsonObject[];
  tokensTotal: number | null;
  gaps: JsonValue[];
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
}

const int = (v: JsonValue | undefined): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

function parseLine(bytes: Buffer): JsonValue {
  try {
    return scanStrict(bytes, SHALLOW, 'python').value;
  } catch {
    return parsePython(bytes); // e.g. a BOM or UTF-16 line: Python's json.loads still reads it
  }
}

export function readRolloutLine(bytes: Buffer, lineNo: number, offset: number): RolloutLine | null {
  const stripped = stripAscii(bytes);
  if (stripped.length === 0) return null;
  const base: RolloutLine = {
    lineNo, offset, length: bytes.length, rolloutId: null, problem: null, reward: null, taskIndex: null, rolloutIndex: null,
    attempt: null, failureClass: null, agent: null, task: null, search: `line ${lineNo}`, attachment: null,
  };
  let row: JsonValue;
  try {
    row = parseLine(stripped);
  } catch (err) {
    return { ...base, problem: `not JSON: ${(err as Error).message}` };
  }
  if (!isJsonObject(row)) return { ...base, problem: 'not a JSON object' };
  let rolloutId: string | null = null;
  let problem: string | null = null;
  try {
    rolloutId = rolloutIdOfLine(row);
  } catch (err) {
    problem = (err as Error).message;
  }
  const task = TASK_FIELDS.map((k) => row[k]).find((v): v is string => typeof v === 'string') ?? null;
  const agentRef = row.agent_ref;
  const capture = row.ng_model_call_capture;
  let attachment: RolloutAttachment | null = null;
  if (isJsonObject(capture)) {
    const metrics = isJsonObject(capture.metrics) ? capture.metrics : {};
    attachment = {
      calls: Array.isArray(capture.calls) ? capture.calls.filter(isJsonObject) : [],
      tokensTotal: numericValue(metrics.tokens_total),
      gaps: Array.isArray(capture.gaps) ? capture.gaps : [],
    };
  }
  const searchParts = [rolloutId ?? '', ...TASK_FIELDS.map((k) => (typeof row[k] === 'string' ? (row[k] as string) : ''))];
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
  };
}
