// A dialect-neutral agent conversation. Agents resend the whole conversation on every model call, so a
// rollout's requests grow turn by turn: system prompt, user task, then each assistant turn (reasoning,
// text, tool calls) followed by the tool results fed back. The dialect modules render this one history as
// a Responses `input`, a Chat `messages` list or an Anthropic `messages` list.
import type { JsonObject } from '../capture/json-value';
import type { Dialect } from '../capture/sse';
import type { Rng } from './random';

export interface ToolDef {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: JsonObject;
}

export interface ToolUse {
  /** The provider's call id: `call_…` (OpenAI), `chatcmpl-tool-…` (vLLM) or `toolu_…` (Anthropic). */
  id: string;
  /** The Responses output item id (`fc_…`); unused by the other dialects. */
  itemId: string;
  name: string;
  args: JsonObject;
}

export interface AssistantTurn {
  reasoning: string | null;
  text: string | null;
  toolUses: ToolUse[];
  /** Provider ids of this turn's output, reused when the turn is resent as history. */
  responseId: string;
  messageItemId: string;
  reasoningItemId: string;
  /** Anthropic thinking-block signature (opaque; resent verbatim). */
  signature: string;
}

export type Message =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string }
  | { role: 'assistant'; turn: AssistantTurn }
  | { role: 'tool'; callId: string; name: string; output: string };

export interface Conversation {
  tools: ToolDef[];
  messages: Message[];
}

export function startConversation(system: string, user: string, tools: ToolDef[], greeting?: { text: string; id: string }): Conversation {
  const messages: Message[] = [{ role: 'system', text: system }];
  if (greeting) messages.push({ role: 'assistant', turn: textTurn(greeting.text, greeting.id) });
  messages.push({ role: 'user', text: user });
  return { tools, messages };
}

function textTurn(text: string, id: string): AssistantTurn {
  return { reasoning: null, text, toolUses: [], responseId: id, messageItemId: id, reasoningItemId: id, signature: '' };
}

/** The id formats providers use, per dialect and model family. */
export function newIds(rng: Rng, dialect: Dialect, vllm: boolean): Omit<AssistantTurn, 'reasoning' | 'text' | 'toolUses'> {
  if (dialect === 'messages') {
    const id = `msg_01${rng.base62(22)}`;
    return { responseId: id, messageItemId: id, reasoningItemId: id, signature: rng.base62(88) };
  }
  if (dialect === 'chat') {
    const id = vllm ? `chatcmpl-${rng.hex(32)}` : `chatcmpl-${rng.base62(29)}`;
    return { responseId: id, messageItemId: id, reasoningItemId: id, signature: '' };
  }
  if (vllm) {
    const id = rng.hex(32);
    return { responseId: `resp_${id}`, messageItemId: `msg_${rng.hex(32)}`, reasoningItemId: `rs_${rng.hex(32)}`, signature: '' };
  }
  const stem = rng.hex(40);
  return {
    responseId: `resp_${rng.hex(8)}${stem}`,
    messageItemId: `msg_${rng.hex(8)}${stem}`,
    reasoningItemId: `rs_${rng.hex(8)}${stem}`,
    signature: '',
  };
}

export function newToolUse(rng: Rng, dialect: Dialect, vllm: boolean, name: string, args: JsonObject): ToolUse {
  let id: string;
  if (dialect === 'messages') id = `toolu_01${rng.base62(22)}`;
  else if (vllm) id = `chatcmpl-tool-${rng.hex(16)}`;
  else id = `call_${rng.base62(24)}`;
  return { id, itemId: `fc_${rng.hex(48)}`, name, args };
}

/** A rough tokenizer: ~3.7 bytes of text or JSON per token, as BPE tokenizers average on English and code. */
export function estimateTokens(bytes: number): number {
  return Math.max(1, Math.round(bytes / 3.7));
}

/** Splits text into stream deltas of a few words, as providers flush them. */
export function chunkText(text: string, rng: Rng, target = 48): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + Math.max(8, Math.round(rng.around(target, 0.35))));
    const space = text.indexOf(' ', end);
    if (space > 0 && space - end < 12) end = space + 1;
    // Never split a UTF-16 surrogate pair across two deltas.
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end++;
    parts.push(text.slice(i, end));
    i = end;
  }
  return parts.length ? parts : [''];
}
