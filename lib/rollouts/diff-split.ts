// The byte walk of a request that the rollout diff reads calls with (diff-shape.ts): where its conversation list is
// and where each item of it starts and ends, found without parsing: strings are skipped by finding their closing
// quote, containers by the structural skip the ingest uses (its caller passes the native one where the addon is built:
// lib/index/compare/rollout-diff.ts). A request that resends its predecessor's conversation and appends to it is
// split by comparing bytes, walking only what is new.
import { skippedContainerEndJs } from '../capture/json-skip';

/** The end of the container opening at `i`, `depth` deep, walked by structure (skippedContainerEndJs's contract), or -1. */
export type ContainerEnd = (b: Buffer, i: number, depth: number) => number;

export interface Split {
  buf: Buffer;
  /** Span of the conversation value in the request. */
  list: [number, number];
  /** Spans of its items (a string `input` is one item). */
  items: [number, number][];
}

/** Whether two requests are the same bytes around their conversation lists. */
export function sameRest(x: Split, y: Split): boolean {
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

function valueEnd(b: Buffer, i: number, depth: number, containerEnd: ContainerEnd): number {
  const c = b[i];
  if (c === 0x7b || c === 0x5b) return containerEnd(b, i, depth);
  if (c === 0x22) return stringEnd(b, i);
  let j = i;
  while (j < b.length && !WS[b[j]] && b[j] !== 0x2c && b[j] !== 0x7d && b[j] !== 0x5d) j++;
  return j > i ? j : -1;
}

/**
 * Walks the members of the request object from `i` (after a member's value, or at the first member's key when
 * `first`) to the object's end, which must end the bytes; false when malformed or when onMember says stop.
 */
function membersEnd(b: Buffer, i: number, onMember: (key: string, start: number, end: number) => boolean, containerEnd: ContainerEnd, first = false): boolean {
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
    const end = valueEnd(b, start, 1, containerEnd);
    if (end < 0 || !onMember(key, start, end)) return false;
    i = end;
  }
}

/** The items of the array whose items start at `i` (after '[' or a ','), appended to `items`; the end of the array, or -1. */
function itemsFrom(b: Buffer, i: number, items: [number, number][], containerEnd: ContainerEnd): number {
  i = ws(b, i);
  if (b[i] === 0x5d) return i + 1;
  for (;;) {
    const end = valueEnd(b, i, 2, containerEnd);
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
export function splitRequest(b: Buffer, dialect: string | null, containerEnd: ContainerEnd = skippedContainerEndJs): Split | null {
  let i = ws(b, 0);
  if (b[i] !== 0x7b) return null;
  const spans: Record<'input' | 'messages', [number, number] | undefined> = { input: undefined, messages: undefined };
  i = ws(b, i + 1);
  if (b[i] === 0x7d) return null;
  const record = (key: string, start: number, end: number) => {
    if (key === 'input' || key === 'messages') spans[key] = [start, end];
    return true;
  };
  if (!membersEnd(b, i, record, containerEnd, true)) return null;
  const isArray = (s: [number, number] | undefined) => s !== undefined && b[s[0]] === 0x5b;
  const list = dialect === 'responses' || (dialect === null && spans.input) ? spans.input : isArray(spans.messages) ? spans.messages : spans.input;
  if (!list) return null;
  if (b[list[0]] === 0x22) return { buf: b, list, items: [list] };
  if (b[list[0]] !== 0x5b) return null;
  const items: [number, number][] = [];
  return itemsFrom(b, list[0] + 1, items, containerEnd) === list[1] ? { buf: b, list, items } : null;
}

/**
 * The split of a request that resends `prev`'s conversation and adds to it, found by comparing bytes: the members
 * before the list and every item `prev` had are the same bytes at the same places, so only the new items are walked,
 * and the members after the list only when they changed. Null when the request is not such a growth of `prev`.
 */
export function extendSplit(prev: Split, b: Buffer, containerEnd: ContainerEnd = skippedContainerEndJs): { split: Split; resent: number; sameRest: boolean } | null {
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
  const listEnd = itemsFrom(b, i, items, containerEnd);
  if (listEnd < 0) return null;
  const after = prev.buf.length - prev.list[1];
  const sameRest = b.length - listEnd === after && b.compare(prev.buf, prev.list[1], prev.buf.length, listEnd, b.length) === 0;
  // A changed rest is walked; another conversation key there would change which list is the conversation.
  if (!sameRest && !membersEnd(b, listEnd, (key) => key !== 'input' && key !== 'messages', containerEnd)) return null;
  return { split: { buf: b, list: [start, listEnd], items }, resent: prev.items.length, sameRest };
}
