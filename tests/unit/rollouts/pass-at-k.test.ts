// pass@k against NeMo Gym's own function: tests/fixtures/pass-at-k/cases.json holds what upstream's
// compute_pass_majority_metrics returns for each case (scripts/pass-at-k-reference.py runs it), compared here to the
// bit, keys and key order included. The hand-worked cases below say what the figures mean.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bigRatio, combRatio, passMajorityMetrics, prefixMeans, pySum, taskPassAtKs } from '@/lib/rollouts/pass-at-k';

const reference = JSON.parse(readFileSync(new URL('../../fixtures/pass-at-k/cases.json', import.meta.url), 'utf8')) as {
  cases: { name: string; tasks: number[][]; max_k: number; metrics: Record<string, number> }[];
};

describe("pass@k equals NeMo Gym's compute_pass_majority_metrics", () => {
  for (const c of reference.cases) {
    it(c.name, () => {
      const { metrics, maxK } = passMajorityMetrics(c.tasks);
      expect(maxK).toBe(c.max_k);
      expect(Object.keys(metrics)).toEqual(Object.keys(c.metrics));
      for (const [key, value] of Object.entries(c.metrics)) expect([key, metrics[key]]).toEqual([key, value]);
    });
  }
});

describe('pass@k by hand', () => {
  it('binary: 1 − C(incorrect, k) / C(n, k), 1 when fewer than k are incorrect', () => {
    // 4 rollouts, 2 incorrect: pass@1 = 1 − 2/4, pass@2 = 1 − 1/6, pass@3 = 1 (only 2 can fail).
    expect(taskPassAtKs([1, 0, 0, 1])).toEqual([0.5, 1 - 1 / 6, 1, 1]);
    expect(taskPassAtKs([0, 0, 0, 0])[3]).toBe(0);
  });

  it('continuous: the maximum of the first k, in rollout order', () => {
    expect(taskPassAtKs([0.25, 0.75, 0.5])).toEqual([0.25, 0.75, 0.75]);
    // One value outside {0, 1} makes the whole task continuous.
    expect(taskPassAtKs([1, 0, 0.5])[0]).toBe(1);
  });

  it('a task with fewer than k rollouts has no pass@k and is left out of the mean', () => {
    expect(taskPassAtKs([1, 0])).toHaveLength(2);
    const { metrics, maxK } = passMajorityMetrics([[1, 1, 1], [0, 0]]);
    expect(maxK).toBe(3);
    expect(metrics['pass@3/accuracy']).toBe(100); // only the first task has 3
    expect(metrics['pass@1[avg-of-3]/accuracy']).toBe(50); // (1 + 0) / 2: each task's first up-to-3 mean
  });

  it('std_dev_across_runs: the sample std of the per-rollout-index pass@1, std_err = std / √k', () => {
    // Rollout index 0 solves both tasks (100), index 1 neither (0): std of [100, 0] = 70.71…, err = 50.
    const { metrics } = passMajorityMetrics([[1, 0], [1, 0]]);
    expect(metrics['pass@1[avg-of-2]/accuracy/std_dev_across_runs']).toBeCloseTo(Math.SQRT2 * 50, 12);
    expect(metrics['pass@1[avg-of-2]/accuracy/std_err_across_runs']).toBeCloseTo(50, 12);
    expect(metrics['pass@1[avg-of-1]/accuracy/std_dev_across_runs']).toBeUndefined();
  });

  it('no tasks: no metrics', () => {
    expect(passMajorityMetrics([])).toEqual({ metrics: {}, maxK: 0 });
  });
});

describe('the arithmetic under it', () => {
  it("pySum is Python's compensated sum, not a left-to-right one", () => {
    expect(pySum([0.1, 0.2, 0.3])).toBe(0.6); // naive: 0.6000000000000001
    expect(pySum([1e100, 1, -1e100])).toBe(1); // naive: 0
    expect(pySum([])).toBe(0);
  });

  it('bigRatio rounds a quotient of big integers once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 40 }), (a, b) => {
        // Both exact in a double: the float quotient is the correctly rounded one.
        expect(bigRatio(BigInt(a), BigInt(b))).toBe(a / b);
      }),
    );
    // Past 2^53 (C(64, 32) = 1.83e18): Python's exact `math.comb(a, k) / math.comb(n, k)`, printed by Python.
    expect(combRatio(50, 64, 32)).toBe(9.851190148837262e-6);
    expect(combRatio(40, 64, 20)).toBe(7.025915160439794e-6);
    expect(1 - combRatio(33, 61, 17)).toBe(0.9999978264944368);
  });
});

describe('the one-pass forms the task groups use', () => {
  // Binary rewards half the time (the comb path), any finite floats otherwise (the running max), 1 to 40 rollouts.
  const rewards = fc.oneof(
    fc.array(fc.constantFrom(0, 1), { minLength: 1, maxLength: 40 }),
    fc.array(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 40 }),
  );

  // Upstream's pass@k for one k, as reward_profile.py writes it: the reference the one-pass form is held to.
  const passAtK = (values: number[], k: number) => {
    if (!values.every((v) => v === 0 || v === 1)) return Math.max(...values.slice(0, k));
    const incorrect = values.filter((v) => v === 0).length;
    return incorrect < k ? 1.0 : 1.0 - combRatio(incorrect, values.length, k);
  };

  it("taskPassAtKs gives upstream's pass@k for every k, to the bit", () => {
    fc.assert(
      fc.property(rewards, (values) => {
        const all = taskPassAtKs(values);
        expect(all).toHaveLength(values.length);
        values.forEach((_, i) => expect(Object.is(all[i], passAtK(values, i + 1))).toBe(true));
      }),
      { numRuns: 300 },
    );
  });

  it("prefixMeans gives each prefix's pySum over its length, to the bit", () => {
    fc.assert(
      fc.property(rewards, (values) => {
        const means = prefixMeans(values);
        values.forEach((_, i) => expect(Object.is(means[i], pySum(values.slice(0, i + 1)) / (i + 1))).toBe(true));
      }),
      { numRuns: 300 },
    );
  });
});
