import { describe, expect, it } from 'vitest';
import { presentRollout } from '../../../lib/api/present';
import { RolloutQuerySchema } from '../../../lib/api/schemas';
import type { RolloutRow } from '../../../lib/index/queries';
import { toCsv } from '../../../lib/view/csv';
import { activeFilters, barFraction, gapLabel, gapTitle, nextSort, pageMaxima, parseRolloutView, ROLLOUT_CSV_COLUMNS, rolloutsApiUrl, viewParams } from '../../../lib/view/table';

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

  it('null is no bar at all, 0 is an empty bar, values scale to the maximum', () => {
    expect(barFraction(null, 400)).toBeNull();
    expect(barFraction(undefined, 400)).toBeNull();
    expect(barFraction(0, 400)).toBe(0);
    expect(barFraction(100, 400)).toBe(0.25);
    expect(barFraction(400, 400)).toBe(1);
    expect(barFraction(5, 0)).toBe(0);
    expect(barFraction(500, 400)).toBe(1);
  });
});

describe('gaps', () => {
  it('badges drop the capture prefix; titles explain the code and keep the detail', () => {
    expect(gapLabel('model_call_capture_records_unreadable')).toBe('records_unreadable');
    expect(gapLabel('turns_unavailable')).toBe('turns_unavailable');
    expect(gapTitle({ code: 'model_call_capture_records_unreadable', detail: 'count=2' })).toMatch(/^model_call_capture_records_unreadable: Some capture lines .* \(count=2\)$/);
    expect(gapTitle({ code: 'something_new' })).toContain('does not know');
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
  });
});
