// Which trajectory model call a ModelCallRef names, and which invocation owns each model call. A producer's
// ng_trajectory keeps its refs unresolved (`{model_ref, response_id}` without a model_call_id: spec §5.4), so the
// views resolve them here the way the join does (§9): by model_call_id, narrowed by model_ref and response_id when
// given, else by the exact (model_ref, response_id) of the call's response_metadata; several matches resolve to
// none. Ownership goes to the first invocation, in record order, whose ref resolves to the call.
import type { ModelCallRef } from '../rollouts/observations';
import type { TrajectoryParts, ViewModelCall } from './trajectory-read';

const responseKey = (server: string, responseId: string) => `${server}\u0000${responseId}`;

export interface CallRefIndex {
  /** The position in `modelCalls` of the one call the ref names, or -1. */
  resolve: (ref: ModelCallRef | null) => number;
  /** The position of the call with this model_call_id, or -1. */
  byId: (id: string) => number;
}

export function callRefIndex(calls: readonly ViewModelCall[]): CallRefIndex {
  // one position per key; a key several calls share keeps them all (rare: the schema wants unique ids)
  const ids = new Map<string, number | number[]>();
  const responses = new Map<string, number | number[]>();
  const push = (m: Map<string, number | number[]>, k: string, i: number) => {
    const at = m.get(k);
    if (at === undefined) m.set(k, i);
    else if (typeof at === 'number') m.set(k, [at, i]);
    else at.push(i);
  };
  calls.forEach((c, i) => {
    if (c.model_call_id) push(ids, c.model_call_id, i);
    const { model_ref, response_id } = c.response_metadata;
    if (model_ref && response_id) push(responses, responseKey(model_ref.name, response_id), i);
  });
  const fits = (ref: ModelCallRef, i: number) => {
    const m = calls[i].response_metadata;
    return (!ref.model_ref || m.model_ref?.name === ref.model_ref.name) && (!ref.response_id || m.response_id === ref.response_id);
  };
  /** The one entry of `found` that fits the ref, or -1 (none, or several). */
  const one = (found: number | number[] | undefined, ref: ModelCallRef | null) => {
    if (found === undefined) return -1;
    if (typeof found === 'number') return !ref || fits(ref, found) ? found : -1;
    let hit = -1;
    for (const i of found) {
      if (ref && !fits(ref, i)) continue;
      if (hit >= 0) return -1;
      hit = i;
    }
    return hit;
  };
  return {
    resolve: (ref) => {
      if (!ref) return -1;
      if (ref.model_call_id) return one(ids.get(ref.model_call_id), ref);
      return ref.model_ref && ref.response_id ? one(responses.get(responseKey(ref.model_ref.name, ref.response_id)), null) : -1;
    },
    byId: (id) => one(ids.get(id), null),
  };
}

/** For each model call, the position of the invocation that owns it, or -1. */
export function callOwners(parts: Pick<TrajectoryParts, 'invocations' | 'modelCalls'>, index: CallRefIndex): Int32Array {
  const owner = new Int32Array(parts.modelCalls.length).fill(-1);
  parts.invocations.forEach((inv, k) => {
    for (const ref of inv.model_calls) {
      const i = index.resolve(ref);
      if (i >= 0 && owner[i] < 0) owner[i] = k;
    }
  });
  return owner;
}

/** How a model call is addressed in links: its model_call_id; a call without one has no page of its own here. */
export const modelCallLabel = (c: ViewModelCall, i: number) => c.model_call_id ?? `model call ${i + 1} (no id)`;
