import { describe, expect, it } from 'vitest';
import type { Distribution } from '../../../lib/api/compare-schemas';
import { csvCell } from '../../../lib/view/csv';
import {
  boxDomain, boxGeometry, cellText, changeText, countsTable, keyJitter, relativeChange, scatterLayout, serversTable, sortTasks, tasksTable, totalsTable, type Comparison, type PointsRun,
} from '../../../lib/view/compare';

const dist = (quantiles: (number | null)[], mean: number | null = null): Distribution => ({ count: quantiles.filter((q) => q !== null).length, mean, quantiles });

function makeRun(run: string, over: Partial<Comparison['runs'][number]['totals']> = {}): Comparison['runs'][number] {
  const d = dist([1, 2, 3, 4, 5], 3);
  return {
    run,
    totals: { rollouts: 10, failed: 0, calls: 40, tokens_in: 1000, tokens_out: 200, tokens_reasoning: null, tokens_total: 1200, cached_tokens: 0, latency_sum: 5000, errors: 1, gaps: 0, line_problems: 0, uncaptured: 0, mean_reward: 0.5, model_servers: ['policy'], agents: [], response_usage: null, ...over },
    rollout_tokens: { tokens_in: d, tokens_out: d, tokens_reasoning: dist([null, null, null, null, null]), tokens_total: d },
    reward: dist([0, 0, 1, 1, 1], 0.6),
    rollout_tool_calls: dist([null, null, null, null, null]),
    rollout_tool_time: dist([null, null, null, null, null]),
    gaps: {},
    calls: { servers: [{ model_server: 'policy', calls: 40, tokens_in: 1000, tokens_out: 200, tokens_reasoning: null, tokens_total: 1200, cached_tokens: 0, errors: 1 }], error_categories: { timeout: 1 }, latency_ms: [1, 2, 3], ttft_ms: [null, null, null] },
  };
}

const comparison = (runs: Comparison['runs'][number][], tasks: Comparison['tasks'] = []): Comparison => ({ quantiles: [0.05, 0.25, 0.5, 0.75, 0.95], percentiles: [0.5, 0.9, 0.99], runs, task_relation: { same: tasks.length > 0, basis: null, reason: '' }, tasks });

describe('totals side by side', () => {
  it("the rollout lines' response.usage sums are rows of their own, only when a run has them", () => {
    expect(totalsTable(comparison([makeRun('a'), makeRun('b')])).rows.some((r) => String(r[0].value).startsWith('response.usage'))).toBe(false);
    const usage = { rollouts: 5, tokens_in: 321734, tokens_out: 37746, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 359480 };
    const t = totalsTable(comparison([makeRun('a'), makeRun('b', { calls: 0, tokens_in: null, response_usage: usage })]));
    const row = t.rows.find((r) => r[0].value === 'response.usage tokens in')!;
    expect(row[1]).toMatchObject({ value: null });
    expect(row[2]).toMatchObject({ value: 321734, kind: 'tokens' });
    expect(t.rows.find((r) => r[0].value === 'tokens in')![2]).toMatchObject({ value: null }); // captured: unknown, not the usage
  });

  it('one row per metric, one column per run, unknown stays null, change relative to the first run', () => {
    const t = totalsTable(comparison([makeRun('a'), makeRun('b', { tokens_total: 1800, tokens_reasoning: 5 })]));
    expect(t.headers).toEqual(['metric', 'a', 'b']);
    const total = t.rows.find((r) => r[0].value === 'tokens total')!;
    expect(total[1]).toMatchObject({ value: 1200, kind: 'tokens' });
    expect(total[2]).toMatchObject({ value: 1800, change: 0.5 });
    const reasoning = t.rows.find((r) => r[0].value === 'tokens reasoning')!;
    expect(reasoning[1].value).toBeNull();
    expect(reasoning[2].change).toBeNull();
  });

  it('relativeChange has no answer against an unknown or zero base', () => {
    expect(relativeChange(null, 1)).toBeNull();
    expect(relativeChange(0, 1)).toBeNull();
    expect(relativeChange(2, 1)).toBe(-0.5);
  });
});

describe('per-server and count tables', () => {
  it('servers: a row per (server, run) that has it', () => {
    const b = makeRun('b');
    b.calls.servers = [{ model_server: 'judge', calls: 3, tokens_in: null, tokens_out: null, tokens_reasoning: null, tokens_total: null, cached_tokens: null, errors: 0 }];
    const t = serversTable(comparison([makeRun('a'), b]));
    expect(t.rows.map((r) => [r[0].value, r[1].value])).toEqual([['judge', 'b'], ['policy', 'a']]);
    expect(t.rows[0][3].value).toBeNull();
  });

  it('counts: union of names, 0 where a run has none (a count over known calls)', () => {
    const b = makeRun('b');
    b.calls.error_categories = { rate_limit: 2 };
    const t = countsTable(comparison([makeRun('a'), b]), 'errors', 'Errors', 'category', (r) => r.calls.error_categories);
    expect(t.rows.map((r) => r.map((c) => c.value))).toEqual([['rate_limit', 0, 2], ['timeout', 1, 0]]);
  });
});

describe('paired tasks', () => {
  const tasks = [
    { task_index: 2, runs: [], delta_tokens_total: -50, delta_reward: 0 },
    { task_index: 0, runs: [], delta_tokens_total: 10, delta_reward: null },
    { task_index: 1, runs: [], delta_tokens_total: null, delta_reward: 1 },
  ];

  it('sorts by task or by the size of the change, unknown changes last', () => {
    expect(sortTasks(tasks, 'task').map((t) => t.task_index)).toEqual([0, 1, 2]);
    expect(sortTasks(tasks, 'delta_tokens').map((t) => t.task_index)).toEqual([2, 0, 1]);
    expect(sortTasks(tasks, 'delta_reward').map((t) => t.task_index)).toEqual([1, 2, 0]);
  });

  it('writes a CSV-ready row per task with the per-run means and both deltas', () => {
    const t = tasksTable(
      comparison([makeRun('a'), makeRun('b')], [{ task_index: 7, runs: [{ rollouts: 2, mean_tokens_total: 100, mean_reward: 0.5 }, { rollouts: 2, mean_tokens_total: 150, mean_reward: null }], delta_tokens_total: 50, delta_reward: null }]),
      'task',
    );
    expect(t.headers).toHaveLength(1 + 2 * 3 + 2);
    expect(t.rows[0].map((c) => csvCell(c.value))).toEqual(['7', '2', '100', '0.5', '2', '150', '', '50', '']);
  });
});

describe('box plots', () => {
  it('share one axis per metric from 0 to the highest p95', () => {
    expect(boxDomain([dist([10, 20, 30, 40, 50]), dist([5, 6, 7, 8, 100])])).toEqual([0, 100]);
    expect(boxDomain([dist([-2, 0, 1, 1, 1])], false)).toEqual([-2, 1]);
    expect(boxDomain([dist([null, null, null, null, null])])).toBeNull();
    expect(boxDomain([dist([0, 0, 0, 0, 0])])).toEqual([0, 1]);
  });

  it('geometry is in percent of the track; an unknown quantile draws no box', () => {
    expect(boxGeometry(dist([10, 25, 50, 75, 90], 40), [0, 100])).toEqual({ whisker: [10, 90], box: [25, 75], median: 50, mean: 40 });
    expect(boxGeometry(dist([10, 25, null, 75, 90]), [0, 100])).toBeNull();
    expect(boxGeometry(dist([10, 25, 50, 75, 90]), null)).toBeNull();
  });
});

describe('reward vs tokens scatter', () => {
  const runs: PointsRun[] = [
    { run: 'a', total: 4, truncated: false, keys: ['a0', 'a1', 'a2', 'a3'], tokens_total: [0, 100, 1000, null], reward: [0, 1, 1, 1] },
    { run: 'b', total: 2, truncated: false, keys: ['b0', 'b1'], tokens_total: [500, 200], reward: [null, 0] },
  ];

  it('maps tokens to x and reward to y inside the plot, skipping unknown values (never drawn at 0)', () => {
    const l = scatterLayout(runs, 400, 200, false);
    expect(l.keys).toEqual(['a0', 'a1', 'a2', 'b1']);
    expect(l.skipped).toEqual([1, 1]);
    expect([...l.run]).toEqual([0, 0, 0, 1]);
    expect([...l.at]).toEqual([0, 1, 2, 1]);
    expect(l.xs[0]).toBe(l.plot.left);
    expect(l.xs[2]).toBe(l.plot.right);
    for (let i = 0; i < l.keys.length; i++) {
      expect(l.ys[i]).toBeGreaterThanOrEqual(l.plot.top);
      expect(l.ys[i]).toBeLessThanOrEqual(l.plot.bottom);
    }
    expect(l.jittered).toBe(true);
    // reward 1 sits above reward 0 even with jitter
    expect(l.ys[1]).toBeLessThan(l.ys[0]);
  });

  it('a log axis also skips tokens of 0 and ticks at powers of ten', () => {
    const l = scatterLayout(runs, 400, 200, true);
    expect(l.keys).toEqual(['a1', 'a2', 'b1']);
    expect(l.skipped).toEqual([2, 1]);
    expect(l.xTicks.map((t) => t.label)).toEqual([100, 1000]);
  });

  it('jitter is stable per key and bounded', () => {
    expect(keyJitter('0-1')).toBe(keyJitter('0-1'));
    for (const k of ['a', 'b', '12-3', 'x~f2']) expect(Math.abs(keyJitter(k))).toBeLessThanOrEqual(1);
  });

  it('nothing drawable gives an empty layout', () => {
    expect(scatterLayout([{ run: 'a', total: 1, truncated: false, keys: ['x'], tokens_total: [null], reward: [1] }], 400, 200, false).keys).toEqual([]);
  });
});

describe('cell text', () => {
  it('formats by kind with units, signs deltas, and shows unknown as a dash', () => {
    expect(cellText({ value: null, kind: 'tokens' })).toBe('—');
    expect(cellText({ value: 12345, kind: 'tokens' })).toBe('12.3k tok');
    expect(cellText({ value: 1500, kind: 'ms' })).toBe('1.50 s');
    expect(cellText({ value: 1234, kind: 'count' })).toBe('1,234');
    expect(cellText({ value: 250.4, kind: 'delta_tokens' })).toBe('+250 tok');
    expect(cellText({ value: -0.25, kind: 'delta_reward' })).toBe('-0.250');
    expect(changeText(0.5)).toBe('+50%');
    expect(changeText(1.5)).toBe('×2.5');
    expect(changeText(-0.034)).toBe('−3.4%');
    expect(changeText(null)).toBe('');
  });
});

describe('totals of runs without capture', () => {
  it('calls and errors are unknown for a run none of whose rollouts was captured, not 0; a partly captured run says how many are unknown', () => {
    const uncaptured = makeRun('plain', { calls: 0, errors: 0, uncaptured: 10, tokens_in: null, tokens_total: null });
    const partly = makeRun('partly', { uncaptured: 2 });
    const table = totalsTable(comparison([makeRun('captured'), uncaptured, partly]));
    const row = (name: string) => table.rows.find((r) => r[0].value === name)!.slice(1).map(cellText);
    expect(row('calls')).toEqual(['40', '—', '40']);
    expect(row('call errors')).toEqual(['1', '—', '1']);
    expect(row('rollouts with calls unknown (no capture)')).toEqual(['0', '10', '2']);
    expect(row('calls per captured rollout')[2]).toBe(cellText({ value: 40 / 8, kind: 'ratio' }));
  });
});
