// One call's request and response as a conversation, whatever the dialect (spec §7): Responses `input` and
// `output` items, Chat `messages` and `choices[0].message`, Anthropic `system`, `messages` and response
// `content` blocks all become messages made of parts (text, reasoning, tool calls, tool results, media, and
// anything else kept as JSON). Every message and part carries its JSON pointer into the call record (or into
// the document `at` names, a rollout line), so the view can link into the payload tree. Payload strings stay strings: nothing here produces markup.
import { childPointer } from './json-pointer';
import { isObj, type Obj } from './json-object';

export type Part =
  | { kind: 'text'; pointer: string; text: string; refusal?: boolean }
  | { kind: 'reasoning'; pointer: string; text: string; encrypted?: boolean }
  | { kind: 'tool_call'; pointer: string; id: string | null; name: string | null; arguments: unknown }
  | { kind: 'tool_result'; pointer: string; id: string | null; name: string | null; text: string; isError: boolean }
  | { kind: 'media'; pointer: string; media: string; size: number | null }
  | { kind: 'other'; pointer: string; type: string; value: unknown };

export interface ConversationMessage {
  role: string;
  source: 'request' | 'response';
  pointer: string;
  parts: Part[];
}

export interface Conversation {
  dialect: 'responses' | 'chat' | 'messages' | null;
  messages: ConversationMessage[];
  /** Names of the tools the request offered. */
  tools: string[];
  /** What the viewer should know: a missing response, more choices than shown. */
  notes: string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const textOf = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v, null, 2));

/** Arguments as sent: a JSON string is parsed for display, anything unparseable stays the string. */
export function parseArguments(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function inferDialect(dialect: string | null, request: unknown, response: unknown): Conversation['dialect'] {
  if (dialect === 'responses' || dialect === 'chat' || dialect === 'messages') return dialect;
  const req = isObj(request) ? request : {};
  const resp = isObj(response) ? response : {};
  if ('input' in req || Array.isArray(resp.output)) return 'responses';
  if (Array.isArray(resp.choices)) return 'chat';
  if ('system' in req || Array.isArray(resp.content)) return 'messages';
  if (Array.isArray(req.messages)) return 'chat';
  return null;
}

function mediaPart(pointer: string, block: Obj, media: string): Part {
  const data = [block.image_url, block.url, block.file_data, block.data, isObj(block.source) ? block.source.data : null, isObj(block.image_url) ? block.image_url.url : null].find(
    (v): v is string => typeof v === 'string',
  );
  return { kind: 'media', pointer, media, size: data ? data.length : null };
}

/** A content list (Responses, Chat or Anthropic) as parts. */
function contentParts(content: unknown, pointer: string): Part[] {
  if (typeof content === 'string') return [{ kind: 'text', pointer, text: content }];
  if (!Array.isArray(content)) return content === null || content === undefined ? [] : [{ kind: 'other', pointer, type: typeof content, value: content }];
  return content.map((b, i) => blockPart(b, childPointer(pointer, i)));
}

function blockPart(b: unknown, p: string): Part {
  if (typeof b === 'string') return { kind: 'text', pointer: p, text: b };
  if (!isObj(b)) return { kind: 'other', pointer: p, type: typeof b, value: b };
  const type = str(b.type) ?? '';
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text':
    case 'summary_text':
      return { kind: 'text', pointer: p, text: textOf(b.text) };
    case 'refusal':
      return { kind: 'text', pointer: p, text: textOf(b.refusal), refusal: true };
    case 'thinking':
      return { kind: 'reasoning', pointer: p, text: textOf(b.thinking) };
    case 'redacted_thinking':
      return { kind: 'reasoning', pointer: p, text: '', encrypted: true };
    case 'reasoning_text':
      return { kind: 'reasoning', pointer: p, text: textOf(b.text) };
    case 'tool_use':
    case 'server_tool_use':
      return { kind: 'tool_call', pointer: p, id: str(b.id), name: str(b.name), arguments: b.input ?? null };
    case 'tool_result':
      return { kind: 'tool_result', pointer: p, id: str(b.tool_use_id), name: null, text: toolResultText(b.content), isError: b.is_error === true };
    case 'image':
    case 'image_url':
    case 'input_image':
      return mediaPart(p, b, 'image');
    case 'input_audio':
    case 'audio':
      return mediaPart(p, b, 'audio');
    case 'document':
    case 'file':
    case 'input_file':
      return mediaPart(p, b, 'file');
    default:
      return { kind: 'other', pointer: p, type: type || 'object', value: b };
  }
}

function toolResultText(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  return content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : isObj(b) && typeof b.type === 'string' ? `[${b.type}]` : textOf(b))).join('\n');
}

// --- Responses ------------------------------------------------------------------------------------------

function responsesItem(item: unknown, p: string): { role: string; parts: Part[] } {
  if (typeof item === 'string') return { role: 'user', parts: [{ kind: 'text', pointer: p, text: item }] };
  if (!isObj(item)) return { role: 'unknown', parts: [{ kind: 'other', pointer: p, type: typeof item, value: item }] };
  const type = str(item.type) ?? (item.role ? 'message' : '');
  switch (type) {
    case 'message':
      return { role: str(item.role) ?? 'unknown', parts: contentParts(item.content, childPointer(p, 'content')) };
    case 'function_call':
    case 'custom_tool_call':
      return { role: 'assistant', parts: [{ kind: 'tool_call', pointer: p, id: str(item.call_id) || str(item.id), name: str(item.name), arguments: parseArguments(item.arguments ?? item.input) }] };
    case 'function_call_output':
    case 'custom_tool_call_output':
      return { role: 'tool', parts: [{ kind: 'tool_result', pointer: p, id: str(item.call_id), name: null, text: toolResultText(item.output), isError: false }] };
    case 'reasoning': {
      const parts: Part[] = [];
      const summary = Array.isArray(item.summary) ? item.summary : [];
      summary.forEach((s, i) => isObj(s) && typeof s.text === 'string' && parts.push({ kind: 'reasoning', pointer: childPointer(childPointer(p, 'summary'), i), text: s.text }));
      const content = Array.isArray(item.content) ? item.content : [];
      content.forEach((s, i) => isObj(s) && typeof s.text === 'string' && parts.push({ kind: 'reasoning', pointer: childPointer(childPointer(p, 'content'), i), text: s.text }));
      if (!parts.length) parts.push({ kind: 'reasoning', pointer: p, text: '', encrypted: typeof item.encrypted_content === 'string' });
      return { role: 'assistant', parts };
    }
    default:
      return { role: 'assistant', parts: [{ kind: 'other', pointer: p, type: type || 'object', value: item }] };
  }
}

function responsesMessages(req: Obj, resp: Obj, at: Bases): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  if (typeof req.instructions === 'string') out.push({ role: 'system', source: 'request', pointer: `${at.request}/instructions`, parts: [{ kind: 'text', pointer: `${at.request}/instructions`, text: req.instructions }] });
  const push = (source: ConversationMessage['source'], item: unknown, p: string) => {
    const { role, parts } = responsesItem(item, p);
    const last = out[out.length - 1];
    // Reasoning, tool calls and the message of one assistant turn arrive as separate items: show them together.
    if (last && last.source === source && last.role === 'assistant' && role === 'assistant') last.parts.push(...parts);
    else out.push({ role, source, pointer: p, parts });
  };
  if (typeof req.input === 'string') push('request', req.input, `${at.request}/input`);
  else if (Array.isArray(req.input)) req.input.forEach((item, i) => push('request', item, `${at.request}/input/${i}`));
  if (Array.isArray(resp.output)) resp.output.forEach((item, i) => push('response', item, `${at.response}/output/${i}`));
  return out;
}

// --- Chat -----------------------------------------------------------------------------------------------

function chatMessage(m: unknown, p: string, source: ConversationMessage['source']): ConversationMessage {
  if (!isObj(m)) return { role: 'unknown', source, pointer: p, parts: [{ kind: 'other', pointer: p, type: typeof m, value: m }] };
  const role = str(m.role) ?? 'unknown';
  const parts: Part[] = [];
  const reasoningKey = typeof m.reasoning_content === 'string' && m.reasoning_content ? 'reasoning_content' : typeof m.reasoning === 'string' && m.reasoning ? 'reasoning' : null;
  if (reasoningKey) parts.push({ kind: 'reasoning', pointer: childPointer(p, reasoningKey), text: m[reasoningKey] as string });
  if (role === 'tool' || role === 'function') {
    parts.push({ kind: 'tool_result', pointer: childPointer(p, 'content'), id: str(m.tool_call_id), name: str(m.name), text: toolResultText(m.content), isError: false });
  } else {
    parts.push(...contentParts(m.content, childPointer(p, 'content')));
  }
  if (Array.isArray(m.tool_calls)) {
    m.tool_calls.forEach((tc, i) => {
      const fn = isObj(tc) && isObj(tc.function) ? tc.function : {};
      parts.push({ kind: 'tool_call', pointer: childPointer(childPointer(p, 'tool_calls'), i), id: isObj(tc) ? str(tc.id) : null, name: str(fn.name), arguments: parseArguments(fn.arguments) });
    });
  }
  return { role, source, pointer: p, parts };
}

function chatMessages(req: Obj, resp: Obj, notes: string[], at: Bases): ConversationMessage[] {
  const out = Array.isArray(req.messages) ? req.messages.map((m, i) => chatMessage(m, `${at.request}/messages/${i}`, 'request')) : [];
  if (Array.isArray(resp.choices) && resp.choices.length) {
    const first = resp.choices[0];
    if (isObj(first) && isObj(first.message)) out.push(chatMessage(first.message, `${at.response}/choices/0/message`, 'response'));
    if (resp.choices.length > 1) notes.push(`The response has ${resp.choices.length} choices; the conversation shows the first (the record's tool calls come from all of them).`);
  }
  return out;
}

// --- Anthropic Messages ---------------------------------------------------------------------------------

function anthropicMessages(req: Obj, resp: Obj, at: Bases): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  if (req.system !== undefined && req.system !== null) out.push({ role: 'system', source: 'request', pointer: `${at.request}/system`, parts: contentParts(req.system, `${at.request}/system`) });
  if (Array.isArray(req.messages)) {
    req.messages.forEach((m, i) => {
      const p = `${at.request}/messages/${i}`;
      if (!isObj(m)) {
        out.push({ role: 'unknown', source: 'request', pointer: p, parts: [{ kind: 'other', pointer: p, type: typeof m, value: m }] });
        return;
      }
      const parts = contentParts(m.content, `${p}/content`);
      const role = parts.length > 0 && parts.every((x) => x.kind === 'tool_result') ? 'tool' : (str(m.role) ?? 'unknown');
      out.push({ role, source: 'request', pointer: p, parts });
    });
  }
  if (Array.isArray(resp.content)) out.push({ role: str(resp.role) ?? 'assistant', source: 'response', pointer: at.response, parts: contentParts(resp.content, `${at.response}/content`) });
  return out;
}

function offeredTools(req: Obj): string[] {
  if (!Array.isArray(req.tools)) return [];
  return req.tools.map((t) => (isObj(t) ? (str(t.name) ?? (isObj(t.function) ? str(t.function.name) : null) ?? str(t.type) ?? '?') : '?'));
}

/** Names tool results after the tool call they answer (matched by call id, earlier in the conversation). */
function nameToolResults(messages: ConversationMessage[]): void {
  const names = new Map<string, string>();
  for (const m of messages) {
    for (const part of m.parts) {
      if (part.kind === 'tool_call' && part.id && part.name) names.set(part.id, part.name);
      if (part.kind === 'tool_result' && part.id && !part.name) part.name = names.get(part.id) ?? null;
    }
  }
}

/** Where the request and the response sit in the document the pointers address: a call record by default. */
export interface Bases {
  request: string;
  response: string;
}
const RECORD: Bases = { request: '/request', response: '/response' };

export function normalizeConversation(dialect: string | null, request: unknown, response: unknown, at: Bases = RECORD): Conversation {
  const d = inferDialect(dialect, request, response);
  const req = isObj(request) ? request : {};
  const resp = isObj(response) ? response : {};
  const notes: string[] = [];
  if (!isObj(request)) notes.push('The request is not a JSON object (see the raw line for its text, if any).');
  if (!isObj(response)) notes.push('No response object was stored for this call (an error, a transport failure, or an unparseable body).');
  else if (isObj(resp.error)) notes.push(`The response carries an error: ${textOf(resp.error.message ?? resp.error)}`);
  const messages = d === 'responses' ? responsesMessages(req, resp, at) : d === 'messages' ? anthropicMessages(req, resp, at) : chatMessages(req, resp, notes, at);
  nameToolResults(messages);
  return { dialect: d, messages, tools: offeredTools(req), notes };
}
