// Small factories for exchanges and their lines, used across the capture tests.
import type { JsonObject } from '../../lib/capture/json-value';
import { parseStrict } from '../../lib/capture/json-parse';
import { serialize } from '../../lib/capture/json-serialize';

/** A parsed exchange from JSON text, keeping ints and floats apart as the reader does. */
export function ex(text: string): JsonObject {
  return parseStrict(text) as JsonObject;
}

export function makeExchange(overrides: JsonObject = {}): JsonObject {
  return {
    model_call_id: 'call-1',
    dialect: 'responses',
    model_ref: { type: 'responses_api_models', name: 'srv' },
    started_at: ex('{"v":100.0}').v,
    completed_at: 100.02,
    latency_ms: 18.4,
    latency_ttft_ms: null,
    status_code: 200,
    error_category: null,
    request: { input: 'hi' },
    response: {},
    ...overrides,
  };
}

export const line = (o: JsonObject) => serialize(o) + '\n';
