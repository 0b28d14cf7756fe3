// I2 warm restart, A1 pages, A2 compare, raw lines and rollout details by id, K1 task pages, and the RSS after them:
// the queries over an index built before, in one child whose memory is its own.
import { createReadStream } from 'node:fs';
import type { CompareCache } from '../../../lib/index/compare/compare';
import { vmStatus } from '../memory';
import { stringSeeded } from '../random';
import type { Json } from '../report';
import { round, summary } from '../stats';
import { now } from '../time';
import type { ChildParams } from './child';

export async function childQuery(p: ChildParams) {
  const tImport0 = now();
  const { CallscopeIndex } = await import('../../../lib/index/callscope-index');
  const { encodeCursor } = await import('../../../lib/index/queries/rollouts');
  const tImport = now() - tImport0;
  const specs = [{ path: p.corpus! }];

  // I2: warm restart over the unchanged index.
  const t0 = now();
  const index = await CallscopeIndex.open(specs, p.indexDir!);
  const tOpen = now();
  const runs = index.listRuns();
  const tRuns = now();
  const runId = runs.find((r) => r.id === 'bench')?.id ?? runs[0].id;
  const firstPage = index.listRollouts(runId, { sort: 'rollout', order: 'asc', limit: 50 })!;
  const tFirst = now();
  await index.refresh();
  const tReady = now();
  const after = index.listRuns().find((r) => r.id === runId)!;
  const i2 = {
    import_ms: round(tImport),
    open_ms: round(tOpen - t0),
    list_runs_ms: round(tRuns - tOpen),
    first_page_ms: round(tFirst - tRuns),
    first_answer_ms: round(tFirst - t0),
    process_start_to_first_answer_ms: round(tFirst),
    full_refresh_ms: round(tReady - tFirst),
    progress_after_refresh: after.progress,
    first_page_rows: firstPage.rollouts.length,
    total_rollouts: firstPage.total,
    total_calls: after.totals.calls,
  };

  // A2 cold: the first compare after open (a fresh connection and cache each time), then warm.
  const a2cold: number[] = [];
  {
    const t = now();
    index.compare([runId]);
    a2cold.push(now() - t);
  }
  for (let k = 1; k < (p.coldReps ?? 3); k++) {
    const other = await CallscopeIndex.open(specs, p.indexDir!);
    const t = now();
    other.compare([runId]);
    a2cold.push(now() - t);
    other.close();
  }
  const a2warm: number[] = [];
  for (let k = 0; k < (p.reps ?? 30); k++) {
    const t = now();
    index.compare([runId]);
    a2warm.push(now() - t);
  }
  // A2 after a change: what ingest does when one rollout of the run changed (its stored figures dropped and the
  // in-memory ones invalidated for that rollout), then the next compare.
  const a2change: number[] = [];
  {
    const runNo = index.runSource(runId)!.no;
    const pks = index.db.prepare('SELECT pk FROM rollouts WHERE run_no = ?').pluck().all(runNo) as number[];
    const randPk = stringSeeded(`${p.seed}:a2`);
    for (let k = 0; k < (p.reps ?? 30); k++) {
      const pk = pks[Math.floor(randPk() * pks.length)];
      (index as unknown as { compareCache: CompareCache }).compareCache.invalidate(index.db, runNo, [pk]);
      const t = now();
      index.compare([runId]);
      a2change.push(now() - t);
    }
  }

  // A1: pages of 50 for indexed sort keys, both orders, at depth 0 and half way (a cursor found by following
  // next_cursor in pages of 500), with and without filters.
  const servers = after.totals.model_servers;
  const cases: { name: string; query: Record<string, unknown>; indexed: boolean }[] = [];
  for (const sort of ['tokens_total', 'reward', 'latency_max', 'started_at'] as const) {
    for (const order of ['asc', 'desc'] as const) cases.push({ name: `${sort} ${order}`, query: { sort, order }, indexed: true });
  }
  cases.push({ name: 'tokens_total desc, has_errors', query: { sort: 'tokens_total', order: 'desc', has_errors: true }, indexed: true });
  cases.push({ name: 'reward asc, has_errors=false', query: { sort: 'reward', order: 'asc', has_errors: false }, indexed: true });
  if (servers.length) {
    const server = servers[servers.length - 1];
    cases.push({ name: `started_at desc, model_server=${server}`, query: { sort: 'started_at', order: 'desc', model_server: server }, indexed: true });
  }
  cases.push({ name: 'rollout asc (default)', query: { sort: 'rollout', order: 'asc' }, indexed: true });
  cases.push({ name: 'tokens_total desc, q=<text search>', query: { sort: 'tokens_total', order: 'desc', q: 'order' }, indexed: false });
  const reps = p.reps ?? 30;
  const a1: Record<string, Json> = {};
  const walkMs: number[] = [];
  type Q = Parameters<typeof index.listRollouts>[1];
  for (const c of cases) {
    const base = c.query as unknown as Q;
    const time = (q: Q) => {
      const samples: number[] = [];
      let rows = 0;
      for (let k = 0; k < reps; k++) {
        const t = now();
        const page = index.listRollouts(runId, q)!;
        samples.push(now() - t);
        rows = page.rollouts.length;
      }
      return { ...summary(samples), rows };
    };
    const depth0 = time({ ...base, limit: 50 });
    // Follow cursors half way.
    let cursor: string | undefined;
    let seen = 0;
    let total = 0;
    for (;;) {
      const t = now();
      const page = index.listRollouts(runId, { ...base, limit: 500, cursor })!;
      walkMs.push(now() - t);
      total = page.total;
      seen += page.rollouts.length;
      if (!page.next_cursor || seen >= total / 2) {
        cursor = page.next_cursor ?? undefined;
        break;
      }
      cursor = page.next_cursor;
    }
    const deep = cursor ? time({ ...base, limit: 50, cursor }) : null;
    // The same deep position as an encoded cursor must give the same page (keyset consistency check).
    let cursorCheck: boolean | null = null;
    if (cursor && !('model_server' in c.query) && !('has_errors' in c.query) && !('q' in c.query)) {
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [number | string, number];
      const again = index.listRollouts(runId, { ...base, limit: 5, cursor: encodeCursor(decoded[0], decoded[1]) })!;
      const viaWalk = index.listRollouts(runId, { ...base, limit: 5, cursor })!;
      cursorCheck = JSON.stringify(again.rollouts.map((r) => r.pk)) === JSON.stringify(viaWalk.rollouts.map((r) => r.pk));
    }
    a1[c.name] = { indexed: c.indexed, total, depth0, deep_position: seen, deep, cursor_check: cursorCheck };
  }

  // Raw by call id over ordinary corpus calls (small payloads): rawLocation + a read stream of the span.
  const rand = stringSeeded(`${p.seed}:raw`);
  const keys = index.db.prepare('SELECT key FROM rollouts WHERE run_no = (SELECT no FROM runs WHERE id = ?) AND num_calls > 0').pluck().all(runId) as string[];
  const rawSmall: number[] = [];
  let rawSmallBytes = 0;
  const detailMs: number[] = [];
  for (let k = 0; k < Math.min(200, keys.length); k++) {
    const key = keys[Math.floor(rand() * keys.length)];
    const row = index.rollout(runId, key)!;
    const callId = `i${Math.floor(rand() * row.num_calls)}`;
    const t = now();
    const span = index.rawLocation(runId, key, callId);
    if (!span) continue;
    await new Promise<void>((resolve, reject) => {
      const s = createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 });
      s.on('data', (d) => (rawSmallBytes += d.length));
      s.on('end', resolve);
      s.on('error', reject);
    });
    rawSmall.push(now() - t);
    if (k < 50) {
      const t2 = now();
      await index.rolloutDetail(runId, key);
      detailMs.push(now() - t2);
    }
  }

  // K1: the Tasks API's first page. After a pass (here the warm one of a fresh process) the index builds the run's
  // task groups in the background: `after_pass` is the first page once that build is done, `background_build` the
  // build (chunked, yielding), `unbuilt` a first page asked before any build (the request builds them itself).
  // Then the first page of several views (each view's first call sorts once, and is counted).
  const k1AfterPass: number[] = [];
  const k1Build: number[] = [];
  const k1Unbuilt: number[] = [];
  for (let k = 0; k < (p.coldReps ?? 3); k++) {
    const other = await CallscopeIndex.open(specs, p.indexDir!);
    let t = now();
    other.tasks(runId, { sort: 'task', order: 'asc', limit: 100 });
    k1Unbuilt.push(now() - t);
    other.close();
    const fresh = await CallscopeIndex.open(specs, p.indexDir!);
    await fresh.refresh();
    t = now();
    await fresh.tasksBuilt();
    k1Build.push(now() - t);
    t = now();
    fresh.tasks(runId, { sort: 'task', order: 'asc', limit: 100 });
    k1AfterPass.push(now() - t);
    fresh.close();
  }
  const k1: Record<string, Json> = {};
  type TQ = Parameters<typeof index.tasks>[1];
  const taskViews: [string, TQ][] = [
    ['task asc', { sort: 'task', order: 'asc', limit: 100 }],
    ['reward_std desc', { sort: 'reward_std', order: 'desc', limit: 100 }],
    ['pass@1 asc', { sort: 'pass@1', order: 'asc', limit: 100 }],
    ['zero_variance, tokens desc', { sort: 'tokens', order: 'desc', limit: 100, zero_variance: true }],
    ['q=<text>, task asc', { sort: 'task', order: 'asc', limit: 100, q: 'order' }],
  ];
  let tasksTotal = 0;
  for (const [name, q] of taskViews) {
    const samples: number[] = [];
    let rows = 0;
    for (let k = 0; k < reps; k++) {
      const t = now();
      const page = index.tasks(runId, q)!;
      samples.push(now() - t);
      rows = page.agents.reduce((n, a) => n + a.tasks.length, 0);
      tasksTotal = page.agents.reduce((n, a) => n + a.total_tasks, 0);
    }
    k1[name] = { ...summary(samples), rows };
  }
  const k1Agents = index.taskGroups(runId) ?? [];

  const memory = { ...process.memoryUsage(), vm: vmStatus('self'), max_rss_bytes: process.resourceUsage().maxRSS * 1024 };
  index.close();
  return {
    run: runId,
    k1: {
      after_pass: summary(k1AfterPass),
      background_build: summary(k1Build),
      unbuilt: summary(k1Unbuilt),
      views: k1,
      tasks: tasksTotal,
      rollouts_in_groups: k1Agents.reduce((n, a) => n + a.counts.rollouts, 0),
      agents: k1Agents.length,
    },
    i2,
    a1,
    a1_walk_page500: summary(walkMs),
    a2: { cold: summary(a2cold), warm: summary(a2warm), after_change: summary(a2change), cold_ms: a2cold.map((x) => round(x)) },
    raw_small: { ...summary(rawSmall), bytes: rawSmallBytes },
    rollout_detail: summary(detailMs),
    memory,
  };
}
