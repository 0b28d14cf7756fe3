// OpenAI Chat Completions (`/v1/chat/completions`), as vLLM and OpenAI serve it: `messages` in, one choice
// out with `reasoning_content` (vLLM reasoning parsers) and `tool_calls`; tool results go back as
// `role: tool` messages. Streams are bare `data:` chunks, a usage chunk with no choices, then `[DONE]`.
import { pyFloat, type JsonObject } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import { chunkText, type Message, type ToolDef } from './conversation';
import { memo, RawJson, spliceJson, sse, eventsBefore, type Renderer, type ResponseInput, type Usage } from './dialect-shared';
import type { Rng } from './random';
import type { ModelServer } from './scenario';

function chatMessage(m: Message): JsonObject {
  if (m.role === 'system' || m.role === 'user') return { role: m.role, content: m.text };
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.callId, content: m.output };
  const out: JsonObject = { role: 'assistant', content: m.turn.text };
  if (m.turn.toolUses.length) out.tool_calls = m.turn.toolUses.map((u) => ({ id: u.id, type: 'function', function: { name: u.name, arguments: serialize(u.args) } }));
  return out;
}

const messageText = memo((m: Message) => serialize(chatMessage(m)));
const toolsText = memo((tools: ToolDef[]) =>
  serialize(tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))),
);

function usageJson(u: Usage, vllm: boolean): JsonObject {
  if (vllm) return { prompt_tokens: u.prompt, total_tokens: u.prompt + u.output, completion_tokens: u.output, prompt_tokens_details: { cached_tokens: u.cached } };
  return {
    prompt_tokens: u.prompt,
    completion_tokens: u.output,
    total_tokens: u.prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

const finishReason = (input: ResponseInput) => (input.turn.toolUses.length ? 'tool_calls' : 'stop');

function streamEvents(input: ResponseInput, rng: Rng): string[] {
  const { turn, server } = input;
  const head = { id: turn.responseId, object: 'chat.completion.chunk', created: Math.floor(input.createdAt), model: server.model };
  const chunk = (delta: JsonObject, finish: string | null = null) =>
    sse(null, { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  if (turn.reasoning) for (const piece of chunkText(turn.reasoning, rng, 120)) events.push(chunk({ reasoning_content: piece }));
  if (turn.text) for (const piece of chunkText(turn.text, rng, 120)) events.push(chunk({ content: piece }));
  turn.toolUses.forEach((u, index) => {
    events.push(chunk({ tool_calls: [{ id: u.id, type: 'function', index, function: { name: u.name, arguments: '' } }] }));
    for (const piece of chunkText(serialize(u.args), rng, 160)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, finishReason(input)));
  events.push(sse(null, { ...head, choices: [], usage: usageJson(input.usage, server.vllm) }));
  events.push(sse(null, '[DONE]'));
  return events;
}

function errorBody(status: number, server: ModelServer, rng: Rng): JsonObject {
  if (server.vllm) {
    const message = status === 429 ? 'Too many requests: the scheduler queue is full' : 'The engine is currently overloaded, please try again later.';
    return { error: { message, type: status === 429 ? 'RateLimitError' : 'ServiceUnavailableError', param: null, code: status } };
  }
  if (status === 429) {
    return { error: { message: `Rate limit reached for ${server.model} on requests per min (RPM): Limit 10000, Used 10000, Requested 1. Please try again in ${rng.int(6, 900)}ms.`, type: 'requests', param: null, code: 'rate_limit_exceeded' } };
  }
  return { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } };
}

export const chatRenderer: Renderer = {
  request(conv, server, o) {
    const hasTools = conv.tools.length > 0;
    return spliceJson({
      model: server.model,
      messages: new RawJson(`[${conv.messages.map(messageText).join(',')}]`),
      tools: hasTools ? new RawJson(toolsText(conv.tools)) : undefined,
      tool_choice: hasTools ? 'auto' : undefined,
      temperature: o.temperature !== null ? pyFloat(o.temperature) : undefined,
      top_p: o.reasoning ? 0.95 : undefined,
      [server.vllm ? 'max_tokens' : 'max_completion_tokens']: o.maxTokens,
      stream: o.streaming ? true : undefined,
      stream_options: o.streaming ? { include_usage: true } : undefined,
    });
  },
  response(input) {
    const { turn, server } = input;
    const message: JsonObject = { role: 'assistant' };
    if (server.vllm) message.reasoning_content = turn.reasoning;
    message.content = turn.text;
    if (!server.vllm) message.refusal = null;
    if (turn.toolUses.length || server.vllm) {
      message.tool_calls = turn.toolUses.map((u) => ({ id: u.id, type: 'function', function: { name: u.name, arguments: serialize(u.args) } }));
    }
    const choice: JsonObject = { index: 0, message, logprobs: null, finish_reason: finishReason(input) };
    if (server.vllm) choice.stop_reason = null;
    return { id: turn.responseId, object: 'chat.completion', created: Math.floor(input.createdAt), model: server.model, choices: [choice], usage: usageJson(input.usage, server.vllm) };
  },
  stream: streamEvents,
  streamError(input, rng) {
    const { text } = eventsBefore(streamEvents(input, rng), rng, 0.2, 0.7);
    const error = { object: 'error', message: 'CUDA error: an illegal memory access was encountered', type: 'InternalServerError', param: null, code: 500 };
    return text + sse(null, { error }) + sse(null, '[DONE]');
  },
  errorBody,
};
