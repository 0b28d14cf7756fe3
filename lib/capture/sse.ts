// SSE terminal detection (spec §6.5) and final-response reassembly (§7) for captured streams.
//
// Both reproduce NeMo Gym's Python code rather than the WHATWG EventSource algorithm, which is why this
// module does not use eventsource-parser: detection splits raw bytes on `\r?\n\r?\n` and lines on CR/LF only,
// normalizing `<field>:<ws><value>`; reassembly decodes with U+FFFD replacement and splits lines with
// `str.splitlines` (which also breaks on VT, FF, FS/GS/RS, NEL, U+2028 and U+2029). Event data is parsed
// with `parsePython` and never re-encoded, so ints, floats and key order survive. Reassembly follows the
// Python code's type assumptions: wherever Python would raise, the whole result is null.
import { isJsonObject, keysOf, numericValue, pyFloat, setKey, truthy } from './json-value';
import { parsePython } from './json-parse';
import type { JsonObject, JsonValue } from './json-value';

export type Dialect = 'responses' | 'chat' | 'messages';
export type TerminalKind = 'complete' | 'incomplete' | 'error';

// A dialect other than these three has no terminal lines and never terminates.
const TERMINAL_LINES = new Map<string, ReadonlyMap<string, TerminalKind>>([
  ['responses', new Map([['event: response.completed', 'complete'], ['event: response.incomplete', 'incomplete'],
    ['event: response.failed', 'error'], ['event: error', 'error']])],
  ['chat', new Map([['data: [DONE]', 'complete'], ['event: error', 'error']])],
  ['messages', new Map([['event: message_stop', 'complete'], ['event: error', 'error']])],
]);
const LF = 0x0a;
const CR = 0x0d;
const DATA_PREFIX = Buffer.from('data:');
// Longest terminal value after `field: `; a longer value cannot match.
const MAX_TERMINAL_VALUE = 24;

/** End of the `\r?\n\r?\n` separator starting at `i`, or -1. */
function separatorEnd(b: Buffer, i: number): number {
  let j = b[i] === CR ? i + 1 : i;
  if (b[j] !== LF) return -1;
  if (b[++j] === CR) j++;
  return b[j] === LF ? j + 1 : -1;
}

/** `bytes.splitlines()`: LF, CR and CRLF. */
function byteLines(block: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < block.length; i++) {
    if (block[i] !== LF && block[i] !== CR) continue;
    lines.push(block.subarray(start, i));
    if (block[i] === CR && block[i + 1] === LF) i++;
    start = i + 1;
  }
  if (start < block.length) lines.push(block.subarray(start));
  return lines;
}

/** `bytes.lstrip()` from `from`: ASCII whitespace is space and TAB..CR. */
function lstripAscii(b: Buffer, from: number): Buffer {
  while (from < b.length && (b[from] === 0x20 || (b[from] >= 0x09 && b[from] <= 0x0d))) from++;
  return b.subarray(from);
}

function terminalLineKind(line: Buffer, terminals: ReadonlyMap<string, TerminalKind>): TerminalKind | undefined {
  const colon = line.indexOf(':');
  if (colon < 0 || colon > 5) return undefined;
  const value = lstripAscii(line, colon + 1);
  if (value.length > MAX_TERMINAL_VALUE) return undefined;
  return terminals.get(`${line.toString('latin1', 0, colon)}: ${value.toString('latin1')}`);
}

function isChatErrorData(line: Buffer): boolean {
  if (!line.subarray(0, 5).equals(DATA_PREFIX)) return false;
  const json = lstripAscii(line, 5);
  // The key "error" is spelled literally or with a \u escape; NUL bytes mean UTF-16/32 detection applies.
  if (!json.includes('error') && !json.includes('\\u') && !json.includes(0)) return false;
  try {
    const value = parsePython(json);
    return isJsonObject(value) && has(value, 'error') && value.error !== null;
  } catch {
    return false;
  }
}

function blockKind(block: Buffer, dialect: string): TerminalKind | null {
  const lines = byteLines(block);
  const terminals = TERMINAL_LINES.get(dialect);
  for (const line of terminals ? lines : []) {
    const kind = terminalLineKind(line, terminals!);
    if (kind) return kind;
  }
  return dialect === 'chat' && lines.some(isChatErrorData) ? 'error' : null;
}

export class TerminalScanner {
  readonly #dialect: string;
  #terminal: TerminalKind | null = null;
  #buf = Buffer.alloc(0);
  #len = 0;

  constructor(dialect: string) {
    this.#dialect = dialect;
  }

  get terminal(): TerminalKind | null {
    return this.#terminal;
  }

  push(chunk: Uint8Array): TerminalKind | null {
    if (this.#terminal !== null || chunk.length === 0) return null;
    // A separator is at most 4 bytes and the kept fragment holds none, so a new one ends in this chunk.
    let i = Math.max(0, this.#len - 3);
    this.#append(chunk);
    const b = this.#buf.subarray(0, this.#len);
    let blockStart = 0;
    for (let lf = b.indexOf(LF, i); lf >= 0; lf = b.indexOf(LF, i)) {
      const start = lf > blockStart && b[lf - 1] === CR ? lf - 1 : lf;
      const end = separatorEnd(b, start);
      if (end < 0) {
        i = lf + 1;
        continue;
      }
      const kind = blockKind(b.subarray(blockStart, start), this.#dialect);
      if (kind) {
        this.#buf = Buffer.alloc(0);
        this.#len = 0;
        return (this.#terminal = kind);
      }
      blockStart = i = end;
    }
    if (blockStart > 0) b.copyWithin(0, blockStart);
    this.#len -= blockStart;
    return null;
  }

  #append(chunk: Uint8Array): void {
    const need = this.#len + chunk.length;
    if (need > this.#buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.#buf.length * 2, 1024));
      this.#buf.copy(grown, 0, 0, this.#len);
      this.#buf = grown;
    }
    this.#buf.set(chunk, this.#len);
    this.#len = need;
  }
}

// §7.1 -----------------------------------------------------------------------------------------------------

const utf8Replacing = new TextDecoder('utf-8', { ignoreBOM: true });
const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
const PY_LEADING_SPACE = /^[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

export function parseSseEvents(body: Uint8Array | string): JsonObject[] {
  const text = typeof body === 'string' ? body : utf8Replacing.decode(body);
  const events: JsonObject[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block.split(PY_LINE_BREAK).filter((line) => line.startsWith('data:'));
    const joined = data.map((line) => line.slice(5).replace(PY_LEADING_SPACE, '')).join('\n');
    if (data.length === 0 || joined === '[DONE]') continue;
    try {
      const value = parsePython(joined);
      if (isJsonObject(value)) events.push(value);
    } catch {
      continue;
    }
  }
  return events;
}

export function reassemble(dialect: string, body: Uint8Array | string): JsonValue | null {
  try {
    const events = parseSseEvents(body);
    if (events.length === 0) return null;
    if (dialect === 'responses') return reassembleResponses(events);
    return dialect === 'messages' ? reassembleMessages(events) : reassembleChat(events);
  } catch {
    return null;
  }
}

// Python semantics the reassembly code relies on -----------------------------------------------------------

class PyTypeError extends Error {}

function has(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** `obj.get(key)` */
function get(obj: JsonObject, key: string): JsonValue {
  return has(obj, key) ? obj[key] : null;
}

/** `value or {}` used as a dict. Python's dict()/update() would also take a list of pairs; we raise. */
function dictOrEmpty(value: JsonValue): JsonObject {
  if (!truthy(value)) return {};
  if (!isJsonObject(value)) throw new PyTypeError('not a dict');
  return value;
}

/** `for x in value or []`: strings give characters, dicts their keys, other scalars raise. */
function iterate(value: JsonValue): JsonValue[] {
  if (!truthy(value)) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (isJsonObject(value)) return keysOf(value);
  throw new PyTypeError('not iterable');
}

function asString(value: JsonValue): string {
  if (typeof value !== 'string') throw new PyTypeError('expected str');
  return value;
}

function isPyInt(v: JsonValue): v is number | bigint | boolean {
  return typeof v === 'boolean' || typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
}

/** `a + b` for the JSON types that support it: str, list, and int/float (bool is an int). */
function pyAdd(a: JsonValue, b: JsonValue): JsonValue {
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (isPyInt(a) && isPyInt(b)) {
    const sum = BigInt(a) + BigInt(b);
    return sum >= BigInt(Number.MIN_SAFE_INTEGER) && sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum;
  }
  const x = typeof a === 'boolean' ? Number(a) : numericValue(a);
  const y = typeof b === 'boolean' ? Number(b) : numericValue(b);
  if (x === null || y === null) throw new PyTypeError('unsupported operand types for +');
  return pyFloat(x + y);
}

/** A dict key: numbers and bools that compare equal share an entry (`1 == 1.0 == True`). */
interface PyKey {
  id: string;
  value: bigint | number | string | null;
}

function pyKey(v: JsonValue): PyKey {
  if (v === null || typeof v === 'string') return { id: v === null ? 'None' : `'${v}`, value: v };
  const n = typeof v === 'boolean' ? Number(v) : numericValue(v);
  if (n === null) throw new PyTypeError('unhashable type');
  // Each NaN is a distinct key, and their sorted order depends on timsort internals: we give up instead.
  if (Number.isNaN(n)) throw new PyTypeError('NaN key');
  const value = typeof v === 'bigint' ? v : Number.isInteger(n) ? BigInt(n) : n;
  return { id: `#${value}`, value };
}

function compareCodePoints(a: string, b: string): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** `sorted(d)` over dict keys: str vs number, or None vs anything, raises. */
function sortedByKey<T>(entries: Iterable<[PyKey, T]>): [PyKey, T][] {
  const kind = (k: PyKey) => (k.value === null ? 'None' : typeof k.value === 'string' ? 'str' : 'number');
  const list = [...entries];
  if (list.some(([k]) => kind(k) !== kind(list[0][0]))) throw new PyTypeError('unorderable keys');
  return list.sort(([{ value: a }], [{ value: b }]) =>
    typeof a === 'string' && typeof b === 'string' ? compareCodePoints(a, b) : a! < b! ? -1 : a! > b! ? 1 : 0,
  );
}

// §7.2 -----------------------------------------------------------------------------------------------------

const RESPONSE_TERMINAL_TYPES = new Set<JsonValue>(['response.completed', 'response.incomplete', 'response.failed']);

function reassembleResponses(events: JsonObject[]): JsonValue {
  const latest = [...events].reverse();
  const terminal = latest.find((e) => RESPONSE_TERMINAL_TYPES.has(get(e, 'type')) && isJsonObject(get(e, 'response')));
  const found = terminal ?? latest.find((e) => isJsonObject(get(e, 'response')));
  return found ? get(found, 'response') : null;
}

// §7.3 -----------------------------------------------------------------------------------------------------

interface ToolSlot extends JsonObject {
  id: JsonValue;
  type: 'function';
  function: { name: JsonValue; arguments: string };
}

function reassembleChat(events: JsonObject[]): JsonValue {
  const content: string[] = [];
  const reasoning: string[] = [];
  const slots = new Map<string, [PyKey, ToolSlot]>();
  let usage: JsonValue = null;
  let model: JsonValue = null;
  let role: JsonValue = 'assistant';
  let finish: JsonValue = null;
  let id: string | null = null;
  let sawChoice = false;
  for (const chunk of events) {
    if (truthy(get(chunk, 'model'))) model = get(chunk, 'model');
    const chunkId = get(chunk, 'id');
    if (typeof chunkId === 'string') id = chunkId;
    if (truthy(get(chunk, 'usage'))) usage = get(chunk, 'usage');
    for (const choice of iterate(get(chunk, 'choices'))) {
      if (!isJsonObject(choice)) continue;
      sawChoice = true;
      const delta = dictOrEmpty(get(choice, 'delta'));
      if (truthy(get(delta, 'role'))) role = get(delta, 'role');
      // Parts are joined with "".join, which raises on a non-str part (reasoning too).
      if (truthy(get(delta, 'content'))) content.push(asString(get(delta, 'content')));
      const r = truthy(get(delta, 'reasoning_content')) ? get(delta, 'reasoning_content') : get(delta, 'reasoning');
      if (truthy(r)) reasoning.push(asString(r));
      for (const tc of iterate(get(delta, 'tool_calls'))) mergeToolCall(slots, tc);
      if (truthy(get(choice, 'finish_reason'))) finish = get(choice, 'finish_reason');
    }
  }
  if (!sawChoice) return null;
  const message: JsonObject = { role, content: content.join('') || null };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  if (slots.size > 0) message.tool_calls = sortedByKey(slots.values()).map(([, slot]) => slot);
  const result: JsonObject = { object: 'chat.completion', model, choices: [{ index: 0, message, finish_reason: finish }] };
  if (id !== null) result.id = id;
  if (truthy(usage)) result.usage = usage;
  return result;
}

function mergeToolCall(slots: Map<string, [PyKey, ToolSlot]>, tc: JsonValue): void {
  if (!isJsonObject(tc)) throw new PyTypeError('tool call is not a dict');
  const key = pyKey(has(tc, 'index') ? tc.index : 0);
  const slot = getOrCreate<ToolSlot>(slots, key, () => ({ id: null, type: 'function', function: { name: '', arguments: '' } }));
  if (truthy(get(tc, 'id'))) slot.id = get(tc, 'id');
  const fn = dictOrEmpty(get(tc, 'function'));
  if (truthy(get(fn, 'name'))) slot.function.name = get(fn, 'name');
  if (truthy(get(fn, 'arguments'))) slot.function.arguments += asString(get(fn, 'arguments'));
}

function getOrCreate<T>(map: Map<string, [PyKey, T]>, key: PyKey, create: () => T): T {
  if (!map.has(key.id)) map.set(key.id, [key, create()]);
  return map.get(key.id)![1];
}

// §7.4 -----------------------------------------------------------------------------------------------------

interface MessagesState {
  message: JsonObject | null;
  blocks: Map<string, [PyKey, JsonObject]>;
  usage: JsonObject;
  partial: Map<string, string>;
}

function reassembleMessages(events: JsonObject[]): JsonValue {
  const state: MessagesState = { message: null, blocks: new Map(), usage: {}, partial: new Map() };
  for (const event of events) applyMessagesEvent(state, event);
  const { message, blocks, usage, partial } = state;
  if (message === null && blocks.size === 0) return null;
  const ordered = sortedByKey(blocks.values());
  for (const [key, block] of ordered) {
    const text = partial.get(key.id);
    if (get(block, 'type') === 'tool_use' && text !== undefined && !truthy(get(block, 'input'))) {
      setKey(block, 'input', parsePartialJson(text));
    }
  }
  const result: JsonObject = {};
  for (const key of message ? keysOf(message) : []) setKey(result, key, message![key]);
  setKey(result, 'type', 'message');
  setKey(result, 'content', ordered.map(([, block]) => block));
  if (truthy(usage)) setKey(result, 'usage', usage);
  return result;
}

function applyMessagesEvent(state: MessagesState, event: JsonObject): void {
  const type = get(event, 'type');
  if (type === 'message_start') {
    const msg = dictOrEmpty(get(event, 'message'));
    state.message = {};
    for (const key of ['id', 'type', 'role', 'model', 'stop_reason']) {
      if (get(msg, key) !== null) state.message[key] = get(msg, key);
    }
    update(state.usage, get(msg, 'usage'));
  } else if (type === 'content_block_start') {
    const key = pyKey(has(event, 'index') ? event.index : state.blocks.size);
    const source = dictOrEmpty(get(event, 'content_block'));
    state.blocks.set(key.id, [key, update({}, source)]);
  } else if (type === 'content_block_delta') {
    const key = pyKey(has(event, 'index') ? event.index : 0);
    const block = getOrCreate(state.blocks, key, () => ({}));
    const delta = dictOrEmpty(get(event, 'delta'));
    const deltaType = get(delta, 'type');
    if (deltaType === 'text_delta') appendToBlock(block, 'text', get(delta, 'text'));
    if (deltaType === 'thinking_delta') appendToBlock(block, 'thinking', get(delta, 'thinking'));
    if (deltaType === 'input_json_delta') {
      const piece = get(delta, 'partial_json');
      const text = (state.partial.get(key.id) ?? '') + (truthy(piece) ? asString(piece) : '');
      state.partial.set(key.id, text);
    }
  } else if (type === 'message_delta') {
    update(state.usage, get(event, 'usage'));
    const stopReason = state.message ? get(dictOrEmpty(get(event, 'delta')), 'stop_reason') : null;
    if (state.message && truthy(stopReason)) setKey(state.message, 'stop_reason', stopReason);
  }
}

/** `target.update(value or {})` */
function update(target: JsonObject, value: JsonValue): JsonObject {
  const source = dictOrEmpty(value);
  for (const key of keysOf(source)) setKey(target, key, source[key]);
  return target;
}

/** `block["type"] = block.get("type") or field; block[field] = (block.get(field) or "") + (piece or "")` */
function appendToBlock(block: JsonObject, field: 'text' | 'thinking', piece: JsonValue): void {
  if (!truthy(get(block, 'type'))) setKey(block, 'type', field);
  const current = get(block, field);
  setKey(block, field, pyAdd(truthy(current) ? current : '', truthy(piece) ? piece : ''));
}

function parsePartialJson(text: string): JsonValue {
  if (text === '') return {};
  try {
    return parsePython(text);
  } catch {
    return { _raw: text };
  }
}
