// I3: calls appended to the corpus at a fixed rate, and the time until each is visible in the list of rollouts;
// in-process here (CallscopeIndex + IndexWatcher), through `serve`'s list API in server.ts.
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { vmStatus } from '../memory';
import { hex, stringSeeded } from '../random';
import { round, summary } from '../stats';
import { now, sleep } from '../time';
import type { ChildParams } from './child';
import { captureDirsOf, cleanLive, LIVE_PREFIX, templateLines } from './corpus';

/** One poll of the list of rollouts (sorted by started_at desc). */
type LivePoll = () => Promise<{ key: string; num_calls: number }[]>;

/**
 * Appends capture lines at a fixed rate to LIVE rollouts (new capture files whose calls start after every
 * corpus call, so they lead the list sorted by started_at desc), and polls that list page: a call is visible
 * once its rollout's num_calls counts it. Latency is measured to the end of the poll that first showed it.
 */
export async function liveAppends(fetchPage: LivePoll, linesRead: () => Promise<number>, corpus: string, opts: { rate: number; seconds: number; seed: string }) {
  const dir = captureDirsOf(corpus)[0];
  const templates = templateLines(corpus, 16);
  const rand = stringSeeded(`${opts.seed}:live`);
  const LIVE = 50;
  const fds: number[] = [];
  const appendedAt: number[][] = Array.from({ length: LIVE }, () => []);
  const seen = new Array<number>(LIVE).fill(0);
  const latencies: number[] = [];
  const pollMs: number[] = [];
  let seq = 0;
  const lineFor = (r: number) => {
    const tpl = templates[seq % templates.length];
    const start = 4_000_000_000 + r * 10 + appendedAt[r].length * 1e-3;
    seq++;
    return Buffer.from(JSON.stringify({ ...tpl, model_call_id: hex(rand), started_at: start, completed_at: start + 0.5 }) + '\n');
  };
  const append = (r: number) => {
    writeSync(fds[r], lineFor(r));
    appendedAt[r].push(now());
  };
  let polling = true;
  let lastVisibleAt = 0;
  const poll = async (record: boolean) => {
    while (polling) {
      const t = now();
      const rows = await fetchPage();
      const at = now();
      pollMs.push(at - t);
      for (const row of rows) {
        if (!row.key.startsWith(LIVE_PREFIX)) continue;
        const r = Number(row.key.slice(LIVE_PREFIX.length));
        const n = Math.min(row.num_calls, appendedAt[r].length);
        for (let j = seen[r]; j < n; j++) {
          if (record) latencies.push(at - appendedAt[r][j]);
          lastVisibleAt = at;
        }
        seen[r] = Math.max(seen[r], n);
      }
      await sleep(5);
    }
  };
  const total = () => appendedAt.reduce((a, x) => a + x.length, 0);
  const visible = () => seen.reduce((a, x) => a + x, 0);
  try {
    // Warm-up: create the live files (one call each) and wait until the watcher has shown all of them.
    const tw = now();
    for (let r = 0; r < LIVE; r++) {
      fds.push(openSync(path.join(dir, `${LIVE_PREFIX}${r}.capture.jsonl`), 'a'));
      append(r);
    }
    let poller = poll(false);
    while (visible() < total() && now() - tw < 120_000) await sleep(20);
    const warmupMs = now() - tw;
    const warmupComplete = visible() === total();
    polling = false;
    await poller;
    polling = true;
    // Measured phase: a fixed rate, spread over the live rollouts round robin.
    const before = total();
    const seenBefore = visible();
    const linesBefore = await linesRead();
    poller = poll(true);
    const t0 = now();
    let next = 0;
    const goal = Math.round(opts.rate * opts.seconds);
    let appended = 0;
    while (appended < goal) {
      const due = Math.min(goal, Math.floor(((now() - t0) / 1000) * opts.rate));
      while (appended < due) append(appended++ % LIVE);
      next += 10;
      const wait = t0 + next - now();
      if (wait > 0) await sleep(wait);
    }
    const tAppendEnd = now();
    while (visible() < total() && now() - tAppendEnd < 60_000) await sleep(10);
    polling = false;
    await poller;
    const appendedCalls = total() - before;
    const visibleCalls = visible() - seenBefore;
    await sleep(500);
    const linesDelta = (await linesRead()) - linesBefore;
    const span = (lastVisibleAt - t0) / 1000;
    const third = Math.floor(latencies.length / 3);
    return {
      live_rollouts: LIVE,
      warmup_ms: round(warmupMs),
      warmup_complete: warmupComplete,
      target_rate: opts.rate,
      seconds: opts.seconds,
      appended: appendedCalls,
      visible: visibleCalls,
      append_seconds: round((tAppendEnd - t0) / 1000),
      append_rate: round(appendedCalls / ((tAppendEnd - t0) / 1000)),
      sustained_rate: round(visibleCalls / span),
      latency_ms: summary(latencies),
      latency_last_third_ms: summary(latencies.slice(2 * third)),
      poll_round_trip_ms: summary(pollMs),
      lines_read_by_index: linesDelta,
      lines_read_per_appended_line: round(linesDelta / appendedCalls),
    };
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** I3 without the HTTP layer: CallscopeIndex + IndexWatcher in one process, polling listRollouts directly. */
export async function childLive(p: ChildParams) {
  const { CallscopeIndex } = await import('../../../lib/index/callscope-index');
  const { IndexWatcher } = await import('../../../lib/index/sources/watcher');
  const index = await CallscopeIndex.open([{ path: p.corpus! }], p.indexDir!);
  const watcher = new IndexWatcher(index);
  const t0 = now();
  watcher.start();
  await index.refresh();
  const refreshMs = now() - t0;
  const run = index.listRuns().find((r) => r.id === 'bench')?.id ?? index.listRuns()[0].id;
  try {
    const live = await liveAppends(
      async () => index.listRollouts(run, { sort: 'started_at', order: 'desc', limit: 60 })!.rollouts,
      async () => index.listRuns().reduce((a, r) => a + r.progress.lines_read, 0),
      p.corpus!,
      { rate: p.live!.rate, seconds: p.live!.seconds, seed: p.seed! },
    );
    return { warm_refresh_ms: round(refreshMs), ...live, memory: { ...process.memoryUsage(), vm: vmStatus('self') } };
  } finally {
    await watcher.close();
    index.close();
    cleanLive(p.corpus!);
  }
}
