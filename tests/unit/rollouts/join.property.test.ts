// Properties of join_model_call_observations (spec §9 "Join semantics") over random refs, owners and ambiguity.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../support/fc-seed';
import type { JsonObject } from '@/lib/capture/json-value';
import { joinModelCallObservations } from '@/lib/rollouts/join';
import { validateBundle } from '@/lib/rollouts/observations';

const REF = { type: 'responses_api_models', name: 'srv' };
const ids = fc.constantFrom('c0', 'c1', 'c2', 'c3', 'missing');
const rids = fc.constantFrom('r0', 'r1', 'r2', 'nope');
const refArb = fc.oneof(ids.map((id) => ({ model_call_id: id })), rids.map((rid) => ({ model_ref: REF, response_id: rid })));
// calls may share ids and response ids, which makes refs ambiguous
const callsArb = fc.array(fc.record({ model_call_id: ids.filter((i) => i !== 'missing'), response_id: rids.filter((r) => r !== 'nope') }), { maxLength: 6 });
const bundleArb = fc.array(fc.array(refArb, { maxLength: 4 }), { minLength: 1, maxLength: 4 }).map((invs) => ({
  source: 'test',
  records: invs.map((refs, i) => ({ kind: 'agent_invocation', invocation_id: `inv-${i}`, model_calls: refs })),
  gaps: [],
}));

function setup(b: JsonObject, rawCalls: { model_call_id: string; response_id: string }[]) {
  const calls = rawCalls.map((c, i) => ({ ...c, call_index: i, model_ref: REF }) as JsonObject);
  const v = validateBundle(b);
  if (!v.ok) throw new Error('generated bundle must validate');
  return { bundle: v.value, calls };
}
const key = (r: JsonObject) => JSON.stringify([r.model_call_id, r.response_id]);

describe('join_model_call_observations properties', () => {
  it('owns every captured call at most once, and reports every ref it did not resolve and every call nobody owns', () => {
    fc.assert(
      fc.property(bundleArb, callsArb, (b, raw) => {
        const { bundle, calls } = setup(b, raw);
        const joined = joinModelCallObservations(bundle, calls);
        const gaps = joined.gaps as JsonObject[];
        const owned: string[] = [];
        (joined.records as JsonObject[]).forEach((inv, k) => {
          const before = (bundle.records as JsonObject[])[k].model_calls as JsonObject[];
          (inv.model_calls as JsonObject[]).forEach((ref, j) => {
            const resolved = calls.some((c) => c.model_call_id === ref.model_call_id && c.response_id === ref.response_id);
            if (resolved && ref.model_call_id !== null && ref.response_id !== null) owned.push(key(ref));
            else {
              expect(ref).toEqual(before[j]); // kept as is
              expect(gaps.some((g) => g.invocation_id === inv.invocation_id && String(g.code).startsWith('model_call_reference_'))).toBe(true);
            }
          });
        });
        // a resolved ref names one call; two resolved refs never name the same call
        expect(new Set(owned).size).toBe(owned.length);
        const ownershipGaps = gaps.filter((g) => g.code === 'model_call_ownership_unavailable' && g.invocation_id === null);
        const ownedCount = calls.filter((c) => owned.includes(key(c))).length;
        expect(ownershipGaps.length).toBe(calls.length - ownedCount);
      }),
    );
  });

  it('is idempotent: joining the joined bundle again changes nothing', () => {
    fc.assert(
      fc.property(bundleArb, callsArb, (b, raw) => {
        const { bundle, calls } = setup(b, raw);
        const once = joinModelCallObservations(bundle, calls);
        expect(joinModelCallObservations(once, calls)).toEqual(once);
      }),
    );
  });

  it('never guesses from list position: the result does not depend on the order of the captured calls beyond indices', () => {
    fc.assert(
      fc.property(bundleArb, callsArb, (b, raw) => {
        const { bundle, calls } = setup(b, raw);
        const joined = joinModelCallObservations(bundle, calls);
        const reversed = joinModelCallObservations(bundle, [...calls].reverse());
        expect(reversed.records).toEqual(joined.records);
        const codes = (g: JsonObject) => (g.gaps as JsonObject[]).map((x) => JSON.stringify(x)).sort();
        expect(codes(reversed)).toEqual(codes(joined));
      }),
    );
  });
});
