// A small model of pydantic v2 validation and `model_dump(mode="json")`, enough for NeMo Gym's observation and
// trajectory models: lax coercions (int→float, "5"→5, 2.0→2), defaults filled in, declared field order, extra
// keys forbidden / ignored / kept, after-validators, and the smart union's choice (most fields set wins, the
// first member on a tie; "fields set" counted as pydantic-core 2.4x counts them, see `model`). Values are the lossless JsonValue of lib/capture/json-value.ts, so a float field serializes
// as orjson writes a Python float (`5.0`). Validation never throws: it returns problems with their field paths.
import { JsonFloat, isJsonObject, keysOf, setKey, type JsonObject, type JsonValue } from '../capture/json-value';

export type Path = (string | number)[];
export interface Problem {
  path: Path;
  message: string;
}
export type Result = { ok: true; value: JsonValue; fieldsSet: number | null } | { ok: false; problems: Problem[] };

export interface PyType {
  validate(v: JsonValue | undefined, path: Path): Result;
}

const ok = (value: JsonValue, fieldsSet: number | null = null): Result => ({ ok: true, value, fieldsSet });
// Nested validations add their counts into the same validation state (pydantic-core's add_fields_set).
const addSet = (a: number | null, b: number | null): number | null => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));
const fail = (path: Path, message: string): Result => ({ ok: false, problems: [{ path, message }] });

function num(v: JsonValue | undefined): number | null {
  if (typeof v === 'number') return v;
  if (v instanceof JsonFloat) return v.value;
  return null;
}
const isIntValue = (v: JsonValue | undefined): boolean => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';

export const str: PyType = {
  validate: (v, path) => (typeof v === 'string' ? ok(v) : fail(path, 'Input should be a valid string')),
};

export const any: PyType = { validate: (v) => ok(v === undefined ? null : v) };

const DIGITS = '\\d(?:_?\\d)*';
const INT_STRING = new RegExp(`^[+-]?${DIGITS}(?:\\.0+)?$`);
const FLOAT_STRING = new RegExp(`^[+-]?(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);

/** int: ints, bools (lax), floats with no fraction, and numeric strings, as pydantic's lax mode takes them. */
export function int(opts: { ge?: number } = {}): PyType {
  return {
    validate(v, path) {
      let out: number | bigint | null = null;
      if (typeof v === 'boolean') out = v ? 1 : 0;
      else if (isIntValue(v)) out = v as number | bigint;
      else if (v instanceof JsonFloat || typeof v === 'number') {
        const n = num(v)!;
        if (!Number.isFinite(n)) return fail(path, 'Input should be a finite number');
        if (!Number.isInteger(n)) return fail(path, 'Input should be a valid integer, got a number with a fractional part');
        out = Object.is(n, -0) ? 0 : n;
      } else if (typeof v === 'string' && INT_STRING.test(v.trim())) {
        // pydantic takes "12", " +1 ", "1_000" and "1.00" (a zero fraction), not "1e3", "5." or "1.5"
        const big = BigInt(v.trim().replace(/_/g, '').replace(/\.0+$/, ''));
        out = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
      } else return fail(path, 'Input should be a valid integer');
      if (opts.ge !== undefined && Number(out) < opts.ge) return fail(path, `Input should be greater than or equal to ${opts.ge}`);
      return ok(out);
    },
  };
}

/** float: any number, bools (lax), numeric strings; always dumped as a Python float. */
export function float(opts: { ge?: number } = {}): PyType {
  return {
    validate(v, path) {
      let n: number;
      if (typeof v === 'boolean') n = v ? 1 : 0;
      else if (typeof v === 'bigint') n = Number(v);
      else if (typeof v === 'number' || v instanceof JsonFloat) n = num(v)!;
      else if (typeof v === 'string' && (FLOAT_STRING.test(v.trim().toLowerCase()) || /^[+-]?(inf|infinity|nan)$/i.test(v.trim()))) {
        n = pyFloatString(v.trim());
      } else return fail(path, 'Input should be a valid number');
      if (opts.ge !== undefined && !(n >= opts.ge)) return fail(path, `Input should be greater than or equal to ${opts.ge}`);
      // kept as the float it is: orjson writes inf and nan as null, and comparisons (timing) see the value
      return ok(new JsonFloat(n));
    },
  };
}

/** Python float() of a stripped string as pydantic accepts it (underscores only between digits); NaN if not. */
function pyFloatString(s: string): number {
  const t = s.toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(t)) return Number.NaN; // accepted (then NaN fails every ge bound, as in pydantic)
  return FLOAT_STRING.test(t) ? Number(t.replace(/_/g, '')) : Number.NaN;
}

export const bool: PyType = {
  validate(v, path) {
    if (typeof v === 'boolean') return ok(v);
    if (v === 0 || v === 1) return ok(v === 1);
    if (v instanceof JsonFloat && (v.value === 0 || v.value === 1)) return ok(v.value === 1);
    if (typeof v === 'string') {
      const t = v.trim().toLowerCase();
      if (['1', 'on', 't', 'true', 'y', 'yes'].includes(t)) return ok(true);
      if (['0', 'off', 'f', 'false', 'n', 'no'].includes(t)) return ok(false);
    }
    return fail(path, 'Input should be a valid boolean');
  },
};

export function literal(...values: string[]): PyType {
  return {
    validate: (v, path) =>
      typeof v === 'string' && values.includes(v) ? ok(v) : fail(path, `Input should be ${values.map((x) => `'${x}'`).join(' or ')}`),
  };
}

export function optional(t: PyType): PyType {
  return { validate: (v, path) => (v === null ? ok(null) : t.validate(v, path)) };
}

export function list(t: PyType): PyType {
  return {
    validate(v, path) {
      if (!Array.isArray(v)) return fail(path, 'Input should be a valid list');
      const out: JsonValue[] = [];
      const problems: Problem[] = [];
      let set: number | null = null;
      v.forEach((item, i) => {
        const r = t.validate(item, [...path, i]);
        if (r.ok) {
          out.push(r.value);
          set = addSet(set, r.fieldsSet);
        } else problems.push(...r.problems);
      });
      return problems.length ? { ok: false, problems } : ok(out, set);
    },
  };
}

/** A field: its type and, when it is not required, the default that fills it in (a factory for lists). */
export interface Field {
  type: PyType;
  default?: () => JsonValue;
  /** A TypedDict's NotRequired key: absent stays absent. */
  absentOk?: boolean;
}
export const req = (type: PyType): Field => ({ type });
export const dflt = (type: PyType, value: JsonValue | (() => JsonValue)): Field => ({
  type,
  default: typeof value === 'function' ? value : () => value,
});
export const opt = (type: PyType): Field => dflt(optional(type), null);
export const notRequired = (type: PyType): Field => ({ type, absentOk: true });

export interface ModelOptions {
  extra: 'forbid' | 'ignore' | 'allow';
  /** A model_validator(mode="after"): returns the ValueError message, or null. */
  after?: (value: JsonObject) => string | null;
  /** A TypedDict (counted once per key in the smart union, where a model counts its declared fields twice). */
  typedDict?: boolean;
}

export interface PyModel extends PyType {
  readonly name: string;
  readonly fields: Readonly<Record<string, Field>>;
}

export function model(name: string, fields: Record<string, Field>, options: ModelOptions): PyModel {
  const names = Object.keys(fields);
  return {
    name,
    fields,
    validate(v, path) {
      if (!isJsonObject(v)) return fail(path, `Input should be a valid dictionary or instance of ${name}`);
      const out: JsonObject = {};
      const problems: Problem[] = [];
      let found = 0;
      let extras = 0;
      let nested: number | null = null;
      for (const key of names) {
        const field = fields[key];
        if (Object.prototype.hasOwnProperty.call(v, key)) {
          found++;
          const r = field.type.validate(v[key], [...path, key]);
          if (r.ok) {
            setKey(out, key, r.value);
            nested = addSet(nested, r.fieldsSet);
          } else problems.push(...r.problems);
        } else if (field.default) setKey(out, key, field.default());
        else if (!field.absentOk) problems.push({ path: [...path, key], message: 'Field required' });
      }
      for (const key of keysOf(v)) {
        if (Object.prototype.hasOwnProperty.call(fields, key)) continue;
        if (options.extra === 'forbid') problems.push({ path: [...path, key], message: 'Extra inputs are not permitted' });
        else if (options.extra === 'allow') {
          extras++;
          setKey(out, key, v[key]);
        }
      }
      if (problems.length) return { ok: false, problems };
      const message = options.after?.(out) ?? null;
      if (message !== null) return fail(path, `Value error, ${message}`);
      // pydantic-core 2.4x: model_fields adds the declared fields found, then the model adds len(fields_set)
      // (declared found + extras kept) again; a TypedDict adds its keys found once.
      const own = options.typedDict ? found : 2 * found + extras;
      return ok(out, (nested ?? 0) + own);
    },
  };
}

/** A discriminated union on `key` (pydantic's Field(discriminator=...)). */
export function tagged(key: string, members: Record<string, PyType>): PyType {
  return {
    validate(v, path) {
      if (!isJsonObject(v)) return fail(path, 'Input should be a valid dictionary');
      const tag = v[key];
      if (tag === undefined) return fail(path, `Unable to extract tag using discriminator '${key}'`);
      const member = typeof tag === 'string' && Object.prototype.hasOwnProperty.call(members, tag) ? members[tag] : undefined;
      if (!member) return fail([...path, key], `Input tag '${String(tag)}' found using '${key}' does not match any of the expected tags`);
      return member.validate(v, [...path, String(tag)]);
    },
  };
}

/**
 * pydantic-core's smart union: every member is tried; a success that sets no fields (a scalar) returns at once,
 * otherwise the success with the most fields set wins and the earliest member wins a tie.
 */
export function union(members: PyType[], before?: (v: JsonValue | undefined) => string | null): PyType {
  return {
    validate(v, path) {
      const message = before?.(v) ?? null;
      if (message !== null) return fail(path, `Value error, ${message}`);
      let best: { value: JsonValue; set: number | null } | null = null;
      const problems: Problem[] = [];
      for (const member of members) {
        const r = member.validate(v, path);
        if (!r.ok) {
          if (!best) problems.push(...r.problems);
          continue;
        }
        if (r.fieldsSet === null) return ok(r.value); // an exact scalar match returns at once
        // more fields set wins; on a tie (or without counts) the exactness decides, equal here, so the first stays
        if (!best || (best.set !== null && r.fieldsSet > best.set)) best = { value: r.value, set: r.fieldsSet };
      }
      return best ? ok(best.value, best.set) : { ok: false, problems: problems.length ? problems : [{ path, message: 'No union member matched' }] };
    },
  };
}

/** A dumped model with its null fields removed (model_dump(exclude_none=True) at the top level). */
export function withoutNulls(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of keysOf(obj)) if (obj[key] !== null) setKey(out, key, obj[key]);
  return out;
}

export function formatProblems(problems: Problem[]): string {
  return problems.map((p) => `${p.path.join('.') || '(root)'}: ${p.message}`).join('; ');
}
