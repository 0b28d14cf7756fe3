// The Responses API objects of NeMo Gym's rollout lines (spec §8.2), field for field in the orders the example
// files have: `responses_create_params` as the simple agent dumps it (every field, nulls included), and the
// `response` layouts seen there (OpenAI's hosted model, its older layout, one built by an agent server from its
// own turns, and one NeMo Gym's vLLM model server converts from a chat completion), with their output items.
import { float, type Py } from './py-json';

type Obj = { [key: string]: Py };

/** `responses_create_params`: every field of NeMoGymResponseCreateParamsNonStreaming, `overrides` in place. */
export function createParams(input: Py[], overrides: Obj = {}): Obj {
  return {
    background: null, include: null, input, instructions: null, max_output_tokens: null, max_tool_calls: null, metadata: null,
    model: null, parallel_tool_calls: true, previous_response_id: null, prompt: null, reasoning: null, service_tier: null,
    store: null, temperature: null, text: null, tool_choice: 'auto', tools: [], top_logprobs: null, top_p: null, truncation: null,
    user: null, stream: null, ...overrides,
  };
}

export const userMessage = (content: Py, role = 'user'): Obj => ({ content, role, type: 'message' });
export const inputText = (text: string): Obj => ({ text, type: 'input_text' });

/** An assistant message; `logprobs` is `[]` from OpenAI, null from a vLLM-served model. */
export function message(id: string, text: string, logprobs: [] | null): Obj {
  return { id, content: [{ annotations: [], text, type: 'output_text', logprobs }], role: 'assistant', status: 'completed', type: 'message' };
}

/** A message as a training-enabled model server returns it (token ids first; empty when not collected). */
export function trainingMessage(id: string, text: string): Obj {
  return { prompt_token_ids: [], generation_token_ids: [], generation_log_probs: [], ...message(id, text, null) };
}

/** A reasoning item of a training-enabled model server (the real example files have none). */
export function trainingReasoning(id: string, summary: string): Obj {
  return {
    prompt_token_ids: [], generation_token_ids: [], generation_log_probs: [], id,
    summary: [{ text: summary, type: 'summary_text' }], type: 'reasoning', content: null, encrypted_content: null, status: null,
  };
}

/** A reasoning item as NeMo Gym's model server writes it (NeMoGymResponseReasoningItem: no `status` field). */
export function reasoningItem(id: string, summary: string): Obj {
  return { id, summary: [{ text: summary, type: 'summary_text' }], type: 'reasoning', encrypted_content: null, content: null };
}

export function functionCall(callId: string, name: string, args: string, id = callId): Obj {
  return { arguments: args, call_id: callId, name, type: 'function_call', id, status: 'completed' };
}

export function functionCallOutput(callId: string, output: string, status: string | null = 'completed'): Obj {
  return { call_id: callId, output, type: 'function_call_output', id: null, status };
}

export interface Usage {
  input: number;
  cached?: number;
  output: number;
  reasoning?: number;
}

/** `usage` in the plain layout: input/output/total with their details. */
export function usage(u: Usage): Obj {
  return {
    input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached ?? 0 }, output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 }, total_tokens: u.input + u.output,
  };
}

/** `usage` as the hosted model's newer layout has it: audio/text details and `cost`, null when not reported. */
export function hostedUsage(u: Usage): Obj {
  return {
    input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached ?? 0, audio_tokens: null, text_tokens: null },
    output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning ?? 0, text_tokens: null },
    total_tokens: u.input + u.output, cost: null,
  };
}

interface ResponseOf {
  id: string;
  createdAt: number;
  model: string;
  output: Py[];
  usage: Py;
}

const filter = (filtered = false) => ({ filtered, severity: 'safe' });
const detected = () => ({ detected: false, filtered: false });

/** The hosted model's response, content filters and all (the string_match layout). */
export function hostedResponse(r: ResponseOf & { completedAt: number; promptChars: number; completionChars: number }): Obj {
  return {
    id: r.id, created_at: float(r.createdAt), error: null, incomplete_details: null, instructions: null, metadata: {}, model: r.model,
    object: 'response', output: r.output, parallel_tool_calls: true, temperature: float(1), tool_choice: 'auto', tools: [], top_p: float(1),
    background: false, conversation: null, max_output_tokens: null, max_tool_calls: null, previous_response_id: null, prompt: null,
    prompt_cache_key: null, reasoning: { effort: null, generate_summary: null, summary: null, context: null }, safety_identifier: null,
    service_tier: 'default', status: 'completed', text: { format: { type: 'text' }, verbosity: 'medium' }, top_logprobs: 0,
    truncation: 'disabled', usage: r.usage, user: null, store: true, completed_at: r.completedAt,
    content_filters: [
      {
        blocked: false, source_type: 'prompt', content_filter_raw: [],
        content_filter_results: { hate: filter(), sexual: filter(), violence: filter(), self_harm: filter(), jailbreak: detected() },
        content_filter_offsets: { start_offset: 0, end_offset: r.promptChars, check_offset: 0 },
      },
      {
        blocked: false, source_type: 'completion', content_filter_raw: [],
        content_filter_results: { protected_material_text: detected(), protected_material_code: detected(), hate: filter(), sexual: filter(), violence: filter(), self_harm: filter() },
        content_filter_offsets: { start_offset: 0, end_offset: r.completionChars, check_offset: 0 },
      },
    ],
    frequency_penalty: float(0), moderation: null, presence_penalty: float(0), prompt_cache_retention: 'in_memory',
  };
}

/** The hosted model's older layout (mcqa, workplace assistant); `billing` only where the file has it. */
export function olderHostedResponse(r: ResponseOf & { parallelToolCalls?: boolean; tools?: Py[]; billing?: boolean }): Obj {
  return {
    id: r.id, created_at: float(r.createdAt), error: null, incomplete_details: null, instructions: null, metadata: {}, model: r.model,
    object: 'response', output: r.output, parallel_tool_calls: r.parallelToolCalls ?? true, temperature: float(1), tool_choice: 'auto',
    tools: r.tools ?? [], top_p: float(1), background: false, max_output_tokens: null, max_tool_calls: null, previous_response_id: null,
    prompt: null, reasoning: { effort: null, generate_summary: null, summary: null }, service_tier: 'default', status: 'completed',
    text: { format: { type: 'text' }, verbosity: 'medium' }, top_logprobs: 0, truncation: 'disabled', usage: r.usage, user: null,
    ...(r.billing ? { billing: { payer: 'developer' } } : {}),
    prompt_cache_key: null, safety_identifier: null, store: true,
  };
}

/** A response an agent server assembles from its turns: nulls where no single model call answers. */
export function agentResponse(r: ResponseOf & { metadata?: Py; tools?: Py[] }): Obj {
  return {
    id: r.id, created_at: float(r.createdAt), error: null, incomplete_details: null, instructions: null, metadata: r.metadata ?? null,
    model: r.model, object: 'response', output: r.output, parallel_tool_calls: true, temperature: null, tool_choice: 'auto',
    tools: r.tools ?? [], top_p: null, background: null, conversation: null, max_output_tokens: null, max_tool_calls: null,
    previous_response_id: null, prompt: null, prompt_cache_key: null, reasoning: null, safety_identifier: null, service_tier: null,
    status: null, text: null, top_logprobs: null, truncation: null, usage: r.usage, user: null,
  };
}

/**
 * A response of NeMo Gym's vLLM model server (`chat_completion_to_response`): the request's own parameters copied
 * into it, `created_at` the chat completion's whole seconds as a float, status completed.
 */
export function modelServerResponse(r: ResponseOf & { params: Obj }): Obj {
  const p = r.params;
  return {
    id: r.id, created_at: float(r.createdAt), error: null, incomplete_details: null, instructions: p.instructions, metadata: p.metadata,
    model: r.model, object: 'response', output: r.output, parallel_tool_calls: p.parallel_tool_calls, temperature: p.temperature,
    tool_choice: p.tool_choice ?? 'auto', tools: p.tools, top_p: p.top_p, background: p.background, conversation: null,
    max_output_tokens: p.max_output_tokens, max_tool_calls: p.max_tool_calls, previous_response_id: p.previous_response_id, prompt: p.prompt,
    prompt_cache_key: null, reasoning: p.reasoning, safety_identifier: null, service_tier: p.service_tier, status: 'completed', text: p.text,
    top_logprobs: p.top_logprobs, truncation: p.truncation, usage: r.usage, user: p.user,
  };
}

/** A function tool as the Responses API lists it. */
export function functionTool(name: string, description: string, parameters: Obj, strict: boolean): Obj {
  return { name, parameters, strict, type: 'function', description };
}
