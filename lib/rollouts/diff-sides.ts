// Reading a structural diff (diff-json.ts) back: both sides' values, and whether it holds a change, with or without
// the keys an ignore policy leaves out.
import type { JsonDiff } from './diff-json';
import type { IgnorePolicy } from './diff-volatile';

type Obj = Record<string, unknown>;

/** Marks a side the diff says is absent (the value of an `added` node's a, a `removed` node's b). */
export const ABSENT = Symbol('absent');

function put(o: Obj, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Both values back from a diff (ABSENT for the side an added or removed node lacks). */
export function diffSides(d: JsonDiff): { a: unknown; b: unknown } {
  switch (d.op) {
    case 'same':
      return { a: d.value, b: d.value };
    case 'added':
      return { a: ABSENT, b: d.b };
    case 'removed':
      return { a: d.a, b: ABSENT };
    case 'changed':
      return { a: d.a, b: d.b };
    case 'object': {
      const a: Obj = {};
      const b: Obj = {};
      for (const e of d.entries) {
        const s = diffSides(e.diff);
        if (s.a !== ABSENT) put(a, e.key, s.a);
        if (s.b !== ABSENT) put(b, e.key, s.b);
      }
      return { a, b };
    }
    case 'array': {
      const a: unknown[] = [];
      const b: unknown[] = [];
      for (const r of d.runs) {
        if (r.op === 'changed') {
          const s = diffSides(r.diff);
          a.push(s.a);
          b.push(s.b);
        } else {
          if (r.op !== 'added') a.push(...r.values);
          if (r.op !== 'removed') b.push(...(r.op === 'same' ? (r.b_values ?? r.values) : r.values));
        }
      }
      return { a, b };
    }
    case 'text': {
      const a: string[] = [];
      const b: string[] = [];
      for (const r of d.runs) {
        if (r.op !== 'added') a.push(...r.lines);
        if (r.op !== 'removed') b.push(...r.lines);
      }
      return { a: a.join('\n'), b: b.join('\n') };
    }
  }
}

/** Whether the diff holds a change, leaving out the keys `ignore` names (a change at the top always counts). */
export function hasChanges(d: JsonDiff, ignore?: IgnorePolicy): boolean {
  switch (d.op) {
    case 'same':
      return false;
    case 'object': {
      // The policy looks at which keys the holder has, not at their values.
      const a: Obj = {};
      const b: Obj = {};
      for (const e of d.entries) {
        if (e.diff.op !== 'added') put(a, e.key, true);
        if (e.diff.op !== 'removed') put(b, e.key, true);
      }
      return d.entries.some((e) => !(ignore && (ignore(e.key, a) || ignore(e.key, b))) && hasChanges(e.diff, ignore));
    }
    case 'array':
      return d.a_length !== d.b_length || d.runs.some((r) => (r.op === 'same' ? !ignore && !!r.b_values : r.op !== 'changed' || hasChanges(r.diff, ignore)));
    default:
      return true;
  }
}
