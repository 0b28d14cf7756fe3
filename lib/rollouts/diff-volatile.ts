// What differs between any two runs of the same conversation, and so is left out when the rollout diff asks whether
// two calls differ: identifiers the server or the model mints (response, item and tool-call ids, and the references
// to them), timestamps, and usage (the token deltas report it). `id` is one only in API objects (those with a
// `type`, `role` or `object` key), not inside a tool's own input. Free of imports, for the browser too.

/** Whether a key's value is left out of a comparison, given the object holding it. */
export type IgnorePolicy = (key: string, holder: Record<string, unknown>) => boolean;

const VOLATILE = new Set(['call_id', 'tool_call_id', 'tool_use_id', 'previous_response_id', 'created', 'created_at', 'completed_at', 'system_fingerprint', 'usage']);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export const ignoreVolatile: IgnorePolicy = (key, holder) => VOLATILE.has(key) || (key === 'id' && (has(holder, 'type') || has(holder, 'role') || has(holder, 'object')));
