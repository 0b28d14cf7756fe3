// A structural diff of two JSON values, with no size cap, as JSON itself (it crosses to the browser). Objects are
// diffed by key (a's keys in a's order, then b's new keys in b's order); arrays by the longest common subsequence of
// their items, so that the history a conversation resends is one `same` run with its length, and the items of a
// replaced stretch that are of the same kind (type and role) are paired and diffed in turn; two strings of which
// either holds a newline are diffed by lines. An equal subtree is one `same` node holding its value once, so a
// diff holds everything needed to read both sides back (diff-sides.ts) and nothing twice. Deterministic: the same two
// values always give the same diff.
//
// With an ignore policy (ignoreVolatile), array items that differ in nothing but the ignored keys still count as
// the same: two runs of one conversation share their history although every tool call carries its own ids. Such a
// run keeps b's items beside a's (`b_values`), so nothing is lost; objects still show every difference.
//
// Values are JSON as the format library parses it (lib/capture/json-value.ts: JsonFloat for whole floats, bigint beyond
// the safe range) or as JSON.parse does; `1` and `1.0` differ, as they do in the stored line.
import { JsonFloat, keysOf, type JsonObject } from '../capture/json-value';
import { diffSequences } from './diff-sequence';
import type { IgnorePolicy } from './diff-volatile';

export type JsonDiff =
  | { op: 'same'; value: unknown }
  | { op: 'added'; b: unknown }
  | { op: 'removed'; a: unknown }
  | { op: 'changed'; a: unknown; b: unknown }
  | { op: 'object'; entries: { key: string; diff: JsonDiff }[] }
  | { op: 'array'; a_length: number; b_length: number; runs: ArrayRun[] }
  | { op: 'text'; runs: TextRun[] };

/** Runs of an array diff; indices are where the run starts in a and in b. */
export type ArrayRun =
  | { op: 'same'; a_index: number; b_index: number; count: number; values: unknown[]; b_values?: unknown[] }
  | { op: 'removed' | 'added'; a_index: number; b_index: number; count: number; values: unknown[] }
  | { op: 'changed'; a_index: number; b_index: number; count: 1; diff: JsonDiff };

/** Runs of a line diff; lines are 0-based and split on '\n' (a '\r' stays at its line's end). */
export interface TextRun {
  op: 'same' | 'removed' | 'added';
  a_line: number;
  b_line: number;
  count: number;
  lines: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonFloat);
const keys = (o: Obj): string[] => keysOf(o as JsonObject);
const has = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Deep equality of JSON values: objects regardless of key order, ints and floats apart. */
export function jsonEqual(a: unknown, b: unknown, ignore?: IgnorePolicy): boolean {
  if (a === b) return true;
  if (a instanceof JsonFloat || b instanceof JsonFloat) return a instanceof JsonFloat && b instanceof JsonFloat && Object.is(a.value, b.value);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i], ignore)) return false;
    return true;
  }
  const ao = a as Obj;
  const bo = b as Obj;
  const skip = ignore ? (k: string) => ignore(k, ao) || ignore(k, bo) : () => false;
  let n = 0;
  for (const k of Object.keys(ao)) {
    if (skip(k)) continue;
    n++;
    if (!has(bo, k) || !jsonEqual(ao[k], bo[k], ignore)) return false;
  }
  for (const k of Object.keys(bo)) if (!skip(k)) n--;
  return n === 0;
}

/**
 * A text that two values share exactly when they are written alike (same keys in the same order), the keys the
 * policy ignores left out: what the array diff compares items by.
 */
export function keyOf(v: unknown, ignore?: IgnorePolicy): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof JsonFloat) return `${Object.is(v.value, -0) ? '-0' : v.value}f`;
  if (Array.isArray(v)) return `[${v.map((x) => keyOf(x, ignore)).join(',')}]`;
  if (isObj(v)) return `{${keys(v).filter((k) => !ignore?.(k, v)).map((k) => `${JSON.stringify(k)}:${keyOf(v[k], ignore)}`).join(',')}}`;
  return String(v); // null, true, false
}

export { ignoreVolatile, type IgnorePolicy } from './diff-volatile';

export function diffJson(a: unknown, b: unknown, ignore?: IgnorePolicy): JsonDiff {
  if (a === b) return { op: 'same', value: a };
  if (Array.isArray(a) && Array.isArray(b)) return diffArrays(a, b, ignore);
  if (isObj(a) && isObj(b)) return diffObjects(a, b, ignore);
  if (typeof a === 'string' && typeof b === 'string' && (a.includes('\n') || b.includes('\n'))) return diffText(a, b);
  return jsonEqual(a, b) ? { op: 'same', value: a } : { op: 'changed', a, b };
}

function diffObjects(a: Obj, b: Obj, ignore: IgnorePolicy | undefined): JsonDiff {
  const entries: { key: string; diff: JsonDiff }[] = [];
  let changed = false;
  for (const k of keys(a)) {
    const diff: JsonDiff = has(b, k) ? diffJson(a[k], b[k], ignore) : { op: 'removed', a: a[k] };
    if (diff.op !== 'same') changed = true;
    entries.push({ key: k, diff });
  }
  for (const k of keys(b)) {
    if (has(a, k)) continue;
    changed = true;
    entries.push({ key: k, diff: { op: 'added', b: b[k] } });
  }
  return changed ? { op: 'object', entries } : { op: 'same', value: a };
}

/** Items that are paired when they stand in a replaced stretch: same container kind, same type and role. */
function kindOf(v: unknown): string {
  if (Array.isArray(v)) return '[]';
  if (!isObj(v)) return v instanceof JsonFloat ? 'number' : typeof v;
  return `{}${typeof v.type === 'string' ? v.type : ''}/${typeof v.role === 'string' ? v.role : ''}`;
}

function diffArrays(a: unknown[], b: unknown[], ignore: IgnorePolicy | undefined): JsonDiff {
  const ka = a.map((v) => keyOf(v, ignore));
  const kb = b.map((v) => keyOf(v, ignore));
  const runs: ArrayRun[] = [];
  const plain = diffSequences(a.length, b.length, (i, j) => ka[i] === kb[j]);
  const pushSame = (ai: number, bi: number, count: number) => {
    const values = a.slice(ai, ai + count);
    const bValues = b.slice(bi, bi + count);
    const exact = !ignore || values.every((v, k) => jsonEqual(v, bValues[k]));
    const last = runs[runs.length - 1];
    if (last?.op === 'same' && last.a_index + last.count === ai && last.b_index + last.count === bi) {
      if (!exact || last.b_values) last.b_values = [...(last.b_values ?? last.values), ...bValues];
      last.count += count;
      last.values.push(...values);
    } else runs.push({ op: 'same', a_index: ai, b_index: bi, count, values, ...(exact ? {} : { b_values: bValues }) });
  };
  for (let r = 0; r < plain.length; ) {
    const run = plain[r];
    if (run.op === 'same') {
      pushSame(run.a, run.b, run.count);
      r++;
      continue;
    }
    // A replaced stretch: the removed and added runs up to the next same run, paired by kind.
    let removedFrom = -1;
    let removed = 0;
    let addedFrom = -1;
    let added = 0;
    for (; r < plain.length && plain[r].op !== 'same'; r++) {
      const p = plain[r];
      if (p.op === 'removed') {
        if (removedFrom < 0) removedFrom = p.a;
        removed += p.count;
      } else {
        if (addedFrom < 0) addedFrom = p.b;
        added += p.count;
      }
    }
    if (removedFrom < 0) removedFrom = addedFrom < 0 ? 0 : plain[r - 1].a;
    if (addedFrom < 0) addedFrom = plain[r - 1].b;
    const kinds = diffSequences(removed, added, (i, j) => kindOf(a[removedFrom + i]) === kindOf(b[addedFrom + j]));
    for (const k of kinds) {
      const ai = removedFrom + k.a;
      const bi = addedFrom + k.b;
      if (k.op === 'removed' || k.op === 'added') {
        const values = k.op === 'removed' ? a.slice(ai, ai + k.count) : b.slice(bi, bi + k.count);
        runs.push({ op: k.op, a_index: ai, b_index: bi, count: k.count, values });
        continue;
      }
      for (let i = 0; i < k.count; i++) {
        const diff = diffJson(a[ai + i], b[bi + i], ignore);
        if (diff.op === 'same') pushSame(ai + i, bi + i, 1);
        else runs.push({ op: 'changed', a_index: ai + i, b_index: bi + i, count: 1, diff });
      }
    }
  }
  if (runs.every((r) => r.op === 'same' && !r.b_values)) return { op: 'same', value: a };
  return { op: 'array', a_length: a.length, b_length: b.length, runs };
}

function diffText(a: string, b: string): JsonDiff {
  const la = a.split('\n');
  const lb = b.split('\n');
  const runs: TextRun[] = diffSequences(la.length, lb.length, (i, j) => la[i] === lb[j]).map((s) => ({
    op: s.op,
    a_line: s.a,
    b_line: s.b,
    count: s.count,
    lines: (s.op === 'added' ? lb : la).slice(s.op === 'added' ? s.b : s.a, (s.op === 'added' ? s.b : s.a) + s.count),
  }));
  return { op: 'text', runs };
}
