// Rollout ids (spec §1.3, §1.4, §6.1). Three grammars exist upstream and each is used where upstream uses it:
// the store's filename rule, the explicit-id rule, and the middleware's permissive path segment.
import { isJsonObject, numericValue, type JsonValue } from './json-value';

export class RolloutIdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RolloutIdError';
  }
}

const STORE_ID = /^[A-Za-z0-9._-]+$/;
// Python `re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")`: `$` also matches before one trailing newline.
const EXPLICIT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\n?$/;

/** Rule 1: the store's filename rule. */
export function isStoreRolloutId(id: string): boolean {
  return STORE_ID.test(id);
}

/** Python repr() of a str, as used in `Invalid rollout id: '<repr>'`. */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + quote;
}

/** Rule 1, raising: the id as it will appear in a file name. */
export function assertStoreRolloutId(id: string): string {
  if (!isStoreRolloutId(id)) throw new RolloutIdError(`Invalid rollout id: ${pyRepr(id)}`);
  return id;
}

/** Rule 2: an explicit `_ng_rollout_id`. */
export function validateExplicitRolloutId(value: JsonValue | undefined): string {
  if (typeof value !== 'string' || !EXPLICIT_ID.test(value)) {
    throw new RolloutIdError(
      '_ng_rollout_id must be a string of letters, digits, dots, dashes or underscores starting with a letter or digit; got ' +
        pyValueRepr(value),
    );
  }
  return value;
}

function pyValueRepr(v: JsonValue | undefined): string {
  if (typeof v === 'string') return pyRepr(v);
  return pyStr(v ?? null);
}

/** Python str() of a scalar JSON value, as `"{task}-{rollout}"` formatting prints it. */
export function pyStr(v: JsonValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  const n = numericValue(v);
  if (n !== null) return pyFloatRepr(n);
  return JSON.stringify(v); // containers do not occur as indices in practice
}

/** Python repr() of a float (shortest round-trip; exponent form below 1e-4 and from 1e16). */
export function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e16 || abs < 1e-4) {
    const [mant, exp] = n.toExponential().split('e');
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const s = String(n);
  return s.includes('.') ? s : s + '.0';
}

/** Python int() of an attempt index: ints, floats (truncated), numeric strings with surrounding whitespace. */
function pyInt(v: JsonValue): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return Number(v);
  const n = numericValue(v);
  if (n !== null) {
    if (!Number.isFinite(n)) throw new RolloutIdError(`cannot convert float ${pyFloatRepr(n)} to integer`);
    return Math.trunc(n);
  }
  if (typeof v === 'string' && /^\s*[+-]?\d+(_\d+)*\s*$/.test(v)) return Number(v.trim().replace(/_/g, ''));
  throw new RolloutIdError(`invalid literal for int() with base 10: ${typeof v === 'string' ? pyRepr(v) : pyValueRepr(v)}`);
}

/**
 * maybe_rollout_id_from_run_body (§1.4): the rollout id of a run body or rollout line, or null when it has
 * none. Throws RolloutIdError for an invalid explicit id or a non-numeric attempt.
 */
export function rolloutIdFromBody(body: JsonValue | undefined): string | null {
  if (!isJsonObject(body)) return null;
  let id: string;
  const explicit = body._ng_rollout_id;
  if (explicit !== undefined && explicit !== null) {
    id = validateExplicitRolloutId(explicit);
  } else {
    const task = body._ng_task_index;
    const rollout = body._ng_rollout_index;
    if (task === undefined || task === null || rollout === undefined || rollout === null) return null;
    id = `${pyStr(task)}-${pyStr(rollout)}`;
  }
  const attempt = body._ng_attempt_index;
  if (attempt !== undefined && attempt !== null) {
    const n = pyInt(attempt);
    if (n > 0) id += `-a${n}`;
  }
  return id;
}

/** §8.3: a rollout line's id, preferring its attachment's `rollout_id`. */
export function rolloutIdOfLine(line: JsonValue): string | null {
  if (isJsonObject(line)) {
    const capture = line.ng_model_call_capture;
    if (isJsonObject(capture) && typeof capture.rollout_id === 'string') return capture.rollout_id;
  }
  return rolloutIdFromBody(line);
}

/** §6.1: `/ng-rollout/<id>[/training-token-capture]<rest>` with greedy matching and backtracking. */
export function parseRolloutPrefix(path: string): { rolloutId: string; rest: string; tokenCapture: boolean } | null {
  const m = /^\/ng-rollout\/([^/]+)(\/training-token-capture)?(\/.*)$/s.exec(path);
  if (!m) return null;
  return { rolloutId: m[1], tokenCapture: m[2] !== undefined, rest: m[3] };
}

/** §6.1 producer side. */
export function rolloutPathPrefix(id: string | null | undefined, tokenCapture = false): string {
  if (!id) return '';
  return `/ng-rollout/${id}${tokenCapture ? '/training-token-capture' : ''}`;
}

export function applyRolloutPrefix(baseUrl: string, id: string | null | undefined): string {
  if (!id) return baseUrl;
  return baseUrl.replace(/\/+$/, '') + rolloutPathPrefix(id);
}

