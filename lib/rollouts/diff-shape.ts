// Each call of a rollout diff reduced to ids, without parsing the history its request resends: the request's
// conversation list (Responses `input`, Chat and Anthropic `messages`) is split into its items' byte spans by a
// structural walk (strings and containers skipped, natively where the addon is built), and every item, the rest of
// the request and the response are interned by their bytes in one table shared by both rollouts. An item resent from
// the previous request of the same server is recognised by a byte comparison and keeps its id, so a rollout whose
// requests grow to 24 MB in all is read in a pass over its bytes, and two requests compare as two lists of ints.
// Only what must be looked at is parsed, once per distinct value: the few items a request ends with (for the
// signature), responses, and values whose bytes differ, to tell whether they differ in more than ids (diff-json.ts).
import { toolCallsAndReasoning } from '../capture/record';
import { JsonFloat, isJsonObject, parseStrict, skippedContainerEnd } from '../capture/json';
import { ignoreVolatile, jsonEqual } from './diff-json';

/** One call's stored payloads: the bytes of its request and response values, null where it has none. */
export interface CallPayload {
  request: Buffer | null;
  response: Buffer | null;
  dialect: string | null;
}

export interface CallShape {
  /** Ids of the conversation items, or null when the request has no list to split (then `rest` is all of it). */
  items: number[] | null;
  /** Id of the request without its conversation list; -1 without a request. */
  rest: number;
  /** Id of the response; -1 without one. */
  response: number;
  /** The roles the request ends with (after the model's last item) and the tool calls the response asks for. */
  signature: string;
}

const NONE = -1;
/** Distinct request rests remembered per server, to recognise one by its bytes before interning it. */
const REST_VARIANTS = 4;
/** Items parsed from the end of a request for its signature, at most. */
const TAIL_ITEMS = 16;

export class ShapeTable {
  private readonly ids = new Map<string, number>();
  private readonly bytes: Buffer[] = [];
  private readonly values = new Map<number, unknown>();
  private readonly exactValues = new Map<number, unknown>();
  private readonly equivalentCache = new Map<number, boolean>();

  intern(buf: Buffer): number {
    const key = buf.toString('latin1');
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.bytes.push(buf) - 1;
      this.ids.set(key, id);
    }
    return id;
  }

  /** The value of an id (JSON.parse: numbers as JavaScript reads them), once; undefined when its bytes are not JSON. */
  value(id: number): unknown {
    return this.parsed(this.values, id, (b) => JSON.parse(b.toString('utf8')));
  }

  /** The value of an id as the format library reads it (1.0 is not 1), once. */
  private exact(id: number): unknown {
    return this.parsed(this.exactValues, id, parseStrict);
  }

  private parsed(memo: Map<number, unknown>, id: number, parse: (b: Buffer) => unknown): unknown {
    if (id === NONE) return null;
    if (memo.has(id)) return memo.get(id);
    let v: unknown;
    try {
      v = parse(this.bytes[id]);
    } catch {
      v = undefined;
    }
    memo.set(id, v);
    return v;
  }

  /**
   * Whether two ids hold values that differ in nothing but ids, timestamps and usage (ignoreVolatile): compared as
   * JSON.parse reads them (fast), and when they agree, again as the format library does.
   */
  equivalent(x: number, y: number): boolean {
    if (x === y) return true;
    if (x === NONE || y === NONE) return false;
    const key = x < y ? x * 0x4000000 + y : y * 0x4000000 + x;
    let eq = this.equivalentCache.get(key);
    if (eq === undefined) {
      const same = (vx: unknown, vy: unknown) => vx !== undefined && vy !== undefined && jsonEqual(vx, vy, ignoreVolatile);
      eq = same(this.value(x), this.value(y)) && same(this.exact(x), this.exact(y));
      this.equivalentCache.set(key, eq);
    }
    return eq;
  }

  /** Every call of one rollout, in call order, with the model server of each (for resent-history reuse). */
  shapeRollout(payloads: readonly CallPayload[], servers: readonly (string | null)[]): CallShape[] {
    const previous = new Map<string, { split: Split; items: number[]; rest: number }>();
    // The last few distinct rests of each server (an agent alternates a handful: streaming or not, tool choice).
    const rests = new Map<string, { split: Split; id: number }[]>();
    return payloads.map((p, i) => {
      const response = p.response ? this.intern(p.response) : NONE;
      const req = p.request;
      if (!req) return { items: null, rest: NONE, response, signature: this.signature(null, response) };
      const server = servers[i] ?? '';
      const prev = previous.get(server);
      const grown = prev ? extendSplit(prev.split, req) : null;
      const split = grown?.split ?? splitRequest(req, p.dialect);
      if (!split) return { items: null, rest: this.intern(req), response, signature: this.signature(null, response) };
      const items = split.items.map(([s, e], k) => {
        if (prev && grown && k < grown.resent) return prev.items[k];
        // History rewritten (a compaction, a retry): an item at the same place with the same bytes keeps its id.
        const was = prev?.split.items[k];
        if (prev && was && was[1] - was[0] === e - s && req.compare(prev.split.buf, was[0], was[1], s, e) === 0) return prev.items[k];
        return this.intern(req.subarray(s, e));
      });
      let rest = prev && grown?.sameRest ? prev.rest : NONE;
      const seen = rests.get(server) ?? [];
      if (rest === NONE) rest = seen.find((r) => sameRest(r.split, split))?.id ?? NONE;
      if (rest === NONE) {
        rest = this.intern(Buffer.concat([req.subarray(0, split.list[0]), Buffer.from('[]'), req.subarray(split.list[1])]));
        rests.set(server, [{ split, id: rest }, ...seen.slice(0, REST_VARIANTS - 1)]);
      }
      previous.set(server, { split, items, rest });
      return { items, rest, response, signature: this.signature(items, response) };
    });
  }

  private signature(items: number[] | null, response: number): string {
    const roles: string[] = [];
    if (items) {
      for (let k = items.length - 1; k >= 0 && roles.length < TAIL_ITEMS; k--) {
        const role = itemRole(this.value(items[k]));
        if (role === 'assistant') break;
        roles.push(role);
      }
      roles.reverse();
    }
    return `${roles.join(',')}>${toolNames(this.value(response)).join(',')}`;
  }
}

/** The tool calls a response asks for, by name (spec §3.3, as the record derives them). */
function toolNames(response: unknown): string[] {
  if (!isJsonObject(response)) return [];
  try {
    return toolCallsAndReasoning(response).tool_calls.map((c) => (typeof c.name === 'string' ? c.name : '?'));
  } catch {
    return [];
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonFloat);

/** Who an item of any dialect comes from: the model's own items are 'assistant', tool results 'tool'. */
export function itemRole(v: unknown): string {
  if (typeof v === 'string') return 'user';
  if (!isObj(v)) return 'other';
  const type = typeof v.type === 'string' ? v.type : '';
  if (type.endsWith('_call_output')) return 'tool';
  if (type === 'reasoning' || type.endsWith('_call')) return 'assistant';
  const role = typeof v.role === 'string' ? v.role : type || 'other';
  if (role === 'function') return 'tool';
  if (role === 'user' && Array.isArray(v.content) && v.content.some((b) => isObj(b) && b.type === 'tool_result')) return 'tool';
  return role;
}

interface Split {
  buf: Buffer;
  /** Span of the conversation value in the request. */
  list: [number, number];
  /** Spans of its items (a string `input` is one item). */
  items: [number, number][];
}

/** Whether two requests are the same bytes around their conversation lists. */
function sameRest(x: Split, y: Split): boolean {
  return (
    x.list[0] === y.list[0] &&
    x.buf.length - x.list[1] === y.buf.length - y.list[1] &&
    y.buf.compare(x.buf, 0, x.list[0], 0, y.list[0]) === 0 &&
    y.buf.compare(x.buf, x.list[1], x.buf.length, y.list[1], y.buf.length) === 0
  );
}

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;
const ws = (b: Buffer, i: number) => {
  while (i < b.length && WS[b[i]]) i++;
  return i;
};

/** The index after the string opening at i, or -1. */
function stringEnd(b: Buffer, i: number): number {
  for (let j = i + 1; ; ) {
    const q = b.indexOf(0x22, j);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

function valueEnd(b: Buffer, i: number, depth: number): number {
  const c = b[i];
  if (c === 0x7b || c === 0x5b) return skippedContainerEnd(b, i, depth);
  if (c === 0x22) return stringEnd(b, i);
  let j = i;
  while (j < b.length && !WS[b[j]] && b[j] !== 0x2c && b[j] !== 0x7d && b[j] !== 0x5d) j++;
  return j > i ? j : -1;
}

/**
 * Walks the members of the request object from `i` (after a member's value, or at the first member's key when
 * `first`) to the object's end, which must end the bytes; false when malformed or when onMember says stop.
 */
function membersEnd(b: Buffer, i: number, onMember: (key: string, start: number, end: number) => boolean, first = false): boolean {
  for (;;) {
    i = ws(b, i);
    if (!first) {
      if (b[i] === 0x7d) return ws(b, i + 1) === b.length;
      if (b[i] !== 0x2c) return false;
      i = ws(b, i + 1);
    }
    first = false;
    if (b[i] !== 0x22) return false;
    const keyEnd = stringEnd(b, i);
    if (keyEnd < 0) return false;
    const key = b.toString('latin1', i + 1, keyEnd - 1);
    i = ws(b, keyEnd);
    if (b[i] !== 0x3a) return false;
    const start = ws(b, i + 1);
    const end = valueEnd(b, start, 1);
    if (end < 0 || !onMember(key, start, end)) return false;
    i = end;
  }
}

/** The items of the array whose items start at `i` (after '[' or a ','), appended to `items`; the end of the array, or -1. */
function itemsFrom(b: Buffer, i: number, items: [number, number][]): number {
  i = ws(b, i);
  if (b[i] === 0x5d) return i + 1;
  for (;;) {
    const end = valueEnd(b, i, 2);
    if (end < 0) return -1;
    items.push([i, end]);
    i = ws(b, end);
    if (b[i] === 0x5d) return i + 1;
    if (b[i] !== 0x2c) return -1;
    i = ws(b, i + 1);
  }
}

/**
 * The conversation list of a request and its items' spans, read structurally; null when the request is not an
 * object or has no such list. The key is chosen as lib/view/delta.ts's conversationKey chooses it.
 */
export function splitRequest(b: Buffer, dialect: string | null): Split | null {
  let i = ws(b, 0);
  if (b[i] !== 0x7b) return null;
  const spans: Record<'input' | 'messages', [number, number] | undefined> = { input: undefined, messages: undefined };
  i = ws(b, i + 1);
  if (b[i] === 0x7d) return null;
  const record = (key: string, start: number, end: number) => {
    if (key === 'input' || key === 'messages') spans[key] = [start, end];
    return true;
  };
  if (!membersEnd(b, i, record, true)) return null;
  const isArray = (s: [number, number] | undefined) => s !== undefined && b[s[0]] === 0x5b;
  const list = dialect === 'responses' || (dialect === null && spans.input) ? spans.input : isArray(spans.messages) ? spans.messages : spans.input;
  if (!list) return null;
  if (b[list[0]] === 0x22) return { buf: b, list, items: [list] };
  if (b[list[0]] !== 0x5b) return null;
  const items: [number, number][] = [];
  return itemsFrom(b, list[0] + 1, items) === list[1] ? { buf: b, list, items } : null;
}

/**
 * The split of a request that resends `prev`'s conversation and adds to it, found by comparing bytes: the members
 * before the list and every item `prev` had are the same bytes at the same places, so only the new items are walked,
 * and the members after the list only when they changed. Null when the request is not such a growth of `prev`.
 */
export function extendSplit(prev: Split, b: Buffer): { split: Split; resent: number; sameRest: boolean } | null {
  const start = prev.list[0];
  if (prev.buf[start] !== 0x5b || b.length <= start || b.compare(prev.buf, 0, start, 0, start) !== 0) return null;
  const last = prev.items.length ? prev.items[prev.items.length - 1][1] : start + 1;
  if (b.length < last || b.compare(prev.buf, start, last, start, last) !== 0) return null;
  const items = prev.items.slice();
  let i = ws(b, last);
  if (items.length) {
    if (b[i] === 0x2c) i += 1;
    else if (b[i] !== 0x5d) return null;
  }
  const listEnd = itemsFrom(b, i, items);
  if (listEnd < 0) return null;
  const after = prev.buf.length - prev.list[1];
  const sameRest = b.length - listEnd === after && b.compare(prev.buf, prev.list[1], prev.buf.length, listEnd, b.length) === 0;
  // A changed rest is walked; another conversation key there would change which list is the conversation.
  if (!sameRest && !membersEnd(b, listEnd, (key) => key !== 'input' && key !== 'messages')) return null;
  return { split: { buf: b, list: [start, listEnd], items }, resent: prev.items.length, sameRest };
}
