// The rollout line as NeMo Gym's collector persists it (spec §8.2), before the capture is attached: the
// simple agent's `responses_create_params` dump (every field, nulls included), the final NeMoGymResponse
// with the whole trajectory as Responses items and the usage summed over policy calls, `reward`, the
// verifier's fields, then the collector's stamps appended in its order.
import { pyFloat, setKey, type JsonObject } from '../capture/json-value';
import type { Message } from './conversation';
import type { Usage } from './dialect-shared';
import { inputItems, responsesTools } from './dialect-responses';
import type { Outcome, RolloutSpec, Task } from './scenario';

export interface Trajectory {
  /** Messages after the dataset row's initial ones: assistant turns, tool results, user replies. */
  history: Message[];
  /** Usage of each successful policy call. */
  usage: Usage[];
  responseId: string | null;
  createdAt: number;
}

function createParams(spec: RolloutSpec, task: Task, initial: Message[]): JsonObject {
  const params: JsonObject = {
    background: null,
    include: null,
    input: inputItems(initial),
    instructions: null,
    max_output_tokens: null,
    max_tool_calls: null,
    metadata: null,
    model: null,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt: null,
    reasoning: null,
    service_tier: null,
    store: null,
    temperature: null,
    text: null,
    tool_choice: 'auto',
    tools: responsesTools(spec.scenario.tools),
    top_logprobs: null,
    top_p: null,
    truncation: null,
    user: null,
    stream: null,
  };
  const overrides = spec.scenario.createParams(task, spec.taskIndex);
  for (const key of Object.keys(overrides)) setKey(params, key, overrides[key]);
  return params;
}

function summedUsage(calls: Usage[]): JsonObject {
  const sum = (f: (u: Usage) => number) => calls.reduce((n, u) => n + f(u), 0);
  const input = sum((u) => u.prompt);
  const output = sum((u) => u.output);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: sum((u) => u.cached) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: sum((u) => u.reasoning) },
    total_tokens: input + output,
  };
}

function gymResponse(spec: RolloutSpec, trajectory: Trajectory): JsonObject {
  return {
    id: trajectory.responseId ?? `resp_${spec.scenario.agentName}-${spec.taskIndex}-${spec.rolloutIndex}`,
    created_at: pyFloat(Math.floor(trajectory.createdAt)),
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    model: spec.scenario.policy.model,
    object: 'response',
    output: inputItems(trajectory.history),
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    background: null,
    conversation: null,
    max_output_tokens: null,
    max_tool_calls: null,
    previous_response_id: null,
    prompt: null,
    prompt_cache_key: null,
    reasoning: null,
    safety_identifier: null,
    service_tier: null,
    status: 'completed',
    text: null,
    top_logprobs: null,
    truncation: null,
    usage: summedUsage(trajectory.usage),
    user: null,
  };
}

function stamp(line: JsonObject, spec: RolloutSpec): JsonObject {
  line._ng_task_index = spec.taskIndex;
  line._ng_rollout_index = spec.rolloutIndex;
  line.agent_ref = { name: spec.scenario.agentName };
  if (spec.attempt > 0) line._ng_attempt_index = spec.attempt;
  return line;
}

/** `agentFields` are what an observing agent appends to the verify response (its `ng_agent_observations`). */
export function rolloutLine(spec: RolloutSpec, task: Task, initial: Message[], outcome: Outcome, trajectory: Trajectory, agentFields?: JsonObject): JsonObject {
  const line: JsonObject = {
    responses_create_params: createParams(spec, task, initial),
    response: gymResponse(spec, trajectory),
    reward: pyFloat(outcome.success ? 1 : 0),
  };
  const fields = { ...spec.scenario.resultFields(task, outcome), ...agentFields };
  for (const key of Object.keys(fields)) line[key] = fields[key];
  return stamp(line, spec);
}

/** A failed attempt's row for `<output>_failures.jsonl`: the input row plus the agent's failure class. */
export function failureLine(spec: RolloutSpec, task: Task, initial: Message[], failureClass: string): JsonObject {
  return stamp({ responses_create_params: createParams(spec, task, initial), _ng_failure_class: failureClass }, spec);
}
