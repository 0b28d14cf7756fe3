// The raw exchange line (spec §2): what the capture middleware writes for one call, keys in upstream order,
// built from the bytes and timings a middleware observed. Parsing and reassembly never throw (§6.6).
import { completionCategory, exceptionCategory } from './errors';
import { isJsonObject, pyFloat, type JsonObject, type JsonValue } from './json-value';
import { parsePython } from './json-parse';
import { roundHalfEven2 } from './round';
import { reassemble, type Dialect, type TerminalKind } from './sse';

export const EXCHANGE_FIELDS = [
  'model_call_id',
  'dialect',
  'model_ref',
  'started_at',
  'completed_at',
  'latency_ms',
  'latency_ttft_ms',
  'status_code',
  'error_category',
  'request',
  'response',
  'request_raw',
  'response_raw',
] as const;

/** §6.2: the three observed paths (after the prefix is stripped), compared exactly. */
export const OBSERVED_PATHS: Record<string, Dialect> = {
  '/v1/responses': 'responses',
  '/v1/chat/completions': 'chat',
  '/v1/messages': 'messages',
};

export interface ObservedException {
  /** The exception's class name (drives the timeout/connection/exception classification). */
  name: string;
  isTimeout?: boolean;
  /** The status carried by the exception, if any. */
  status?: number | null;
  /** The exception's HTTP body, used when no body bytes were streamed. */
  body?: Uint8Array | null;
}

export interface ObservedCall {
  modelCallId: string;
  dialect: Dialect;
  modelServerName: string | null;
  /** Wall clock, Unix seconds. */
  startedAt: number;
  completedAt: number;
  /** Monotonic milliseconds, unrounded. */
  latencyMs: number;
  ttftMs: number | null;
  /** The status of the response start, or null if none was sent. */
  statusCode: number | null;
  requestBody: Uint8Array;
  responseBody: Uint8Array;
  streaming: boolean;
  terminal: TerminalKind | null;
  exception?: ObservedException | null;
}

const replacingDecoder = new TextDecoder('utf-8');

/** Body text decoded as UTF-8 with U+FFFD replacement. */
export function decodeReplacing(bytes: Uint8Array): string {
  return replacingDecoder.decode(bytes);
}

/** The body parsed by Python's json.loads if it is a JSON object, else null (never throws). */
export function parseObject(bytes: Uint8Array): JsonObject | null {
  if (bytes.length === 0) return null;
  try {
    const v = parsePython(bytes);
    return isJsonObject(v) ? v : null;
  } catch {
    return null;
  }
}

export function modelRef(name: string | null | undefined): JsonObject | null {
  return name ? { type: 'responses_api_models', name } : null;
}

/**
 * What a caller already knows about the bodies, so that buildExchange does not parse them again. A body
 * marked 'serialized' is a JSON object whose serialization the caller holds: its value is left as an empty
 * placeholder, for `serializeExchange` to fill with those bytes.
 */
export interface PreparedBodies {
  request?: 'serialized' | 'not-an-object';
  response?: 'serialized';
}

export function buildExchange(call: ObservedCall, prepared: PreparedBodies = {}): JsonObject {
  const request = prepared.request === 'serialized' ? {} : prepared.request === 'not-an-object' ? null : parseObject(call.requestBody);
  const exception = call.exception ?? null;
  let status = call.statusCode;
  let response: JsonObject | null = null;
  let responseRaw: string | null = null;
  let category: string | null;
  if (exception) {
    if (status === null) status = exception.status ?? null;
    const body = call.responseBody.length ? call.responseBody : (exception.body ?? new Uint8Array());
    if (body.length) responseRaw = decodeReplacing(body);
    category = exceptionCategory(status, exception.name, exception.isTimeout);
  } else {
    const body = call.responseBody;
    if (body.length) {
      let parsed: JsonValue | null = null;
      try {
        parsed = call.streaming ? reassemble(call.dialect, body) : prepared.response === 'serialized' ? {} : parseObject(body);
      } catch {
        parsed = null;
      }
      response = isJsonObject(parsed) ? parsed : null;
      if (call.streaming || response === null) responseRaw = decodeReplacing(body);
    }
    category = completionCategory({
      status,
      streaming: call.streaming,
      terminal: call.terminal,
      bodyNonEmpty: body.length > 0,
      responseIsNull: response === null,
    });
  }
  const exchange: JsonObject = {
    model_call_id: call.modelCallId,
    dialect: call.dialect,
    model_ref: modelRef(call.modelServerName),
    started_at: pyFloat(call.startedAt),
    completed_at: pyFloat(call.completedAt),
    latency_ms: pyFloat(roundHalfEven2(call.latencyMs)),
    latency_ttft_ms: call.ttftMs === null ? null : pyFloat(roundHalfEven2(call.ttftMs)),
    status_code: status,
    error_category: category,
    request,
    response,
  };
  if (request === null && call.requestBody.length) exchange.request_raw = decodeReplacing(call.requestBody);
  if (responseRaw !== null) exchange.response_raw = responseRaw;
  return exchange;
}
