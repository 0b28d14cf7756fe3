// join_model_call_observations (nemo_gym/rollout_observability.py, spec §9 "Join semantics"): resolves an
// observation bundle's call references against the captured calls without guessing ownership. Works on the
// normalized (dumped) bundle and on ModelCallRecords; returns a new bundle and leaves its input untouched.
import { keysOf, setKey, truthy, type JsonObject, type JsonValue } from '../capture/json-value';
import type { ModelCallRecord } from '../capture/record';
import { joinKeyProblem } from './observations';

export const JOIN_GAP_CODES = {
  ambiguous: 'model_call_reference_ambiguous',
  conflict: 'model_call_reference_conflict',
  unmatched: 'model_call_reference_unmatched',
  ownership: 'model_call_ownership_unavailable',
} as const;

/** What upstream raises inside the join (a ValidationError of ModelCallRef when a canonical ref is invalid). */
export class JoinError extends Error {
  constructor(
    message: string,
    readonly pythonClass: string,
  ) {
    super(message);
    this.name = 'JoinError';
  }
}

export interface GapObject extends JsonObject {
  code: string;
  invocation_id: string | null;
  detail: string | null;
}
export const gap = (code: string, invocation_id: string | null = null, detail: string | null = null): GapObject => ({ code, invocation_id, detail });

const str = (v: JsonValue | undefined): string | null => (typeof v === 'string' ? v : null);
/** Python's f-string of an optional str. */
const py = (v: string | null): string => (v === null ? 'None' : v);

/** ModelServerRef equality (pydantic compares both fields); null only equals null. */
export function sameModelRef(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const x = a ?? null;
  const y = b ?? null;
  if (x === null || y === null) return x === y;
  const ox = x as JsonObject;
  const oy = y as JsonObject;
  return ox.type === oy.type && ox.name === oy.name;
}

/** ModelCallRef.model_validate({model_call_id, model_ref, response_id}) of a captured call. Throws JoinError. */
export function canonicalRef(call: ModelCallRecord): JsonObject {
  const modelRef = call.model_ref ? { type: (call.model_ref as JsonObject).type, name: (call.model_ref as JsonObject).name } : null;
  const ref: JsonObject = { model_call_id: call.model_call_id ?? null, model_ref: modelRef, response_id: call.response_id ?? null };
  const problem = joinKeyProblem(ref);
  if (problem) throw new JoinError(problem, 'ValidationError');
  return ref;
}

/** (code, invocation_id, detail) dedup keeping the first occurrence's position. */
export function dedupGaps<T extends JsonObject>(gaps: T[]): T[] {
  const seen = new Map<string, T>();
  for (const g of gaps) {
    const key = JSON.stringify([g.code, g.invocation_id ?? null, g.detail ?? null]);
    if (!seen.has(key)) seen.set(key, g);
  }
  return [...seen.values()];
}

const copy = (o: JsonObject): JsonObject => {
  const out: JsonObject = {};
  for (const k of keysOf(o)) setKey(out, k, o[k]);
  return out;
};

export function joinModelCallObservations(bundle: JsonObject, calls: readonly ModelCallRecord[]): JsonObject {
  const records = (bundle.records as JsonObject[]).map((r) =>
    r.kind === 'agent_invocation' || r.kind === 'context_compaction' ? copy(r) : r,
  );
  const invocations = records.filter((r) => r.kind === 'agent_invocation');
  const compactions = records.filter((r) => r.kind === 'context_compaction');
  const byCallId = new Map<string, number[]>();
  const byResponse = new Map<string, number[]>();
  const push = (m: Map<string, number[]>, k: string, i: number) => (m.get(k) ?? m.set(k, []).get(k)!).push(i);
  calls.forEach((call, i) => {
    if (truthy(call.model_call_id)) push(byCallId, call.model_call_id as string, i);
    const ref = call.model_ref as JsonObject | null | undefined;
    if (ref && truthy(call.response_id)) push(byResponse, JSON.stringify([ref.type, ref.name, call.response_id]), i);
  });

  const matches = (ref: JsonObject): number[] => {
    if (truthy(ref.model_call_id)) {
      return (byCallId.get(ref.model_call_id as string) ?? []).filter(
        (i) => (ref.model_ref === null || sameModelRef(ref.model_ref, calls[i].model_ref)) && (ref.response_id === null || ref.response_id === (calls[i].response_id ?? null)),
      );
    }
    const mr = ref.model_ref as JsonObject;
    return byResponse.get(JSON.stringify([mr.type, mr.name, ref.response_id])) ?? [];
  };
  const callLabel = (i: number) => str(calls[i].model_call_id) || str(calls[i].response_id);
  const refLabel = (ref: JsonObject) => str(ref.model_call_id) || str(ref.response_id);

  const joinCodes = new Set<string>([JOIN_GAP_CODES.ambiguous, JOIN_GAP_CODES.conflict, JOIN_GAP_CODES.unmatched]);
  let gaps = (bundle.gaps as GapObject[]).filter(
    (g) =>
      !joinCodes.has(g.code) &&
      !(g.code === JOIN_GAP_CODES.ownership && g.invocation_id === null && g.detail !== null && g.detail.startsWith('capture:')),
  );

  const owner = new Map<number, string>();
  const joinGaps: GapObject[] = [];
  for (const invocation of invocations) {
    const id = invocation.invocation_id as string;
    invocation.model_calls = (invocation.model_calls as JsonObject[]).map((ref) => {
      const candidates = matches(ref);
      if (candidates.length !== 1) {
        joinGaps.push(gap(candidates.length ? JOIN_GAP_CODES.ambiguous : JOIN_GAP_CODES.unmatched, id, refLabel(ref)));
        return ref;
      }
      const call = candidates[0];
      if (owner.has(call)) {
        joinGaps.push(gap(JOIN_GAP_CODES.conflict, id, callLabel(call)));
        return ref;
      }
      owner.set(call, id);
      return canonicalRef(calls[call]);
    });
  }

  for (const compaction of compactions) {
    const id = compaction.invocation_id as string;
    compaction.model_calls = (compaction.model_calls as JsonObject[]).map((ref) => {
      const candidates = matches(ref);
      if (candidates.length !== 1) {
        joinGaps.push(gap(candidates.length ? JOIN_GAP_CODES.ambiguous : JOIN_GAP_CODES.unmatched, id, `model_calls:${py(refLabel(ref))}`));
        return ref;
      }
      const call = candidates[0];
      const by = owner.get(call);
      if (by !== id) {
        joinGaps.push(gap(by !== undefined ? JOIN_GAP_CODES.conflict : JOIN_GAP_CODES.ownership, id, `model_calls:${py(callLabel(call))}`));
        return ref;
      }
      return canonicalRef(calls[call]);
    });
    for (const field of ['before_model_call', 'after_model_call'] as const) {
      const ref = compaction[field] as JsonObject | null;
      if (ref === null) continue;
      const candidates = matches(ref);
      if (candidates.length === 1) {
        const call = candidates[0];
        const by = owner.get(call);
        if (by !== undefined && by !== id) {
          joinGaps.push(gap(JOIN_GAP_CODES.conflict, id, `${field}:${py(callLabel(call))}`));
          continue;
        }
        compaction[field] = canonicalRef(calls[call]);
      } else {
        joinGaps.push(gap(candidates.length ? JOIN_GAP_CODES.ambiguous : JOIN_GAP_CODES.unmatched, id, `${field}:${py(refLabel(ref))}`));
      }
    }
  }

  gaps = [...gaps, ...joinGaps];
  calls.forEach((call, i) => {
    if (!owner.has(i)) {
      const label = str(call.model_call_id) || str(call.response_id) || 'unknown';
      gaps.push(gap(JOIN_GAP_CODES.ownership, null, `capture:${label}:call_index=${String(call.call_index)}`));
    }
  });
  const out = copy(bundle);
  out.records = records;
  out.gaps = dedupGaps(gaps);
  return out;
}
