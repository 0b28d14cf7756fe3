// Two indexes over the same files must answer the same: the SQLite index and the ClickHouse one (or two ClickHouse
// readers). `expectSameJson` reports the JSON path of the first difference; floating-point numbers may differ in
// their last bits (sums taken in another order: latency sums, means), integers and everything else may not.
import { expect } from 'vitest';
import type { IndexReader } from '../../lib/index/reader';

const RELATIVE = 1e-9;

/** The JSON path of the first difference between a and b, or null when they agree (floats to RELATIVE). */
export function firstDifference(a: unknown, b: unknown, at = '$'): string | null {
  if (typeof a === 'number' && typeof b === 'number') {
    if (a === b || (!Number.isInteger(a) || !Number.isInteger(b) ? Math.abs(a - b) <= RELATIVE * Math.max(Math.abs(a), Math.abs(b)) : false)) return null;
    return `${at}: ${a} vs ${b}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${at}: ${a.length} items vs ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join() !== kb.join()) return `${at}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const k of ka) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b || (a === undefined && b === undefined) ? null : `${at}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}

export function expectSameJson(a: unknown, b: unknown, what: string): void {
  const d = firstDifference(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
  expect(d, what).toBeNull();
}

const SORTS = ['rollout', 'reward', 'tokens_total', 'tokens_in', 'calls', 'latency_max', 'latency_sum', 'ttft_p50', 'errors', 'gaps', 'started_at', 'tool_calls', 'turns'] as const;

/**
 * Every reader answer over the runs, both ways: runs, every sort (both orders, every page of 7), filters, tasks and
 * each task, a sample of rollouts with their details, calls, call contexts and payloads, and compare of each pair of
 * neighbouring runs. Returns how many answers were compared.
 */
export async function expectSameAnswers(
  a: IndexReader,
  b: IndexReader,
  { rolloutsPerRun = 12, only, progress = true }: { rolloutsPerRun?: number; only?: string[]; progress?: boolean } = {},
): Promise<number> {
  let n = 0;
  const same = (x: unknown, y: unknown, what: string) => {
    expectSameJson(x, y, what);
    n++;
  };
  // Progress is each process's own (how much it read): compared only when both read the same.
  const strip = (list: Awaited<ReturnType<IndexReader['listRuns']>>) => (progress ? list : list.map(({ progress: _, ...r }) => r));
  const runs = await a.listRuns();
  same(strip(runs), strip(await b.listRuns()), 'runs');
  for (const run of runs.filter((r) => !only || only.includes(r.id))) {
    for (const sort of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        let cursor: string | undefined;
        let page = 0;
        do {
          const q = { sort, order, limit: 7, cursor };
          const pa = await a.listRollouts(run.id, q);
          same(pa, await b.listRollouts(run.id, q), `${run.id} by ${sort} ${order}, page ${page}`);
          cursor = pa?.next_cursor ?? undefined;
          page++;
        } while (cursor && page < 40);
      }
    }
    for (const filter of [{ has_errors: true }, { failed: false }, { reward_min: 0.5 }, { q: 'a' }, { gap: 'model_call_capture_no_records' }, { attempt: 0 }, { line_problem: false }]) {
      const q = { sort: 'reward' as const, order: 'desc' as const, limit: 5, ...filter };
      same(await a.listRollouts(run.id, q), await b.listRollouts(run.id, q), `${run.id} filtered ${JSON.stringify(filter)}`);
    }
    const groups = await a.taskGroups(run.id);
    same(groups, await b.taskGroups(run.id), `${run.id} task groups`);
    const tq = { sort: 'task' as const, order: 'asc' as const, limit: 50 };
    same(await a.tasks(run.id, tq), await b.tasks(run.id, tq), `${run.id} tasks page`);
    for (const agent of groups ?? []) {
      for (const t of agent.tasks.slice(0, 5)) same(await a.task(run.id, agent.agent ?? '', t.task_index), await b.task(run.id, agent.agent ?? '', t.task_index), `${run.id} task ${t.task_index}`);
    }
    const list = (await a.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 10_000 }))!.rollouts;
    const step = Math.max(1, Math.floor(list.length / rolloutsPerRun));
    for (let i = 0; i < list.length; i += step) {
      const key = list[i].key;
      const what = `${run.id}/${key}`;
      same(await a.rollout(run.id, key), await b.rollout(run.id, key), `${what} row`);
      same(await a.rolloutDetail(run.id, key), await b.rolloutDetail(run.id, key), `${what} detail`);
      same(await a.rolloutAttempts(run.id, key), await b.rolloutAttempts(run.id, key), `${what} attempts`);
      same(await a.bestOfTask(run.id, key), await b.bestOfTask(run.id, key), `${what} best of task`);
      same(await a.lineLocation(run.id, key), await b.lineLocation(run.id, key), `${what} line`);
      const calls = await a.rolloutCalls(run.id, key);
      same(calls, await b.rolloutCalls(run.id, key), `${what} calls`);
      same(await a.callLocations(run.id, key), await b.callLocations(run.id, key), `${what} call locations`);
      for (const c of (calls ?? []).slice(0, 4)) {
        const id = c.model_call_id ?? `i${c.call_index}`;
        same(await a.callContext(run.id, key, id), await b.callContext(run.id, key, id), `${what} call ${id} context`);
        same(await a.callDetail(run.id, key, id), await b.callDetail(run.id, key, id), `${what} call ${id} detail`);
        same(await a.rawLocation(run.id, key, id), await b.rawLocation(run.id, key, id), `${what} call ${id} raw`);
      }
    }
  }
  const compared = runs.filter((r) => !only || only.includes(r.id));
  for (let i = 0; i + 1 < compared.length; i++) {
    const ids = [compared[i].id, compared[i + 1].id];
    same(await a.compare(ids), await b.compare(ids), `compare ${ids.join(' ')}`);
  }
  for (const unknown of [['nope', 'x'], [runs[0]?.id ?? 'nope', 'no-such-rollout']]) {
    same(await a.rollout(unknown[0], unknown[1]), await b.rollout(unknown[0], unknown[1]), `unknown ${unknown.join('/')}`);
  }
  return n;
}
