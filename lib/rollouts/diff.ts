// The diff of two rollouts: their calls aligned (diff-align.ts), per pair whether the requests and the responses
// differ and by how much in tokens and latency, and the first divergence; on demand, one pair's structural diff of
// requests and responses (diff-json.ts). The list compares calls by their interned shapes (diff-shape.ts), so it
// costs one pass over the payload bytes however much history the requests resend; a pair's full diff parses just
// that pair's payloads.
//
// "Differ" leaves out what differs between any two runs of one conversation (ids, timestamps, usage:
// ignoreVolatile): two rollouts that said the same things diverge where one first says something else. A call that
// only one side has is a divergence too. A request or response that either side has no payload for (calls from a
// line's attachment, whose payloads NeMo Gym strips; a failed exchange) cannot be compared: equal is null, and such
// a pair is 'unknown', not a divergence, unless what can be compared differs.
import { parseStrict } from '../capture/json-parse';
import { alignCalls } from './diff-align';
import { diffJson, ignoreVolatile, type JsonDiff } from './diff-json';
import { NONE, ShapeTable, type CallPayload, type CallShape } from './diff-shape';
import type { ContainerEnd } from './diff-split';
import type { ToolPair } from './diff-tools';

/** One call as the diff needs it (the index's call columns). */
export interface DiffCall {
  call_index: number;
  /** The call's address in the API and pages: model_call_id, or i<call_index>. */
  ref: string;
  model_server: string | null;
  tokens_total: number | null;
  latency_ms: number | null;
}

export interface DiffSide {
  calls: readonly DiffCall[];
  payloads: readonly CallPayload[];
}

export interface RequestSummary {
  op: 'summary';
  /** Equal but for ids, timestamps and usage; null when either side has no payload. */
  equal: boolean | null;
  /** Conversation items both requests start with (the same but for ids, timestamps and usage); null when either has no list. */
  shared_prefix: number | null;
  a_items: number | null;
  b_items: number | null;
}
export interface ResponseSummary {
  op: 'summary';
  equal: boolean | null;
}

export type PairState = 'same' | 'different' | 'unknown' | 'a_only' | 'b_only';

export interface PairSummary {
  index: number;
  a_call: number | null;
  b_call: number | null;
  a_ref: string | null;
  b_ref: string | null;
  model_server: string | null;
  a_signature: string | null;
  b_signature: string | null;
  a_tokens: number | null;
  b_tokens: number | null;
  a_latency_ms: number | null;
  b_latency_ms: number | null;
  state: PairState;
  request_diff: RequestSummary | JsonDiff | null;
  response_diff: ResponseSummary | JsonDiff | null;
  /** b − a in total tokens (a call one side lacks counts 0 there); null when a present call's tokens are unknown. */
  tokens_delta: number | null;
  /** b − a in latency (ms), alike. */
  latency_delta: number | null;
  /** The tool calls each side's call asked for, aligned (diff-tools.ts); absent when neither rollout has a trajectory. */
  tools?: ToolPair[];
}

export interface Divergence {
  pair: number;
  /** What differs first: the requests, the responses, or a call only one side has. */
  in: 'request' | 'response' | 'unmatched';
}

export interface RolloutDiff {
  pairs: PairSummary[];
  first_divergence: Divergence | null;
}

function delta(a: DiffCall | null, b: DiffCall | null, field: 'tokens_total' | 'latency_ms'): number | null {
  const va = a ? a[field] : 0;
  const vb = b ? b[field] : 0;
  return va === null || vb === null ? null : vb - va;
}

function requestSummary(t: ShapeTable, x: CallShape, y: CallShape): RequestSummary {
  if (x.rest === NONE || y.rest === NONE) return { op: 'summary', equal: null, shared_prefix: null, a_items: null, b_items: null };
  if (!x.items || !y.items) {
    const equal = !x.items && !y.items && t.equivalent(x.rest, y.rest);
    return { op: 'summary', equal, shared_prefix: null, a_items: x.items?.length ?? null, b_items: y.items?.length ?? null };
  }
  const n = Math.min(x.items.length, y.items.length);
  let shared = 0;
  while (shared < n && t.equivalent(x.items[shared], y.items[shared])) shared++;
  const equal = shared === x.items.length && shared === y.items.length && t.equivalent(x.rest, y.rest);
  return { op: 'summary', equal, shared_prefix: shared, a_items: x.items.length, b_items: y.items.length };
}

function responseEqual(t: ShapeTable, x: CallShape, y: CallShape): boolean | null {
  return x.response === NONE || y.response === NONE ? null : t.equivalent(x.response, y.response);
}

function pairState(request: boolean | null, response: boolean | null): PairState {
  if (request === false || response === false) return 'different';
  return request === null || response === null ? 'unknown' : 'same';
}

/** `containerEnd`: the structural skip of the request walk (diff-split.ts; the index passes its native one). */
export function diffRollouts(a: DiffSide, b: DiffSide, containerEnd?: ContainerEnd): RolloutDiff {
  const table = new ShapeTable(containerEnd);
  const sa = table.shapeRollout(a.payloads, a.calls.map((c) => c.model_server));
  const sb = table.shapeRollout(b.payloads, b.calls.map((c) => c.model_server));
  const aligned = alignCalls(
    a.calls.map((c, i) => ({ server: c.model_server, signature: sa[i].signature })),
    b.calls.map((c, i) => ({ server: c.model_server, signature: sb[i].signature })),
  );
  let first: Divergence | null = null;
  const pairs = aligned.map((p, index): PairSummary => {
    const ca = p.a === null ? null : a.calls[p.a];
    const cb = p.b === null ? null : b.calls[p.b];
    const request = p.a !== null && p.b !== null ? requestSummary(table, sa[p.a], sb[p.b]) : null;
    const response: ResponseSummary | null = p.a !== null && p.b !== null ? { op: 'summary', equal: responseEqual(table, sa[p.a], sb[p.b]) } : null;
    const state: PairState = !ca ? 'b_only' : !cb ? 'a_only' : pairState(request!.equal, response!.equal);
    if (!first && state !== 'same' && state !== 'unknown') first = { pair: index, in: !request ? 'unmatched' : request.equal === false ? 'request' : 'response' };
    return {
      index,
      a_call: ca?.call_index ?? null,
      b_call: cb?.call_index ?? null,
      a_ref: ca?.ref ?? null,
      b_ref: cb?.ref ?? null,
      model_server: (ca ?? cb)!.model_server,
      a_signature: p.a === null ? null : sa[p.a].signature,
      b_signature: p.b === null ? null : sb[p.b].signature,
      a_tokens: ca?.tokens_total ?? null,
      b_tokens: cb?.tokens_total ?? null,
      a_latency_ms: ca?.latency_ms ?? null,
      b_latency_ms: cb?.latency_ms ?? null,
      state,
      request_diff: request,
      response_diff: response,
      tokens_delta: delta(ca, cb, 'tokens_total'),
      latency_delta: delta(ca, cb, 'latency_ms'),
    };
  });
  return { pairs, first_divergence: first };
}

const parsed = (buf: Buffer | null): unknown => {
  if (!buf) return null;
  try {
    return parseStrict(buf);
  } catch {
    return buf.toString('utf8'); // not JSON: compared as its text
  }
};

/**
 * One pair's structural diffs; a side that has no call gives an added or removed diff. Conversation items that
 * differ only in ids and timestamps fold into the shared history (diff-json.ts, b_values).
 */
export function diffPair(a: CallPayload | null, b: CallPayload | null): { request_diff: JsonDiff; response_diff: JsonDiff } {
  const side = (x: CallPayload | null, y: CallPayload | null, key: 'request' | 'response'): JsonDiff => {
    if (!x) return { op: 'added', b: parsed(y![key]) };
    if (!y) return { op: 'removed', a: parsed(x[key]) };
    return diffJson(parsed(x[key]), parsed(y[key]), ignoreVolatile);
  };
  return { request_diff: side(a, b, 'request'), response_diff: side(a, b, 'response') };
}
