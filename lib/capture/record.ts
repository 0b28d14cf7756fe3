// Record derivation (spec §3): one raw exchange -> one normalized ModelCallRecord, field for field as NeMo
// Gym's pydantic model produces it. Pydantic's lax coercions and the places where upstream code "assumes
// types" (and so raises) are reproduced, because a raising derivation makes the line unreadable (§3.5, §3.6).
import { JsonFloat, isJsonObject, keysOf, pyFloat, truthy, type JsonObject, type JsonValue } from './json-value';
import { parsePython } from './json-parse';

export const RECORD_FIELDS = [
  'model_call_id',
  'response_id',
  'call_index',
  'model_ref',
  'model',
  'dialect',
  'status_code',
  'response_status',
  'finish_reason',
  'started_at',
  'completed_at',
  'tokens_in',
  'tokens_out',
  'tokens_reasoning',
  'tokens_total',
  'request',
  'response',
  'request_raw',
  'response_raw',
  'tool_calls',
  'reasoning_content',
  'cache_hit',
  'cached_tokens',
  'cache_creation_tokens',
  'error_category',
  'latency_total_ms',
  'latency_ttft_ms',
] as const;

export const PAYLOAD_FIELDS = ['request', 'response', 'request_raw', 'response_raw'] as const;

export type ModelCallRecord = JsonObject;

export class DerivationError extends Error {
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'DerivationError';
  }
}

// --- pydantic lax coercion ------------------------------------------------------------------------------

function laxStr(field: string, v: JsonValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  throw new DerivationError(field, 'Input should be a valid string');
}

function laxInt(field: string, v: JsonValue | undefined): number | bigint | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' || v instanceof JsonFloat) {
    const n = Number(v);
    if (Number.isInteger(n)) return n === 0 ? 0 : n;
    throw new DerivationError(field, 'Input should be a valid integer, got a number with a fractional part');
  }
  if (typeof v === 'string') {
    const m = /^\s*([+-]?\d+)(?:\.0*)?\s*$/.exec(v);
    if (m) {
      const big = BigInt(m[1]);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) || 0 : big;
    }
  }
  throw new DerivationError(field, 'Input should be a valid integer');
}

function laxFloat(field: string, v: JsonValue | undefined): number | JsonFloat | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return new JsonFloat(v ? 1 : 0);
  if (typeof v === 'number') return pyFloat(v);
  if (v instanceof JsonFloat) return v;
  if (typeof v === 'bigint') return pyFloat(Number(v));
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    const special: Record<string, number> = { inf: Infinity, '+inf': Infinity, '-inf': -Infinity, infinity: Infinity, '-infinity': -Infinity, nan: NaN };
    if (t in special) return new JsonFloat(special[t]);
    if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return pyFloat(Number(t));
  }
  throw new DerivationError(field, 'Input should be a valid number');
}

function modelRefOf(v: JsonValue | undefined): JsonObject | null {
  if (v === undefined || v === null) return null;
  if (!isJsonObject(v)) throw new DerivationError('model_ref', 'Input should be a valid dictionary');
  if (v.type !== 'responses_api_models') throw new DerivationError('model_ref.type', "Input should be 'responses_api_models'");
  if (typeof v.name !== 'string') throw new DerivationError('model_ref.name', 'Input should be a valid string');
  return { type: v.type, name: v.name };
}

// --- tokens and cache (§3.1, §3.2) ----------------------------------------------------------------------

/** A valid token count: a JSON integer >= 0 (not a float, not a boolean). */
export function validTokens(v: JsonValue | undefined): number | bigint | null {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v : null;
  if (typeof v === 'bigint') return v >= 0n ? v : null;
  return null;
}

type Count = number | bigint;
const add = (a: Count, b: Count): Count => {
  const s = BigInt(a) + BigInt(b);
  return s <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(s) : s;
};

export interface TokenStats {
  tokens_in: Count | null;
  tokens_out: Count | null;
  tokens_reasoning: Count | null;
  tokens_total: Count | null;
  cache_creation_tokens: Count | null;
}

export function extractTokenStats(usage: JsonValue | undefined): TokenStats {
  if (!isJsonObject(usage)) {
    return { tokens_in: null, tokens_out: null, tokens_reasoning: null, tokens_total: null, cache_creation_tokens: null };
  }
  let tokensIn = validTokens(usage.input_tokens) ?? validTokens(usage.prompt_tokens);
  const tokensOut = validTokens(usage.output_tokens) ?? validTokens(usage.completion_tokens);
  const cr = validTokens(usage.cache_read_input_tokens);
  const cc = validTokens(usage.cache_creation_input_tokens);
  if (cr !== null || cc !== null) {
    const total = add(cr ?? 0, cc ?? 0);
    if (tokensIn !== null || total > 0) tokensIn = add(tokensIn ?? 0, total);
  }
  let tokensTotal = validTokens(usage.total_tokens);
  if (tokensTotal === null && tokensIn !== null && tokensOut !== null) tokensTotal = add(tokensIn, tokensOut);
  let reasoning: Count | null = null;
  if (isJsonObject(usage.output_tokens_details)) reasoning = validTokens(usage.output_tokens_details.reasoning_tokens);
  if (reasoning === null && isJsonObject(usage.completion_tokens_details)) {
    reasoning = validTokens(usage.completion_tokens_details.reasoning_tokens);
  }
  if (reasoning === null) reasoning = validTokens(usage.reasoning_output_tokens);
  return { tokens_in: tokensIn, tokens_out: tokensOut, tokens_reasoning: reasoning, tokens_total: tokensTotal, cache_creation_tokens: cc };
}

export function cacheSignal(usage: JsonValue | undefined): { cache_hit: boolean | null; cached_tokens: Count | null } {
  if (!isJsonObject(usage)) return { cache_hit: null, cached_tokens: null };
  const candidates: [JsonValue | undefined, string][] = [
    [usage.prompt_tokens_details, 'cached_tokens'],
    [usage.prompt_tokens_details, 'cached_input_tokens'],
    [usage.input_tokens_details, 'cached_tokens'],
    [usage.input_tokens_details, 'cached_input_tokens'],
  ];
  for (const [group, key] of candidates) {
    if (!isJsonObject(group)) continue;
    const v = validTokens(group[key]);
    if (v !== null) return { cache_hit: v > 0, cached_tokens: v };
  }
  for (const key of ['cache_read_input_tokens', 'cached_input_tokens']) {
    const v = validTokens(usage[key]);
    if (v !== null) return { cache_hit: v > 0, cached_tokens: v };
  }
  return { cache_hit: null, cached_tokens: null };
}

// --- tool calls and reasoning (§3.3, §3.4) --------------------------------------------------------------

/** `A(x)`: tool-call argument parsing. */
export function asArguments(x: JsonValue | undefined): JsonValue {
  if (isJsonObject(x)) return x;
  if (typeof x === 'string') {
    try {
      return parsePython(x);
    } catch {
      return { _raw: x };
    }
  }
  return {};
}

/** Python `for item in (x or [])`: the items a truthy value iterates over; raises for non-iterables. */
function iterate(field: string, x: JsonValue | undefined): JsonValue[] {
  if (!truthy(x)) return [];
  if (Array.isArray(x)) return x;
  if (typeof x === 'string') return Array.from(x);
  if (isJsonObject(x)) return keysOf(x);
  throw new DerivationError(field, `'${x instanceof JsonFloat || typeof x === 'number' ? 'float' : typeof x}' object is not iterable`);
}

const get = (o: JsonObject, k: string): JsonValue => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : null);

export function toolCallsAndReasoning(resp: JsonObject): { tool_calls: JsonObject[]; reasoning_content: string | null } {
  const calls: JsonObject[] = [];
  const reasoning: string[] = [];
  if (Array.isArray(resp.output)) {
    for (const item of resp.output) {
      if (!isJsonObject(item)) continue;
      if (item.type === 'function_call') {
        calls.push({ call_id: truthy(item.call_id) ? item.call_id : get(item, 'id'), name: get(item, 'name'), arguments: asArguments(item.arguments) });
      } else if (item.type === 'reasoning') {
        for (const s of iterate('output.summary', item.summary)) {
          if (isJsonObject(s) && typeof s.text === 'string' && s.text) reasoning.push(s.text);
        }
      }
    }
  } else if (Array.isArray(resp.choices)) {
    for (const choice of resp.choices) {
      if (!isJsonObject(choice) || !isJsonObject(choice.message)) continue;
      const message = choice.message;
      for (const tc of iterate('message.tool_calls', message.tool_calls)) {
        if (!isJsonObject(tc)) continue;
        const fnRaw = truthy(tc.function) ? tc.function : {};
        const fn = isJsonObject(fnRaw) ? fnRaw : {};
        calls.push({ call_id: get(tc, 'id'), name: get(fn, 'name'), arguments: asArguments(fn.arguments) });
      }
      const r = truthy(message.reasoning_content) ? message.reasoning_content : get(message, 'reasoning');
      if (typeof r === 'string' && r) reasoning.push(r);
    }
  } else if (Array.isArray(resp.content)) {
    for (const block of resp.content) {
      if (!isJsonObject(block)) continue;
      if (block.type === 'tool_use') {
        calls.push({ call_id: get(block, 'id'), name: get(block, 'name'), arguments: truthy(block.input) ? block.input : {} });
      } else if ((block.type === 'thinking' || block.type === 'redacted_thinking') && typeof block.thinking === 'string') {
        reasoning.push(block.thinking);
      }
    }
  }
  const joined = reasoning.join('\n');
  return { tool_calls: calls, reasoning_content: joined ? joined : null };
}

// --- termination (§3) -------------------------------------------------------------------------------------

export function finishReason(resp: JsonObject): string | null {
  if (typeof resp.stop_reason === 'string') return resp.stop_reason;
  const choices = resp.choices;
  if (Array.isArray(choices) && choices.length > 0 && isJsonObject(choices[0]) && typeof choices[0].finish_reason === 'string') {
    return choices[0].finish_reason;
  }
  if (isJsonObject(resp.incomplete_details) && typeof resp.incomplete_details.reason === 'string') {
    return resp.incomplete_details.reason;
  }
  return null;
}

// --- the record ---------------------------------------------------------------------------------------------

/** build_model_call_record: throws DerivationError (or a TypeError-like DerivationError) for odd shapes. */
export function deriveRecord(exchange: JsonObject, callIndex: number): ModelCallRecord {
  const resp = isJsonObject(exchange.response) ? exchange.response : {};
  const req = isJsonObject(exchange.request) ? exchange.request : {};
  const usage = Object.prototype.hasOwnProperty.call(resp, 'usage') ? resp.usage : null;
  const modelCandidate = truthy(resp.model) ? resp.model : get(req, 'model');
  const tokens = extractTokenStats(usage);
  const cache = cacheSignal(usage);
  const { tool_calls, reasoning_content } = toolCallsAndReasoning(resp);
  return {
    model_call_id: laxStr('model_call_id', exchange.model_call_id),
    response_id: typeof resp.id === 'string' ? resp.id : null,
    call_index: callIndex,
    model_ref: modelRefOf(exchange.model_ref),
    model: typeof modelCandidate === 'string' ? modelCandidate : null,
    dialect: laxStr('dialect', exchange.dialect),
    status_code: laxInt('status_code', exchange.status_code),
    response_status: typeof resp.status === 'string' ? resp.status : null,
    finish_reason: finishReason(resp),
    started_at: laxFloat('started_at', exchange.started_at),
    completed_at: laxFloat('completed_at', exchange.completed_at),
    tokens_in: tokens.tokens_in,
    tokens_out: tokens.tokens_out,
    tokens_reasoning: tokens.tokens_reasoning,
    tokens_total: tokens.tokens_total,
    request: isJsonObject(exchange.request) ? exchange.request : null,
    response: isJsonObject(exchange.response) ? exchange.response : null,
    request_raw: typeof exchange.request_raw === 'string' ? exchange.request_raw : null,
    response_raw: typeof exchange.response_raw === 'string' ? exchange.response_raw : null,
    tool_calls,
    reasoning_content,
    cache_hit: cache.cache_hit,
    cached_tokens: cache.cached_tokens,
    cache_creation_tokens: tokens.cache_creation_tokens,
    error_category: laxStr('error_category', exchange.error_category),
    latency_total_ms: laxFloat('latency_ms', exchange.latency_ms),
    latency_ttft_ms: laxFloat('latency_ttft_ms', exchange.latency_ttft_ms),
  };
}

/** The record without its payload keys (the attachment's default shape, §5.1). */
export function withoutPayloads(record: ModelCallRecord): ModelCallRecord {
  const out: ModelCallRecord = {};
  for (const key of RECORD_FIELDS) {
    if ((PAYLOAD_FIELDS as readonly string[]).includes(key)) continue;
    out[key] = record[key];
  }
  return out;
}
