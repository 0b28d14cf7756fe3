// Conformance of lib/rollouts/ with NeMo Gym's own code: every case in tests/fixtures/trajectory/cases.json is
// named after the upstream test (spec §10.2, §10.3) or spec rule it mirrors, and expected.json holds what
// upstream's models, join, association and projection produce for it (scripts/nemo-gym-trajectory-oracle.py),
// serialized by orjson, so each comparison is byte for byte: key order, nulls, defaults and float forms.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gapJson } from '@/lib/capture/attachment';
import type { JsonObject } from '@/lib/capture/json-value';
import { parsePython } from '@/lib/capture/json-parse';
import { serialize } from '@/lib/capture/json-serialize';
import { validateBundle } from '@/lib/rollouts/observations';
import { attachTrajectoryRecord, rewriteObservations } from '@/lib/rollouts/collector';
import { validateTrajectory } from '@/lib/rollouts/trajectory-model';

const dir = path.join(__dirname, '../../fixtures/trajectory');
const cases = parsePython(readFileSync(path.join(dir, 'cases.json'))) as JsonObject[];
const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { name: string; json?: string; error?: string; gaps?: object[] }[];

describe('the trajectory core equals NeMo Gym on every oracle case', () => {
  it('has one expectation per case', () => {
    expect(expected.map((e) => e.name)).toEqual(cases.map((c) => c.name));
  });
  cases.forEach((c, i) => {
    const want = expected[i];
    it(`${c.name as string} (${c.op as string})`, () => {
      if (c.op === 'bundle' || c.op === 'trajectory') {
        const got = c.op === 'bundle' ? validateBundle(c.input) : validateTrajectory(c.input);
        // upstream's error is a failed validation, or orjson refusing the dump (an int beyond 64 bits)
        if (want.error) {
          if (got.ok) expect(() => serialize(got.value)).toThrow();
        }
        else {
          expect(got.ok, JSON.stringify(!got.ok && got.problems)).toBe(true);
          expect(got.ok && serialize(got.value)).toBe(want.json);
        }
      } else if (c.op === 'merge') {
        const line = c.line as JsonObject;
        const gaps = rewriteObservations(line, c.calls as JsonObject[]);
        expect(gaps.map(gapJson)).toEqual(want.gaps);
        expect(serialize(line)).toBe(want.json);
      } else {
        const line = c.line as JsonObject;
        attachTrajectoryRecord(line, line);
        expect(serialize(line)).toBe(want.json);
      }
    });
  });
});

// Bundles NeMo Gym's own producers (claude_code, hermes, openclaw) build in their unit tests, as NeMo Gym
// serialized them (scripts/nemo-gym-producer-bundles.py): validating one and dumping it again gives the same bytes.
const producerBundles = JSON.parse(readFileSync(path.join(dir, 'producer-bundles.json'), 'utf8')) as { test: string; json: string }[];
describe("the producers' own bundles survive validation byte for byte", () => {
  it('has bundles of the three producers', () => {
    const sources = new Set(producerBundles.map((b) => (JSON.parse(b.json) as { source: string }).source));
    expect([...sources].sort()).toEqual(['claude_code', 'hermes', 'openclaw']);
  });
  producerBundles.forEach((b, i) => {
    it(`${b.test} #${i}`, () => {
      const got = validateBundle(parsePython(b.json));
      expect(got.ok, JSON.stringify(!got.ok && got.problems)).toBe(true);
      expect(got.ok && serialize(got.value)).toBe(b.json);
    });
  });
});
