// The runs page's preparers: what a search, an agent filter and a sort keep and in which order, what every run
// shares (said once), and calls/errors of runs without capture evidence shown as unknown, never 0.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../lib/api/schemas';
import { agentOptions, capturedCount, commonIdPrefix, nextRunSort, RUN_SORT_KEYS, runSortValue, RunsViewSchema, selectRuns, sharedFacts } from '../../../lib/view/runs';

function run(id: string, over: Partial<Run['totals']> = {}, source: Partial<Run> = {}): Run {
  return {
    id,
    rollouts_file: `/data/${id}.jsonl`,
    failures_file: null,
    capture_dir: null,
    capture_dir_note: null,
    reward_profile_file: null,
    aggregate_metrics_file: null,
    progress: { state: 'ready', files_read: 1, bytes_read: 1, lines_read: 1, error: null },
    totals: {
      rollouts: 10, failed: 0, calls: 0, tokens_in: null, tokens_out: null, tokens_reasoning: null, tokens_total: null, cached_tokens: null, latency_sum: null,
      errors: 0, gaps: 0, line_problems: 0, uncaptured: 10, mean_reward: null, model_servers: [], agents: [], response_usage: null, ...over,
    },
    ...source,
  };
}

const view = (v: Partial<ReturnType<typeof RunsViewSchema.parse>> = {}) => RunsViewSchema.parse(v);
const ids = (rs: Run[]) => rs.map((r) => r.id);

const RUNS = [
  run('sweep-tau2-seed-10', { agents: ['tau2_benchmark_agent'], mean_reward: 0.5, calls: 4, uncaptured: 0 }),
  run('sweep-tau2-seed-9', { agents: ['tau2_benchmark_agent'], mean_reward: null }),
  run('sweep-math-seed-1', { agents: ['math_with_judge_hermes_agent', 'string_match_simple_agent'], mean_reward: 1, calls: 12, uncaptured: 2 }),
  run('sweep-mcqa-seed-1', { mean_reward: 0.25 }),
];

describe('selectRuns', () => {
  it('searches run names and agents by every word, case-insensitively, and filters by one agent', () => {
    expect(ids(selectRuns(RUNS, view({ q: 'TAU2' })))).toEqual(['sweep-tau2-seed-9', 'sweep-tau2-seed-10']);
    expect(ids(selectRuns(RUNS, view({ q: 'hermes' })))).toEqual(['sweep-math-seed-1']);
    expect(ids(selectRuns(RUNS, view({ q: 'seed-1 mcqa' })))).toEqual(['sweep-mcqa-seed-1']);
    expect(ids(selectRuns(RUNS, view({ agent: 'string_match_simple_agent' })))).toEqual(['sweep-math-seed-1']);
    expect(ids(selectRuns(RUNS, view({ agent: 'tau2_benchmark_agent', q: '10' })))).toEqual(['sweep-tau2-seed-10']);
    expect(selectRuns(RUNS, view({ q: 'nothing-like-it' }))).toEqual([]);
  });

  it('sorts names in natural order, numbers by value, and unknown below every value in both orders', () => {
    expect(ids(selectRuns(RUNS, view()))).toEqual(['sweep-math-seed-1', 'sweep-mcqa-seed-1', 'sweep-tau2-seed-9', 'sweep-tau2-seed-10']);
    expect(ids(selectRuns(RUNS, view({ sort: 'mean_reward', order: 'desc' })))).toEqual(['sweep-math-seed-1', 'sweep-tau2-seed-10', 'sweep-mcqa-seed-1', 'sweep-tau2-seed-9']);
    expect(ids(selectRuns(RUNS, view({ sort: 'mean_reward', order: 'asc' })))).toEqual(['sweep-tau2-seed-9', 'sweep-mcqa-seed-1', 'sweep-tau2-seed-10', 'sweep-math-seed-1']);
    // Calls of runs with no capture evidence are unknown, not 0: below the run with 4.
    expect(ids(selectRuns(RUNS, view({ sort: 'calls', order: 'desc' })))).toEqual(['sweep-math-seed-1', 'sweep-tau2-seed-10', 'sweep-mcqa-seed-1', 'sweep-tau2-seed-9']);
  });

  it('has a sort value for every column, and a header click sorts names A→Z and numbers high first, then flips', () => {
    for (const key of RUN_SORT_KEYS) for (const r of RUNS) expect(['string', 'number', 'object']).toContain(typeof runSortValue(r, key));
    expect(nextRunSort({ sort: 'run', order: 'asc' }, 'tokens_total')).toEqual({ sort: 'tokens_total', order: 'desc' });
    expect(nextRunSort({ sort: 'tokens_total', order: 'desc' }, 'tokens_total')).toEqual({ sort: 'tokens_total', order: 'asc' });
    expect(nextRunSort({ sort: 'calls', order: 'desc' }, 'agents')).toEqual({ sort: 'agents', order: 'asc' });
  });

  it("sorts tokens by the figures shown: a run without calls by its lines' response.usage", () => {
    const usage = { rollouts: 3, tokens_in: 900, tokens_out: 1, tokens_reasoning: null, cached_tokens: null, tokens_total: 901 };
    const a = run('a', { calls: 0, tokens_in: null, response_usage: usage });
    const b = run('b', { calls: 5, tokens_in: 100, uncaptured: 0 });
    expect(ids(selectRuns([b, a], view({ sort: 'tokens_in', order: 'desc' })))).toEqual(['a', 'b']);
  });
});

describe('sharedFacts', () => {
  it('says once what every run has, and nothing when they differ or there is one run', () => {
    const same = [run('x-a', { model_servers: ['policy_model'] }), run('x-b', { model_servers: ['policy_model'] })];
    expect(sharedFacts(same)).toEqual({ model_servers: ['policy_model'], agents: [], rollouts_only: 2, capture_only: false, id_prefix: 'x-' });
    const mixed = [...same, run('y', { model_servers: ['judge', 'policy_model'], agents: ['a'] }, { capture_dir: '/c' })];
    expect(sharedFacts(mixed)).toEqual({ model_servers: null, agents: null, rollouts_only: 2, capture_only: false, id_prefix: '' });
    const captured = [run('c-1', {}, { capture_dir: '/c1' }), run('c-2', {}, { capture_dir: '/c2' }), run('r-1')];
    expect(sharedFacts(captured).rollouts_only).toBe(0); // a minority keeps its chip on its rows
    expect(sharedFacts([run('only')])).toEqual({ model_servers: null, agents: null, rollouts_only: 0, capture_only: false, id_prefix: '' });
  });

  it('lists the agents with their run counts', () => {
    expect(agentOptions(RUNS)).toEqual([
      { agent: 'math_with_judge_hermes_agent', runs: 1 },
      { agent: 'string_match_simple_agent', runs: 1 },
      { agent: 'tau2_benchmark_agent', runs: 2 },
    ]);
  });
});

describe('commonIdPrefix', () => {
  it('ends at a separator and leaves every id a distinguishing part', () => {
    expect(commonIdPrefix(['sweep-tau2-seed-10', 'sweep-tau2-seed-9'])).toBe('sweep-tau2-seed-');
    expect(commonIdPrefix(['sweep-tau2', 'sweep-tau20'])).toBe('sweep-');
    expect(commonIdPrefix(['run-a', 'run-a.b'])).toBe('run-');
    expect(commonIdPrefix(['a-b', 'a-b-c'])).toBe('a-');
    expect(commonIdPrefix(['abc', 'abd'])).toBe('');
    expect(commonIdPrefix(['one'])).toBe('');
  });
});

describe('capturedCount', () => {
  it('shows calls and errors as unknown when no rollout has capture evidence, and how many are unknown when some have none', () => {
    expect(capturedCount(0, run('r', { uncaptured: 10 }), 'calls')).toMatchObject({ text: 'unknown', unknown: true });
    expect(capturedCount(1234, run('r', { rollouts: 100, uncaptured: 12 }), 'calls')).toMatchObject({ text: '1,234 (+12 unknown)', unknown: false });
    expect(capturedCount(1234, run('r', { rollouts: 100, uncaptured: 12 }), 'calls').title).toContain('88 rollouts with capture evidence');
    expect(capturedCount(3, run('r', { uncaptured: 0 }), 'errors')).toMatchObject({ text: '3', unknown: false });
    expect(capturedCount(0, run('r', { rollouts: 0, uncaptured: 0 }), 'calls')).toMatchObject({ text: '0', unknown: false });
  });
});
