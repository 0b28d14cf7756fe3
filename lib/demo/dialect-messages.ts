// Anthropic Messages (`/v1/messages`): a top-level `system`, alternating user/assistant `messages` whose
// content blocks carry thinking (with its signature), text and tool_use; tool results go back as
// `tool_result` blocks in the next user message. Usage reports uncached input, cache reads and cache writes
// separately. Streams are `event:`-framed and end with `message_stop`.
import { pyFloat, type JsonObject } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import { chunkText, type AssistantTurn, type Message, type ToolDef } from './conversation';
import { memo, RawJson, spliceJson, sse, eventsBefore, type Renderer, type ResponseInput, type Usage } from './dialect-shared';
import type { Rng } from './random';
import type { ModelServer } from './scenario';

function contentBlocks(turn: AssistantTurn): JsonObject[] {
  const blocks: JsonObject[] = [];
  if (turn.reasoning) blocks.push({ type: 'thinking', thinking: turn.reasoning, signature: turn.signature });
  if (turn.text) blocks.push({ type: 'text', text: turn.text });
  for (const u of turn.toolUses) blocks.push({ type: 'tool_use', id: u.id, name: u.name, input: u.args });
  return blocks;
}

/** The message's serialized form: a whole assistant message, or one content block of a user message. */
const messageText = memo((m: Message): string => {
  if (m.role === 'assistant') return serialize({ role: 'assistant', content: contentBlocks(m.turn) });
  if (m.role === 'tool') return serialize({ type: 'tool_result', tool_use_id: m.callId, content: m.output });
  return serialize({ type: 'text', text: m.text });
});
const toolsText = memo((tools: ToolDef[]) => serialize(tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))));

/** User text and tool results between two assistant turns are one user message (roles must alternate). */
function messagesText(messages: Message[]): string {
  const out: string[] = [];
  let pending: string[] = [];
  const flush = () => {
    if (pending.length) out.push(`{"role":"user","content":[${pending.join(',')}]}`);
    pending = [];
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      flush();
      out.push(messageText(m));
    } else {
      pending.push(messageText(m));
    }
  }
  flush();
  return `[${out.join(',')}]`;
}

/** Anthropic's usage: input_tokens excludes cache reads and writes. */
function usageJson(u: Usage): JsonObject {
  return {
    input_tokens: u.prompt - u.cached - u.cacheCreation,
    cache_creation_input_tokens: u.cacheCreation,
    cache_read_input_tokens: u.cached,
    output_tokens: u.output,
    service_tier: 'standard',
  };
}

const stopReason = (turn: AssistantTurn) => (turn.toolUses.length ? 'tool_use' : 'end_turn');

function streamEvents(input: ResponseInput, rng: Rng): string[] {
  const { turn, server } = input;
  const ev = (type: string, body: JsonObject) => sse(type, { type, ...body });
  const start = { ...usageJson(input.usage), output_tokens: 1 };
  const events = [
    ev('message_start', { message: { id: turn.responseId, type: 'message', role: 'assistant', model: server.model, content: [], stop_reason: null, stop_sequence: null, usage: start } }),
  ];
  contentBlocks(turn).forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      if (index === 0) events.push(ev('ping', {}));
      for (const thinking of chunkText(turn.reasoning ?? '', rng, 120)) events.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }));
      events.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: turn.signature } }));
    } else if (block.type === 'text') {
      events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of chunkText(turn.text ?? '', rng, 120)) events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else {
      events.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
      for (const partial_json of chunkText(serialize(block.input), rng, 160)) events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }));
    }
    events.push(ev('content_block_stop', { index }));
  });
  events.push(ev('message_delta', { delta: { stop_reason: stopReason(turn), stop_sequence: null }, usage: { output_tokens: input.usage.output } }));
  events.push(ev('message_stop', {}));
  return events;
}

function errorBody(status: number, _server: ModelServer, rng: Rng): JsonObject {
  const error =
    status === 429
      ? { type: 'rate_limit_error', message: `This request would exceed the rate limit for your organization of ${rng.pick(['2,000,000', '4,000,000'])} input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.` }
      : status === 529
        ? { type: 'overloaded_error', message: 'Overloaded' }
        : { type: 'api_error', message: 'Internal server error' };
  return { type: 'error', error, request_id: `req_011C${rng.base62(20)}` };
}

export const messagesRenderer: Renderer = {
  request(conv, server, o) {
    const system = conv.messages.find((m) => m.role === 'system');
    return spliceJson({
      model: server.model,
      max_tokens: o.maxTokens,
      messages: new RawJson(messagesText(conv.messages)),
      system: system?.role === 'system' ? [{ type: 'text', text: system.text, cache_control: { type: 'ephemeral' } }] : undefined,
      tools: conv.tools.length ? new RawJson(toolsText(conv.tools)) : undefined,
      thinking: o.reasoning ? { type: 'enabled', budget_tokens: 4096 } : undefined,
      temperature: o.temperature !== null && !o.reasoning ? pyFloat(o.temperature) : undefined,
      stream: o.streaming ? true : undefined,
    });
  },
  response(input) {
    const { turn, server } = input;
    return { id: turn.responseId, type: 'message', role: 'assistant', model: server.model, content: contentBlocks(turn), stop_reason: stopReason(turn), stop_sequence: null, usage: usageJson(input.usage) };
  },
  stream: streamEvents,
  streamError(input, rng) {
    const { text } = eventsBefore(streamEvents(input, rng), rng, 0.2, 0.7);
    return text + sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  },
  errorBody,
};
