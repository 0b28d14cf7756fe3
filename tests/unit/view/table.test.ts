import { describe, expect, it } from 'vitest';
import { presentRollout } from '../../../lib/api/present';
import { RolloutQuerySchema } from '../../../lib/api/schemas';
import type { RolloutRow } from '../../../lib/index/queries/rollouts';
import { toCsv } from '../../../lib/view/csv';
import {
  activeFilters, barClass, barMaxVar, barScale, barScaleCss, nextSort, pageMaxima, parseRolloutView, ROLLOUT_CSV_COLUMNS, rolloutsApiUrl, shownTokenRows, shownTokens, viewParams,
} from '../../../lib/view/table';

// A rollout without a trajectory: its summary columns are all null (schema.ts).
const NO_TRAJECTORY = {
  trajectory_source: null, invocations: null, subagent_depth: null, turns: null, tool_calls: null, tool_failed: null, tool_time: null,
  tool_time_max: null, tool_unmeasured: null, compactions: null, sandboxes: null, trajectory_gaps: null, tool_names: null, tool_statuses: null,
} as const;

describe('parseRolloutView', () => {
  it('reads the same query strings the API accepts', () => {
    const { view, ignored } = parseRolloutView({ sort: 'tokens_total', order: 'desc', failed: 'true', reward_min: '0.5', attempt: '1', q: 'abc' });
    expect(ignored).toEqual([]);
    expect(view).toEqual({ sort: 'tokens_total', order: 'desc', failed: true, reward_min: 0.5, attempt: 1, q: 'abc' });
  });

  it('drops invalid or unknown parameters and names them, keeping the rest', () => {
    const { view, ignored } = parseRolloutView({ sort: 'bogus', dialect: 'chat', utm: 'x', has_errors: 'maybe' });
    expect(ignored.sort()).toEqual(['has_errors', 'sort', 'utm']);
    expect(view).toEqual({ sort: 'rollout', order: 'asc', dialect: 'chat' });
  });

  it('ignores page size and cursor (a page URL always opens at the top), repeated and empty values', () => {
    const { view, ignored } = parseRolloutView({ limit: '3', cursor: 'abc', gap: ['model_call_capture_incomplete', 'x'], q: '' });
    expect(ignored).toEqual([]);
    expect(view).toEqual({ sort: 'rollout', order: 'asc', gap: 'model_call_capture_incomplete' });
  });
});

describe('viewParams and rolloutsApiUrl', () => {
  it('leave defaults out and round-trip through the API schema', () => {
    const view = { sort: 'reward', order: 'desc', model_server: 'policy model', has_errors: false } as const;
    const params = viewParams(view);
    expect(params.toString()).toBe('has_errors=false&model_server=policy+model&order=desc&sort=reward');
    expect(RolloutQuerySchema.parse(Object.fromEntries(params))).toMatchObject(view);
    expect(viewParams({ sort: 'rollout', order: 'asc' }).toString()).toBe('');
  });

  it('adds the page size and cursor for the API', () => {
    expect(rolloutsApiUrl('run a', { sort: 'rollout', order: 'asc' }, 100, 'CUR')).toBe('/api/runs/run%20a/rollouts?limit=100&cursor=CUR');
  });

  it('counts filters, not sort', () => {
    expect(activeFilters({ sort: 'reward', order: 'desc' })).toBe(0);
    expect(activeFilters({ sort: 'rollout', order: 'asc', failed: true, q: 'x' })).toBe(2);
  });
});

describe('nextSort', () => {
  it('flips the order on the same column and starts numbers high-to-low', () => {
    expect(nextSort({ sort: 'reward', order: 'desc' }, 'reward')).toEqual({ sort: 'reward', order: 'asc' });
    expect(nextSort({ sort: 'reward', order: 'asc' }, 'reward')).toEqual({ sort: 'reward', order: 'desc' });
    expect(nextSort({ sort: 'reward', order: 'asc' }, 'tokens_in')).toEqual({ sort: 'tokens_in', order: 'desc' });
    expect(nextSort({ sort: 'reward', order: 'desc' }, 'rollout')).toEqual({ sort: 'rollout', order: 'asc' });
  });
});

describe('inline token bars', () => {
  const rows = [
    { tokens_in: 100, tokens_out: null },
    { tokens_in: 400, tokens_out: null },
    { tokens_in: null, tokens_out: null },
  ];

  it('the page maximum ignores unknown values; a field nobody knows has no maximum', () => {
    expect(pageMaxima(rows, ['tokens_in', 'tokens_out'])).toEqual({ tokens_in: 400, tokens_out: null });
  });

  it('the bar scale is each maximum as a CSS variable; none, 0 or not finite is 1 (empty bars, never a division by 0)', () => {
    expect(barScale({ tokens_in: 400, tokens_out: null, tokens_reasoning: 0, tokens_total: Infinity })).toEqual({
      '--bar-max-tokens_in': 400,
      '--bar-max-tokens_out': 1,
      '--bar-max-tokens_reasoning': 1,
      '--bar-max-tokens_total': 1,
    });
    expect(barMaxVar('tokens_in')).toBe('--bar-max-tokens_in');
  });

  it("the scale as style rules on each field's bars inside the table's scope (restyling the bars, not the table)", () => {
    expect(barScaleCss('bars-r1', { '--bar-max-tokens_in': 400, '--bar-max-tokens_out': 1 }).split('\n')).toEqual([
      '.bars-r1 .bar-tokens_in{--bar-max-tokens_in:400}',
      '.bars-r1 .bar-tokens_out{--bar-max-tokens_out:1}',
    ]);
    expect(barClass('tokens_total')).toBe('bar-tokens_total');
  });
});

describe('rollout CSV columns', () => {
  it('write the presented row: unknown tokens as empty cells, lists joined, times in UTC', () => {
    const row = {
      pk: 1, key: '0-1', rollout_id: '0-1', line_no: 2, reward: 0.5, task_index: 0, rollout_index: 1, attempt: null, failure_class: null,
      agent: 'a', task: null, source: 'capture', num_calls: 2, tokens_in: 10, tokens_out: null, tokens_reasoning: null, tokens_total: null,
      cached_tokens: 0, latency_sum: 12.5, latency_max: 10, ttft_p50: null, errors: 1, gaps: JSON.stringify([{ code: 'model_call_capture_incomplete' }]),
      gap_count: 1, model_servers: '|policy|judge|', dialects: '|chat|', error_categories: '|timeout|', started_at: 1786060800, completed_at: null,
      marker: 1, unreadable: 0, mismatch: 0, attached_calls: null, attached_tokens_total: null,
      usage_in: 174322, usage_out: 21397, usage_reasoning: 0, usage_cached: null, usage_total: 195719, line_problem: null, prompt: null, expected: null, extracted: null, outcome: null, ...NO_TRAJECTORY,
    } satisfies RolloutRow;
    const csv = toCsv(ROLLOUT_CSV_COLUMNS, [presentRollout(row)]).split('\r\n');
    const header = csv[0].split(',');
    const cells = Object.fromEntries(csv[1].split(',').map((v, i) => [header[i], v]));
    expect(cells.tokens_out).toBe('');
    expect(cells.cached_tokens).toBe('0');
    expect(cells.model_servers).toBe('policy;judge');
    expect(cells.gaps).toBe('model_call_capture_incomplete');
    expect(cells.started_at_utc).toBe('2026-08-07T00:00:00Z');
    expect(cells.incomplete).toBe('true');
    expect(cells.response_usage_tokens_in).toBe('174322');
    expect(cells.response_usage_cached_tokens).toBe('');
    expect(cells.response_usage_tokens_total).toBe('195719');
  });
});

describe('token counts shown (captured calls, or the line response.usage when there are none)', () => {
  const counts = { tokens_in: null, tokens_out: null, tokens_reasoning: null, cached_tokens: null, tokens_total: null };
  const usage = { tokens_in: 100, tokens_out: 20, tokens_reasoning: 0, cached_tokens: null, tokens_total: 120 };
  it('a rollout without calls shows its response.usage, marked as such; unknown stays unknown', () => {
    expect(shownTokens({ ...counts, response_usage: usage }, 0, 'tokens_in')).toEqual({ value: 100, fromUsage: true });
    expect(shownTokens({ ...counts, response_usage: usage }, 0, 'cached_tokens')).toEqual({ value: null, fromUsage: true });
    expect(shownTokens({ ...counts, response_usage: null }, 0, 'tokens_in')).toEqual({ value: null, fromUsage: false });
  });
  it('with captured calls, their sums, even when unknown and the line has a usage', () => {
    expect(shownTokens({ ...counts, tokens_in: 7, response_usage: usage }, 2, 'tokens_in')).toEqual({ value: 7, fromUsage: false });
    expect(shownTokens({ ...counts, response_usage: usage }, 1, 'tokens_total')).toEqual({ value: null, fromUsage: false });
  });
  it('page maxima of the bars use the counts shown', () => {
    const row = (calls: number, tokens_in: number | null, u: typeof usage | null) =>
      presentRollout({
        pk: 1, key: 'k', rollout_id: null, line_no: 1, reward: null, task_index: null, rollout_index: null, attempt: null, failure_class: null,
        agent: null, task: null, source: 'attachment', num_calls: calls, tokens_in, tokens_out: null, tokens_reasoning: null, tokens_total: null,
        cached_tokens: null, latency_sum: null, latency_max: null, ttft_p50: null, errors: 0, gaps: null, gap_count: 0, model_servers: null,
        dialects: null, error_categories: null, started_at: null, completed_at: null, marker: 0, unreadable: 0, mismatch: 0, attached_calls: null,
        attached_tokens_total: null, usage_in: u?.tokens_in ?? null, usage_out: u?.tokens_out ?? null, usage_reasoning: u?.tokens_reasoning ?? null,
        usage_cached: u?.cached_tokens ?? null, usage_total: u?.tokens_total ?? null, line_problem: null, prompt: null, expected: null, extracted: null, outcome: null, ...NO_TRAJECTORY,
      });
    const rows = [row(0, null, usage), row(3, 40, { ...usage, tokens_in: 999 })];
    expect(pageMaxima(shownTokenRows(rows), ['tokens_in', 'tokens_total'])).toEqual({ tokens_in: 100, tokens_total: 120 });
    expect(rows[1].response_usage?.tokens_in).toBe(999);
    expect(row(0, null, null).response_usage).toBeNull();
  });
});
