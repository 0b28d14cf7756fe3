// Each call of a rollout diff reduced to ids, without parsing the history its request resends: the request's
// conversation list (Responses `input`, Chat and Anthropic `messages`) is split into its items' byte spans by a
// structural walk (diff-split.ts), and every item, the rest of the request and the response are interned by their
// bytes in one table shared by both rollouts. An item resent from the previous request of the same server keeps its
// id without being looked at again, so a rollout whose requests add up to 24 MB is read in about one pass over the
// bytes it added, and two requests compare as two lists of ints.
// Only what must be looked at is parsed, once per distinct value: the few items a request ends with (for the
// signature), responses, and values whose bytes differ, to tell whether they differ in more than ids (diff-json.ts).
import { toolCallsAndReasoning } from '../capture/record';
import { JsonFloat, isJsonObject } from '../capture/json-value';
import { parseStrict } from '../capture/json-parse';
import { ignoreVolatile, jsonEqual } from './diff-json';
import { extendSplit, sameRest, splitRequest, type ContainerEnd, type Split } from './diff-split';
import { skippedContainerEndJs } from '../capture/json-skip';

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

/** The id of a payload a call does not have. */
export const NONE = -1;
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

  /** `containerEnd`: the structural skip of the request walk (diff-split.ts). */
  constructor(private readonly containerEnd: ContainerEnd = skippedContainerEndJs) {}

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
      const grown = prev ? extendSplit(prev.split, req, this.containerEnd) : null;
      const split = grown?.split ?? splitRequest(req, p.dialect, this.containerEnd);
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
