// What a call's request adds to the previous call's request. Agents resend the whole conversation every
// turn, so the interesting part of request N is what follows the longest common prefix of its message list
// (`messages` for Chat and Anthropic, `input` for Responses) with request N-1's. Everything else in the
// request (system prompt, tools, sampling parameters) is compared as JSON and listed change by change. When
// neither request has a message list, the whole request is diffed that way.
import { childPointer } from './json-pointer';
import { isObj, type Obj } from './json-object';

export interface JsonChange {
  pointer: string;
  change: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

export interface RequestDelta {
  kind: 'messages' | 'json';
  /** Pointer of the message list in the record (`/request/messages`, `/request/input`), or null for 'json'. */
  listPointer: string | null;
  previousLength: number;
  currentLength: number;
  /** Items both requests start with, in the same order. */
  commonPrefix: number;
  /** The current request's items after the common prefix: what this call sent that the previous did not. */
  added: { index: number; pointer: string; value: unknown }[];
  /** Items of the previous request after the prefix that this request no longer has (history rewritten). */
  removed: number;
  /** Changes outside the message list (or in the whole request, for 'json'). */
  changes: JsonChange[];
  /** True when `changes` stopped at its limit. */
  truncated: boolean;
}


export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a as Obj);
  const kb = Object.keys(b as Obj);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual((a as Obj)[k], (b as Obj)[k])) return false;
  return true;
}

/** Leaf-level differences between two JSON values (objects by key, arrays by position), at most `limit`. */
export function jsonDiff(before: unknown, after: unknown, pointer = '', limit = 200): { changes: JsonChange[]; truncated: boolean } {
  const changes: JsonChange[] = [];
  let truncated = false;
  const walk = (a: unknown, b: unknown, p: string): void => {
    if (truncated || deepEqual(a, b)) return;
    if (changes.length >= limit) {
      truncated = true;
      return;
    }
    const bothArrays = Array.isArray(a) && Array.isArray(b);
    if (bothArrays || (isObj(a) && isObj(b))) {
      const keys = bothArrays
        ? Array.from({ length: Math.max((a as unknown[]).length, (b as unknown[]).length) }, (_, i) => String(i))
        : [...new Set([...Object.keys(a as Obj), ...Object.keys(b as Obj)])];
      for (const k of keys) {
        const inA = bothArrays ? Number(k) < (a as unknown[]).length : Object.prototype.hasOwnProperty.call(a, k);
        const inB = bothArrays ? Number(k) < (b as unknown[]).length : Object.prototype.hasOwnProperty.call(b, k);
        const va = (a as Obj)[k];
        const vb = (b as Obj)[k];
        const cp = childPointer(p, k);
        if (!inA) changes.push({ pointer: cp, change: 'added', after: vb });
        else if (!inB) changes.push({ pointer: cp, change: 'removed', before: va });
        else walk(va, vb, cp);
        if (changes.length > limit) {
          changes.length = limit;
          truncated = true;
        }
        if (truncated) return;
      }
      return;
    }
    changes.push({ pointer: p, change: 'changed', before: a, after: b });
  };
  walk(before, after, pointer);
  return { changes, truncated };
}

/** The request key that holds the conversation, by dialect (Responses `input`, the others `messages`). */
export function conversationKey(dialect: string | null, request: unknown): 'messages' | 'input' | null {
  if (!isObj(request)) return null;
  if (dialect === 'responses' || (dialect === null && 'input' in request)) return 'input' in request ? 'input' : null;
  return Array.isArray(request.messages) ? 'messages' : 'input' in request ? 'input' : null;
}

const asList = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : null);

export function requestDelta(dialect: string | null, previous: unknown, current: unknown, limit = 200): RequestDelta {
  const key = conversationKey(dialect, current) ?? conversationKey(dialect, previous);
  const prevList = key && isObj(previous) ? asList(previous[key]) : null;
  const curList = key && isObj(current) ? asList(current[key]) : null;
  if (!key || curList === null) {
    const { changes, truncated } = jsonDiff(previous, current, '/request', limit);
    return { kind: 'json', listPointer: null, previousLength: 0, currentLength: 0, commonPrefix: 0, added: [], removed: 0, changes, truncated };
  }
  const prev = prevList ?? [];
  let common = 0;
  while (common < prev.length && common < curList.length && deepEqual(prev[common], curList[common])) common++;
  const listPointer = `/request/${key}`;
  const stringInput = typeof (current as Obj)[key] === 'string';
  const added = curList.slice(common).map((value, i) => ({ index: common + i, pointer: stringInput ? listPointer : childPointer(listPointer, common + i), value }));
  const rest = (v: unknown) => {
    if (!isObj(v)) return v;
    const copy: Obj = { ...v };
    delete copy[key];
    return copy;
  };
  const { changes, truncated } = jsonDiff(rest(previous), rest(current), '/request', limit);
  return { kind: 'messages', listPointer, previousLength: prev.length, currentLength: curList.length, commonPrefix: common, added, removed: prev.length - common, changes, truncated };
}
