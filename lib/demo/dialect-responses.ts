// OpenAI Responses (`/v1/responses`): `input` items in, `output` items out (reasoning with a summary,
// assistant message, function_call), tool results fed back as `function_call_output` items. Streams are
// typed events framed with `event:` lines and end with `response.completed` carrying the whole response.
import { pyFloat, type JsonObject, type JsonValue } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import { chunkText, type AssistantTurn, type Message, type ToolDef } from './conversation';
import { memo, RawJson, spliceJson, sse, eventsBefore, type Renderer, type ResponseInput, type Usage } from './dialect-shared';
import type { Rng } from './random';
import type { ModelServer } from './scenario';

export function outputItems(turn: AssistantTurn): JsonObject[] {
  const items: JsonObject[] = [];
  if (turn.reasoning) {
    items.push({ id: turn.reasoningItemId, summary: [{ text: turn.reasoning, type: 'summary_text' }], type: 'reasoning', encrypted_content: null });
  }
  if (turn.text) {
    items.push({
      id: turn.messageItemId,
      content: [{ annotations: [], text: turn.text, type: 'output_text', logprobs: [] }],
      role: 'assistant',
      status: 'completed',
      type: 'message',
    });
  }
  for (const use of turn.toolUses) {
    items.push({ arguments: serialize(use.args), call_id: use.id, name: use.name, type: 'function_call', id: use.itemId, status: 'completed' });
  }
  return items;
}

/** The conversation as Responses input items (also the shape of a Gym rollout's `response.output`). */
export function inputItems(messages: Message[]): JsonObject[] {
  const items: JsonObject[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'user') items.push({ content: m.text, role: m.role, type: 'message' });
    else if (m.role === 'assistant') items.push(...outputItems(m.turn));
    else items.push({ call_id: m.callId, output: m.output, type: 'function_call_output' });
  }
  return items;
}

export function responsesTools(tools: ToolDef[]): JsonObject[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
}

const inputText = memo((m: Message) => inputItems([m]).map((item) => serialize(item)).join(','));
const toolsText = memo((tools: ToolDef[]) => serialize(responsesTools(tools)));

function usageJson(u: Usage): JsonObject {
  return {
    input_tokens: u.prompt,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.prompt + u.output,
  };
}

function envelope(input: ResponseInput, status: string, output: JsonValue[], usage: JsonObject | null, error: JsonObject | null = null): JsonObject {
  return {
    id: input.turn.responseId,
    created_at: pyFloat(Math.floor(input.createdAt)),
    error,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    model: input.server.model,
    object: 'response',
    output,
    parallel_tool_calls: false,
    temperature: pyFloat(1),
    tool_choice: 'auto',
    top_p: pyFloat(1),
    background: false,
    max_output_tokens: null,
    previous_response_id: null,
    reasoning: input.reasoning ? { effort: 'medium', summary: 'detailed' } : { effort: null, summary: null },
    service_tier: 'default',
    status,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    truncation: 'disabled',
    usage,
    user: null,
  };
}

function streamEvents(input: ResponseInput, rng: Rng): string[] {
  let seq = 0;
  const ev = (type: string, body: JsonObject) => sse(type, { type, sequence_number: seq++, ...body });
  const events = [ev('response.created', { response: envelope(input, 'in_progress', [], null) })];
  outputItems(input.turn).forEach((item, index) => {
    const id = item.id as string;
    if (item.type === 'reasoning') {
      events.push(ev('response.output_item.added', { output_index: index, item: { id, summary: [], type: 'reasoning', encrypted_content: null } }));
      for (const delta of chunkText(input.turn.reasoning ?? '', rng, 120)) {
        events.push(ev('response.reasoning_summary_text.delta', { item_id: id, output_index: index, summary_index: 0, delta }));
      }
    } else if (item.type === 'message') {
      events.push(ev('response.output_item.added', { output_index: index, item: { id, content: [], role: 'assistant', status: 'in_progress', type: 'message' } }));
      for (const delta of chunkText(input.turn.text ?? '', rng, 120)) {
        events.push(ev('response.output_text.delta', { item_id: id, output_index: index, content_index: 0, delta, logprobs: [] }));
      }
    } else {
      events.push(ev('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } }));
      events.push(ev('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: item.arguments as string }));
      events.push(ev('response.output_item.done', { output_index: index, item }));
    }
  });
  events.push(ev('response.completed', { response: responsesRenderer.response(input) }));
  return events;
}

function errorBody(status: number, server: ModelServer, rng: Rng): JsonObject {
  if (server.vllm) {
    const message = status === 429 ? 'Too many requests: the scheduler queue is full' : 'The engine is currently overloaded, please try again later.';
    return { error: { message, type: status === 429 ? 'RateLimitError' : 'ServiceUnavailableError', param: null, code: status } };
  }
  if (status === 429) {
    const used = rng.int(29_900_000, 29_999_000);
    return {
      error: {
        message: `Rate limit reached for ${server.model} in organization org-${rng.base62(24)} on tokens per min (TPM): Limit 30000000, Used ${used}, Requested ${rng.int(2000, 9000)}. Please try again in ${rng.int(2, 90)}ms. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    };
  }
  return { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } };
}

export const responsesRenderer: Renderer = {
  request(conv, _server, o) {
    const hasTools = conv.tools.length > 0;
    return spliceJson({
      input: new RawJson(`[${conv.messages.map(inputText).filter(Boolean).join(',')}]`),
      tools: hasTools ? new RawJson(toolsText(conv.tools)) : undefined,
      tool_choice: hasTools ? 'auto' : undefined,
      parallel_tool_calls: hasTools ? false : undefined,
      reasoning: o.reasoning ? { effort: 'medium', summary: 'detailed' } : undefined,
      temperature: o.temperature !== null ? pyFloat(o.temperature) : undefined,
      max_output_tokens: o.maxTokens,
      stream: o.streaming ? true : undefined,
    });
  },
  response(input) {
    return envelope(input, 'completed', outputItems(input.turn), usageJson(input.usage));
  },
  stream: streamEvents,
  streamError(input, rng) {
    const { text, kept } = eventsBefore(streamEvents(input, rng), rng, 0.2, 0.7);
    const failed = envelope(input, 'failed', [], null, { code: 'server_error', message: 'An error occurred while processing your request.' });
    return text + sse('response.failed', { type: 'response.failed', sequence_number: kept, response: failed });
  },
  errorBody,
};
