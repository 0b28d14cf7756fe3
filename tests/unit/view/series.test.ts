import { describe, expect, it } from 'vitest';
import type { CallSummary } from '../../../lib/api/call-schemas';
import { callRef, chartRows, contextSeries, latencySeries, nearestIndex, serverGroup, seriesMax, stringAt, tokenSeries, toCallColumns } from '../../../lib/view/series';

function makeCall(overrides: Partial<CallSummary> = {}): CallSummary {
  return {
    call_index: 0,
    model_call_id: 'a'.repeat(32),
    model_server: 'policy_model',
    model: 'm',
    dialect: 'chat',
    status_code: 200,
    error_category: null,
    finish_reason: 'stop',
    started_at: 1000,
    completed_at: 1001.5,
    tokens_in: 100,
    tokens_out: 40,
    tokens_reasoning: 10,
    tokens_total: 140,
    cached_tokens: 30,
    cache_creation_tokens: null,
    cache_hit: 1,
    latency_ms: 1500,
    ttft_ms: 200,
    tool_calls: 1,
    ...overrides,
  };
}

describe('toCallColumns', () => {
  it('codes strings once, keeps nulls, and times calls from the first start', () => {
    const c = toCallColumns([
      makeCall({ started_at: 1000.25, completed_at: 1001 }),
      makeCall({ call_index: 2, model_call_id: null, model_server: 'judge_model', started_at: 1000, completed_at: null, error_category: 'timeout', cache_hit: 0 }),
      makeCall({ call_index: 3, model_server: null, started_at: null, tokens_in: null }),
    ]);
    expect(c.n).toBe(3);
    expect(c.t0).toBe(1000);
    expect(c.start_ms).toEqual([250, 0, null]);
    expect(c.end_ms).toEqual([1000, null, 1500]);
    expect(c.servers).toEqual(['policy_model', 'judge_model']);
    expect([0, 1, 2].map((i) => stringAt(c, c.model_server[i]))).toEqual(['policy_model', 'judge_model', null]);
    expect([0, 1, 2].map((i) => serverGroup(c, i))).toEqual([0, 1, 2]);
    expect(stringAt(c, c.error_category[1])).toBe('timeout');
    expect(c.cache_hit).toEqual([true, false, true]);
    expect(c.tokens_in).toEqual([100, 100, null]);
    expect(c.strings.filter((s) => s === 'chat')).toHaveLength(1);
  });

  it('addresses a call by model_call_id, or i<call_index> without one', () => {
    const c = toCallColumns([makeCall(), makeCall({ call_index: 7, model_call_id: null })]);
    expect([callRef(c, 0), callRef(c, 1)]).toEqual(['a'.repeat(32), 'i7']);
  });

  it('has no origin when no call has a start', () => {
    const c = toCallColumns([makeCall({ started_at: null, completed_at: 5 })]);
    expect(c.t0).toBeNull();
    expect(c.end_ms).toEqual([null]);
  });
});

describe('tokenSeries', () => {
  it('splits input into uncached and cached, output into visible and reasoning, adding up to in + out', () => {
    const s = tokenSeries(toCallColumns([makeCall()]));
    const row = chartRows(s)[0];
    expect(row).toEqual({ x: 0, in_uncached: 70, in_cached: 30, out: 30, reasoning: 10 });
    expect(row.in_uncached! + row.in_cached! + row.out! + row.reasoning!).toBe(140);
  });

  it('keeps unknown values as gaps, never zeros', () => {
    const s = tokenSeries(
      toCallColumns([
        makeCall({ tokens_in: null, cached_tokens: null, tokens_out: null, tokens_reasoning: null }),
        makeCall({ call_index: 1, cached_tokens: null, tokens_reasoning: null }),
      ]),
    );
    const rows = chartRows(s);
    expect(rows[0]).toEqual({ x: 0, in_uncached: null, in_cached: null, out: null, reasoning: null });
    expect(rows[1]).toEqual({ x: 1, in_uncached: 100, in_cached: null, out: 40, reasoning: null });
    expect(s.unknown).toBe(1);
  });

  it('clamps inconsistent counts instead of drawing negative bars', () => {
    const row = chartRows(tokenSeries(toCallColumns([makeCall({ tokens_in: 10, cached_tokens: 50, tokens_out: 5, tokens_reasoning: 9 })])))[0];
    expect(row).toEqual({ x: 0, in_uncached: 0, in_cached: 10, out: 0, reasoning: 5 });
  });
});

describe('latencySeries and contextSeries', () => {
  it('draws latency as bars and TTFT as dots, with null as a gap', () => {
    const s = latencySeries(toCallColumns([makeCall(), makeCall({ call_index: 1, latency_ms: null, ttft_ms: null })]));
    expect(s.layers.map((l) => [l.key, l.kind])).toEqual([
      ['latency', 'bar'],
      ['ttft', 'dot'],
    ]);
    expect(chartRows(s)[1]).toEqual({ x: 1, latency: null, ttft: null });
    expect(s.unknown).toBe(1);
    expect(seriesMax(s)).toBe(1500);
  });

  it('gives each model server its own layer of tokens_in dots', () => {
    const s = contextSeries(
      toCallColumns([makeCall({ tokens_in: 10 }), makeCall({ call_index: 1, model_server: 'judge_model', tokens_in: 5 }), makeCall({ call_index: 2, tokens_in: null })]),
    );
    expect(s.layers.map((l) => [l.label, l.group, l.values])).toEqual([
      ['policy_model', 0, [10, null, null]],
      ['judge_model', 1, [null, 5, null]],
    ]);
    expect(s.unknown).toBe(1);
  });
});

describe('seriesMax and nearestIndex', () => {
  it('takes the tallest stack', () => {
    expect(seriesMax(tokenSeries(toCallColumns([makeCall(), makeCall({ call_index: 1, tokens_in: 1000 })])))).toBe(1040);
    expect(seriesMax(tokenSeries(toCallColumns([])))).toBe(0);
  });

  it('finds the nearest x, preferring the left one on a tie', () => {
    const xs = [0, 2, 4, 10];
    expect([-5, 0, 1, 3, 6, 8, 99].map((v) => nearestIndex(xs, v))).toEqual([0, 0, 0, 1, 2, 3, 3]);
    expect(nearestIndex([], 1)).toBe(-1);
  });
});
