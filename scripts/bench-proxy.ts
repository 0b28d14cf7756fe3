// `npm run bench:proxy [-- --soak SECONDS --seed N --quick]`: targets.md P1, P3, P5 and P6 for the capture
// proxy, measured side by side in one run on loopback. Three targets get the same requests in a seeded
// interleaved order: the mock upstream called directly, a bare node:http + undici pass-through (below, no
// capture), and the real `callscope proxy` command capturing into a temporary dir. Each runs in its own
// process, so that no target's work lands on another's event loop. Prints a table and writes
// reports/bench-proxy.json with the machine, Node version, commit, seed and every figure.
//
// One function per target of targets.md (measureP1, measureP3, measureP5, measureP6), each returning its section
// of the report and its lines of the table; main starts the processes, runs them in that order and writes both.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fdatasyncSync, ftruncateSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { clientResponseHeaders, upstreamRequestHeaders } from '../lib/proxy/headers';
import { MockUpstream, sseEvent } from '../tests/support/mock-upstream';
import { cpuModel, gitCommit, gitDirtyPaths, loadAverage } from './bench/machine';
import { rssMb } from './bench/memory';
import { ROOT } from './bench/paths';
import { startChild } from './bench/process';
import { mulberry32, shuffled } from './bench/random';
import { writeReport } from './bench/report';
import { pct, round as r3, shortSummary as stats } from './bench/stats';
import { columns as row } from './bench/table';
import { sleep } from './bench/time';

const SELF = fileURLToPath(import.meta.url);
const { values: opts } = parseArgs({
  options: {
    role: { type: 'string' },
    upstream: { type: 'string' },
    soak: { type: 'string', default: '60' },
    seed: { type: 'string', default: '20260822' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(ROOT, 'reports', 'bench-proxy.json') },
  },
});

// --- the processes under test ----------------------------------------------------------------------------

const WORDS = ['the', 'agent', 'calls', 'tool', 'résumé', 'naïve', 'Zürich', '東京', 'weather', 'patch', 'diff', 'test', 'passes', 'because', 'ok'];
function text(rng: () => number, bytes: number): string {
  let s = '';
  while (Buffer.byteLength(s) < bytes) s += WORDS[Math.floor(rng() * WORDS.length)] + ' ';
  return s;
}

/** An LLM-shaped chat request of about `bytes` bytes: a conversation that grew turn by turn. */
function chatRequest(rng: () => number, bytes: number): Buffer {
  const messages: object[] = [{ role: 'system', content: text(rng, 2000) }];
  while (Buffer.byteLength(JSON.stringify(messages)) < bytes - 400) {
    messages.push({ role: 'user', content: text(rng, 3000) }, { role: 'assistant', content: text(rng, 1500), reasoning_content: text(rng, 300) });
  }
  return Buffer.from(JSON.stringify({ model: 'gpt-4.1', messages, temperature: 1.0, max_tokens: 1024, stream: false }));
}

function chatResponse(rng: () => number, bytes: number): string {
  const content = text(rng, bytes - 420);
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1786032153,
    model: 'gpt-4.1-2025-04-14',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12000, completion_tokens: 500, total_tokens: 12500, prompt_tokens_details: { cached_tokens: 11000 } },
  });
}

function chatStream(events: number): string[] {
  const base = { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1786032153, model: 'gpt-4.1-2025-04-14' };
  const out = [sseEvent(null, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })];
  for (let i = 0; i < events; i++) out.push(sseEvent(null, { ...base, choices: [{ index: 0, delta: { content: `token ${i} ` }, finish_reason: null }] }));
  out.push(sseEvent(null, { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: events, total_tokens: 10 + events } }), 'data: [DONE]\n\n');
  return out;
}

async function runUpstream(seed: number): Promise<void> {
  const rng = mulberry32(seed ^ 0x5eed);
  const mock = new MockUpstream();
  mock.logLimit = 0;
  const json = [['content-type', 'application/json']] as [string, string][];
  const sse = [['content-type', 'text/event-stream']] as [string, string][];
  mock
    .set('json-2k', { headers: json, chunks: [chatResponse(rng, 2048)], contentLength: true })
    .set('stream-fast', { headers: sse, chunks: chatStream(10), delayMs: 0 })
    .set('stream-spaced', { headers: sse, chunks: chatStream(20), delayMs: 1 })
    .set('stream-long', { headers: sse, chunks: chatStream(50), delayMs: 20 });
  await mock.start();
  process.stdout.write(JSON.stringify({ url: mock.url }) + '\n');
}

/** The bare pass-through: what a Node user would write without capture. Same hop-by-hop rules. */
async function runBare(upstream: string): Promise<void> {
  const pool = new Pool(upstream, { connections: null, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 4_000 });
  const server = http.createServer({ requestTimeout: 0 }, (req, res) => {
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    pool
      .request({ path: req.url!, method: req.method as 'POST', headers: upstreamRequestHeaders(req.rawHeaders), body: hasBody ? req : null })
      .then(({ statusCode, headers, body }) => {
        const raw: string[] = [];
        for (const [k, v] of Object.entries(headers)) for (const x of Array.isArray(v) ? v : [v!]) raw.push(k, x);
        res.sendDate = false;
        res.writeHead(statusCode, clientResponseHeaders(raw));
        res.flushHeaders();
        body.on('data', (c: Buffer) => {
          if (!res.write(c)) {
            body.pause();
            res.once('drain', () => body.resume());
          }
        });
        body.on('end', () => res.end());
        body.on('error', () => res.destroy());
      })
      .catch(() => {
        res.writeHead(502).end();
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }) + '\n');
}

// --- measuring -------------------------------------------------------------------------------------------

type Target = 'direct' | 'bare' | 'capture';
const TARGETS: Target[] = ['direct', 'bare', 'capture'];
type Stats = ReturnType<typeof stats>;

interface CallResult {
  totalMs: number;
  ttfbMs: number;
  chunks: number;
  gaps: number[];
}

async function call(pool: Pool, pathname: string, scenario: string, body: Buffer | null): Promise<CallResult> {
  const t0 = performance.now();
  const res = await pool.request({
    path: pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', 'x-mock-scenario': scenario },
    body,
  });
  let ttfbMs = -1;
  let chunks = 0;
  let last = 0;
  const gaps: number[] = [];
  for await (const _ of res.body) {
    const now = performance.now();
    if (ttfbMs < 0) ttfbMs = now - t0;
    else gaps.push(now - last);
    last = now;
    chunks++;
  }
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  return { totalMs: performance.now() - t0, ttfbMs, chunks, gaps };
}

/** What every target's measurement shares: the three processes, their pools and the requests they are sent. */
interface Bench {
  url: Record<Target, string>;
  /** One keep-alive connection per target (concurrency 1). */
  pools: Record<Target, Pool>;
  pathFor: (t: Target, rollout: string) => string;
  rng: () => number;
  captureDir: string;
  capturePid: number;
  quick: boolean;
  request50k: Buffer;
  request5k: Buffer;
  log: (s: string) => void;
}

const added = (x: Record<Target, Stats>, t: Target) => ({ p50: r3(x[t].p50 - x.direct.p50), p99: r3(x[t].p99 - x.direct.p99) });

/** P1: non-streaming, concurrency 1, with one fdatasync of the capture dir's disk per round. */
async function measureP1(b: Bench) {
  const { pools, pathFor, rng, captureDir } = b;
  const p1Rounds = b.quick ? 300 : 2000;
  const p1: Record<Target, number[]> = { direct: [], bare: [], capture: [] };
  const fsyncMs: number[] = [];
  const probe = openSync(path.join(captureDir, 'fdatasync-probe'), 'a');
  const line2k = Buffer.alloc(2048, 0x61);
  // A second reference: a durable append of as many bytes as the proxy's capture line for this call (write +
  // fdatasync), since what the spec makes the proxy wait for is that line being on disk, not 2 KB.
  const lineMs: number[] = [];
  const lineProbe = openSync(path.join(captureDir, 'line-probe'), 'a');
  let lineSized: Buffer | null = null;
  b.log(`P1: ${p1Rounds} rounds`);
  for (let round = -200; round < p1Rounds; round++) {
    for (const t of shuffled(TARGETS, rng)) {
      const r = await call(pools[t], pathFor(t, 'p1-0'), 'json-2k', b.request50k);
      if (round >= 0) p1[t].push(r.totalMs);
    }
    writeSync(probe, line2k);
    const f0 = performance.now();
    fdatasyncSync(probe);
    if (round >= 0) fsyncMs.push(performance.now() - f0);
    if (round % 500 === 0) ftruncateSync(probe, 0);
    lineSized ??= Buffer.alloc(readFileSync(path.join(captureDir, 'p1-0.capture.jsonl')).indexOf(10) + 1, 0x61);
    const l0 = performance.now();
    writeSync(lineProbe, lineSized);
    fdatasyncSync(lineProbe);
    if (round >= 0) lineMs.push(performance.now() - l0);
    if (round % 100 === 0) ftruncateSync(lineProbe, 0);
  }
  closeSync(probe);
  closeSync(lineProbe);
  unlinkSync(path.join(captureDir, 'fdatasync-probe'));
  unlinkSync(path.join(captureDir, 'line-probe'));

  const s1 = Object.fromEntries(TARGETS.map((t) => [t, stats(p1[t])])) as Record<Target, Stats>;
  const fs1 = stats(fsyncMs);
  const p1Added = { bare: added(s1, 'bare'), capture: added(s1, 'capture') };
  const beyond = { p50: r3(p1Added.capture.p50 - fs1.p50), p99: r3(p1Added.capture.p99 - fs1.p99) };
  const fsLine = stats(lineMs);
  const beyondLine = { p50: r3(p1Added.capture.p50 - fsLine.p50), p99: r3(p1Added.capture.p99 - fsLine.p99) };
  const section = {
    what: 'non-streaming chat call, concurrency 1, 50 KB request / 2 KB response; one fdatasync (2 KB write) of the capture dir per round',
    latencyMs: s1,
    addedMs: p1Added,
    fdatasyncMs: fs1,
    captureBeyondFdatasyncMs: beyond,
    ratioBeyondFdatasyncToBareAdded: { p50: r3(beyond.p50 / p1Added.bare.p50), p99: r3(beyond.p99 / p1Added.bare.p99) },
    targets: {
      p50: `added p50 <= 0.5 + fdatasync p50 (${r3(0.5 + fs1.p50)}): ${p1Added.capture.p50 <= 0.5 + fs1.p50 ? 'met' : 'missed'}`,
      p99: `added p99 <= 2 + fdatasync p99 (${r3(2 + fs1.p99)}): ${p1Added.capture.p99 <= 2 + fs1.p99 ? 'met' : 'missed'}`,
      beyond: `beyond-fdatasync p50 <= 1.5 x bare added p50: ${beyond.p50 <= 1.5 * p1Added.bare.p50 ? 'met' : 'missed'}`,
    },
    lineSizedReference: {
      what: `the same targets with "one fdatasync" measured as a durable append of a line as long as this call's capture line (${lineSized?.length ?? 0} bytes: write + fdatasync)`,
      lineBytes: lineSized?.length ?? 0,
      durableAppendMs: fsLine,
      captureBeyondDurableAppendMs: beyondLine,
      ratioBeyondToBareAdded: { p50: r3(beyondLine.p50 / p1Added.bare.p50), p99: r3(beyondLine.p99 / p1Added.bare.p99) },
      targets: {
        p50: `added p50 <= 0.5 + durable append p50 (${r3(0.5 + fsLine.p50)}): ${p1Added.capture.p50 <= 0.5 + fsLine.p50 ? 'met' : 'missed'}`,
        p99: `added p99 <= 2 + durable append p99 (${r3(2 + fsLine.p99)}): ${p1Added.capture.p99 <= 2 + fsLine.p99 ? 'met' : 'missed'}`,
        beyond: `beyond-append p50 <= 1.5 x bare added p50: ${beyondLine.p50 <= 1.5 * p1Added.bare.p50 ? 'met' : 'missed'}`,
      },
    },
  };
  const lines = [
    `P1 non-streaming, c=1, 50 KB req / 2 KB resp (${p1Rounds} rounds)`,
    row('', 'p50 ms', 'p99 ms', 'added p50', 'added p99'),
    row('direct', s1.direct.p50, s1.direct.p99, '', ''),
    row('bare pass-through', s1.bare.p50, s1.bare.p99, p1Added.bare.p50, p1Added.bare.p99),
    row('capture proxy', s1.capture.p50, s1.capture.p99, p1Added.capture.p50, p1Added.capture.p99),
    row('fdatasync (capture dir)', fs1.p50, fs1.p99, '', ''),
    row('capture beyond fdatasync', '', '', beyond.p50, beyond.p99),
    row('  ÷ bare added', '', '', section.ratioBeyondFdatasyncToBareAdded.p50, section.ratioBeyondFdatasyncToBareAdded.p99),
    row(`durable ${lineSized?.length ?? 0} B append`, fsLine.p50, fsLine.p99, '', ''),
    row('capture beyond that append', '', '', beyondLine.p50, beyondLine.p99),
    row('  ÷ bare added', '', '', section.lineSizedReference.ratioBeyondToBareAdded.p50, section.lineSizedReference.ratioBeyondToBareAdded.p99),
  ];
  return { section, lines };
}

/** P3: streaming time to first byte at concurrency 1, chunk counts with spaced events, and 512 concurrent streams. */
async function measureP3(b: Bench) {
  const { pools, pathFor, rng, url, request5k } = b;
  const p3Rounds = b.quick ? 200 : 1000;
  const p3: Record<Target, number[]> = { direct: [], bare: [], capture: [] };
  b.log(`P3: ${p3Rounds} rounds`);
  for (let round = -100; round < p3Rounds; round++) {
    for (const t of shuffled(TARGETS, rng)) {
      const r = await call(pools[t], pathFor(t, 'p3-0'), 'stream-fast', request5k);
      if (round >= 0) p3[t].push(r.ttfbMs);
    }
  }
  const chunkCounts: Record<Target, number[]> = { direct: [], bare: [], capture: [] };
  for (let round = 0; round < 30; round++) {
    for (const t of shuffled(TARGETS, rng)) chunkCounts[t].push((await call(pools[t], pathFor(t, 'p3-1'), 'stream-spaced', request5k)).chunks);
  }

  // 512 concurrent streams (50 events, 20 ms apart), through the capture proxy and directly.
  const concurrentStreams = 512;
  const p3c: Record<string, { gaps: number[]; seconds: number; completed: number }> = {};
  for (const t of ['direct', 'capture'] as Target[]) {
    const pool = new Pool(url[t], { connections: concurrentStreams + 16 });
    const t0 = performance.now();
    const results = await Promise.allSettled(Array.from({ length: concurrentStreams }, (_, i) => call(pool, pathFor(t, `p3c-${i % 64}`), 'stream-long', request5k)));
    const ok = results.filter((r): r is PromiseFulfilledResult<CallResult> => r.status === 'fulfilled');
    p3c[t] = { gaps: ok.flatMap((r) => r.value.gaps), seconds: (performance.now() - t0) / 1000, completed: ok.length };
    await pool.close();
  }
  await sleep(500);
  let p3cLines = 0;
  for (const f of readdirSync(b.captureDir)) if (f.startsWith('p3c-')) p3cLines += readFileSync(path.join(b.captureDir, f), 'utf8').split('\n').filter(Boolean).length;

  const s3 = Object.fromEntries(TARGETS.map((t) => [t, stats(p3[t])])) as Record<Target, Stats>;
  const p3Added = { bare: added(s3, 'bare'), capture: added(s3, 'capture') };
  const section = {
    what: 'streaming chat call (13 events), concurrency 1: time to the first body byte; body chunks the client saw for 23 events sent 1 ms apart; 512 concurrent 1 s streams (53 events, 20 ms apart)',
    ttfbMs: s3,
    addedTtfbMs: p3Added,
    chunksPerCall23Events: Object.fromEntries(TARGETS.map((t) => [t, stats(chunkCounts[t])])),
    concurrent: Object.fromEntries(Object.entries(p3c).map(([t, v]) => [t, { streams: concurrentStreams, completed: v.completed, seconds: r3(v.seconds), interChunkGapMs: stats(v.gaps) }])),
    concurrentCapturedLines: p3cLines,
    targets: {
      ttfb: `added p50 <= 0.5 (${p3Added.capture.p50}), p99 <= 2 (${p3Added.capture.p99}): ${p3Added.capture.p50 <= 0.5 && p3Added.capture.p99 <= 2 ? 'met' : 'missed'}`,
      concurrent: `512 streams, all completed and captured, max gap ${r3(Math.max(...p3c.capture.gaps))} ms: ${p3c.capture.completed === concurrentStreams && p3cLines === concurrentStreams && Math.max(...p3c.capture.gaps) < 1000 ? 'met (no stall)' : 'missed'}`,
    },
  };
  const lines = [
    `P3 streaming time to first byte, c=1 (${p3Rounds} rounds)`,
    row('', 'p50 ms', 'p99 ms', 'added p50', 'added p99'),
    row('direct', s3.direct.p50, s3.direct.p99, '', ''),
    row('bare pass-through', s3.bare.p50, s3.bare.p99, p3Added.bare.p50, p3Added.bare.p99),
    row('capture proxy', s3.capture.p50, s3.capture.p99, p3Added.capture.p50, p3Added.capture.p99),
    row('chunks/call (23 events)', ...TARGETS.map((t) => `${t} ${pct(chunkCounts[t], 0.5)}`)),
    row(`${concurrentStreams} concurrent streams`, 'completed', 'gap p50', 'gap p99', 'gap max'),
    ...Object.entries(p3c).map(([t, v]) => row(`  ${t}`, v.completed, r3(pct(v.gaps, 0.5)), r3(pct(v.gaps, 0.99)), r3(Math.max(...v.gaps)))),
    row('  captured lines', p3cLines),
  ];
  return { section, lines };
}

/** P5: closed-loop throughput at 50 KB requests, windows interleaved across targets. */
async function measureP5(b: Bench) {
  const concurrency = 32;
  const windows = b.quick ? 2 : 4;
  const windowSeconds = b.quick ? 2 : 4;
  const p5: Record<Target, { requests: number; seconds: number }> = { direct: { requests: 0, seconds: 0 }, bare: { requests: 0, seconds: 0 }, capture: { requests: 0, seconds: 0 } };
  b.log(`P5: ${windows} windows x ${windowSeconds} s per target, concurrency ${concurrency}`);
  for (let w = 0; w < windows; w++) {
    for (const t of shuffled(TARGETS, b.rng)) {
      const pool = new Pool(b.url[t], { connections: concurrency });
      const end = performance.now() + windowSeconds * 1000;
      const t0 = performance.now();
      let done = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async (_, k) => {
          while (performance.now() < end) {
            await call(pool, b.pathFor(t, `p5-${k}`), 'json-2k', b.request50k);
            done++;
          }
        }),
      );
      p5[t].requests += done;
      p5[t].seconds += (performance.now() - t0) / 1000;
      await pool.close();
    }
    for (const f of readdirSync(b.captureDir)) if (f.startsWith('p5-')) rmSync(path.join(b.captureDir, f));
  }
  const rps = (t: Target) => p5[t].requests / p5[t].seconds;
  const section = {
    what: `closed loop, concurrency ${concurrency}, 50 KB request / 2 KB response, ${windows} interleaved windows of ${windowSeconds} s per target; one rollout per client`,
    requestsPerSecond: Object.fromEntries(TARGETS.map((t) => [t, r3(rps(t))])),
    requestMBPerSecond: Object.fromEntries(TARGETS.map((t) => [t, r3((rps(t) * b.request50k.length) / 1e6)])),
    ratioCaptureToBare: r3(rps('capture') / rps('bare')),
    targets: { throughput: `capture >= 50% of bare: ${rps('capture') >= 0.5 * rps('bare') ? 'met' : 'missed'}` },
  };
  const lines = [
    `P5 throughput, c=${concurrency}, 50 KB requests`,
    row('', 'req/s', 'req MB/s'),
    ...TARGETS.map((t) => row(t, r3(rps(t)), section.requestMBPerSecond[t])),
    row('capture ÷ bare', section.ratioCaptureToBare),
  ];
  return { section, lines };
}

/** P6: RSS of the capture proxy: idle (measured after its start), then over a soak of steady mixed load. */
async function measureP6(b: Bench, soakSeconds: number, idle: { idleRssMb: number; baselineRssMb: { node: number; nodeWithTsx: number } }) {
  const { captureDir, capturePid } = b;
  b.log(`P6: soak ${soakSeconds} s`);
  const soakPool = new Pool(b.url.capture, { connections: 8 });
  const samples: { s: number; rssMb: number }[] = [];
  const soakStart = performance.now();
  const soakEnd = soakStart + soakSeconds * 1000;
  let soakCalls = 0;
  const sampler = setInterval(() => {
    samples.push({ s: r3((performance.now() - soakStart) / 1000), rssMb: r3(rssMb(capturePid)) });
    for (const f of readdirSync(captureDir)) if (f.startsWith('soak-')) rmSync(path.join(captureDir, f), { force: true });
  }, 1000);
  await Promise.all(
    Array.from({ length: 8 }, async (_, k) => {
      for (let i = 0; performance.now() < soakEnd; i++) {
        await call(soakPool, `/ng-rollout/soak-${k}/v1/chat/completions`, i % 2 ? 'stream-fast' : 'json-2k', b.request5k);
        soakCalls++;
        await sleep(2);
      }
    }),
  );
  clearInterval(sampler);
  await soakPool.close();
  await sleep(2000);
  const idleAfterMb = rssMb(capturePid);
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const mean = (xs: { rssMb: number }[]) => xs.reduce((a, x) => a + x.rssMb, 0) / xs.length;
  // Growth: the last tenth of the soak against the second tenth (the first is warm-up).
  const growthMb = mean(samples.slice(-tenth)) - mean(samples.slice(tenth, 2 * tenth));
  const { idleRssMb, baselineRssMb } = idle;
  const section = {
    what: `RSS of the callscope proxy process: idle after start, then a ${soakSeconds} s soak (8 clients, JSON and streaming calls, 5 KB requests); the 10-minute figure needs --soak 600`,
    idleRssMb: r3(idleRssMb),
    baselineRssMb,
    note: '`callscope proxy` runs from its esbuild bundle (bin/compiled.js, dist/cli), not through tsx; baselineRssMb is an idle `node` and an idle `node --import tsx` on this machine',
    idleAfterAllRssMb: r3(idleAfterMb),
    soakSeconds,
    soakCalls,
    soakRssMb: { first: samples[0]?.rssMb ?? null, max: r3(Math.max(...samples.map((s) => s.rssMb))), last: samples.at(-1)?.rssMb ?? null },
    soakGrowthMb: r3(growthMb),
    samples,
    targets: { idle: `idle RSS <= 80 MB: ${idleRssMb <= 80 ? 'met' : 'missed'}`, soak: `growth over the soak ${r3(growthMb)} MB (${soakSeconds} s)` },
  };
  const lines = [
    `P6 capture proxy RSS`,
    row('idle after start (MB)', section.idleRssMb),
    row('  baseline: node / +tsx', baselineRssMb.node, baselineRssMb.nodeWithTsx),
    row(`soak ${soakSeconds} s: first/max/last`, section.soakRssMb.first ?? '', section.soakRssMb.max, section.soakRssMb.last ?? ''),
    row('soak growth (MB)', section.soakGrowthMb),
    row('idle after everything (MB)', section.idleAfterAllRssMb),
  ];
  return { section, lines };
}

/** The idle RSS of what the runtime alone takes here: plain node, and node with the tsx loader the CLI starts under. */
async function runtimeRssMb(args: string[]): Promise<number> {
  const proc = spawn(process.execPath, [...args, '-e', 'setInterval(() => {}, 1000)'], { cwd: ROOT, stdio: 'ignore' });
  await sleep(1000);
  const mb = rssMb(proc.pid!);
  proc.kill('SIGKILL');
  return r3(mb);
}

async function main(): Promise<void> {
  const seed = Number(opts.seed);
  const soakSeconds = Number(opts.soak);
  const quick = opts.quick;
  const rng = mulberry32(seed);
  const loadStart = loadAverage();
  const captureDir = mkdtempSync(path.join(os.tmpdir(), 'callscope-bench-proxy-'));
  const children: ChildProcess[] = [];
  const cleanup = () => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(captureDir, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  try {
    const tsx = ['--import', 'tsx', SELF, '--seed', String(seed)];
    const upstream = await startChild([...tsx, '--role', 'upstream'], (l) => JSON.parse(l).url);
    children.push(upstream.proc);
    const bare = await startChild([...tsx, '--role', 'bare', '--upstream', upstream.url], (l) => JSON.parse(l).url);
    children.push(bare.proc);
    const capture = await startChild(['bin/callscope.js', 'proxy', '--upstream', upstream.url, '--capture-dir', captureDir, '--port', '0', '--model-server-name', 'policy_model'], (l) => {
      const m = /forwarding (http:\/\/\S+) ->/.exec(l);
      return m ? m[1] : null;
    });
    children.push(capture.proc);
    const capturePid = capture.proc.pid!;
    await sleep(1000);
    const idleRssMb = rssMb(capturePid);
    const baselineRssMb = { node: await runtimeRssMb([]), nodeWithTsx: await runtimeRssMb(['--import', 'tsx']) };

    const url: Record<Target, string> = { direct: upstream.url, bare: bare.url, capture: capture.url };
    const bench: Bench = {
      url,
      pools: Object.fromEntries(TARGETS.map((t) => [t, new Pool(url[t], { connections: 1, pipelining: 1 })])) as Record<Target, Pool>,
      pathFor: (t, rollout) => (t === 'capture' ? `/ng-rollout/${rollout}/v1/chat/completions` : '/v1/chat/completions'),
      rng,
      captureDir,
      capturePid,
      quick,
      request50k: chatRequest(rng, 50 * 1024),
      request5k: chatRequest(rng, 5 * 1024),
      log: (s) => process.stderr.write(s + '\n'),
    };
    const p1 = await measureP1(bench);
    const p3 = await measureP3(bench);
    const p5 = await measureP5(bench);
    const p6 = await measureP6(bench, soakSeconds, { idleRssMb, baselineRssMb });
    for (const p of Object.values(bench.pools)) await p.close();

    const dirty = gitDirtyPaths();
    const report = {
      bench: 'proxy',
      date: new Date().toISOString(),
      command: `npm run bench:proxy -- --seed ${seed} --soak ${soakSeconds}${quick ? ' --quick' : ''}`,
      machine: {
        os: `${os.type()} ${os.release()} ${os.arch()}`,
        cpuModel: cpuModel(),
        cpuCount: os.cpus().length,
        totalMemoryBytes: os.totalmem(),
        loadavgStart: loadStart.map((x) => r3(x)),
        loadavgEnd: loadAverage(3),
      },
      node: process.version,
      commit: gitCommit(),
      dirty: dirty === null ? null : dirty.length > 0,
      seed,
      units: 'milliseconds unless named otherwise',
      p1: p1.section,
      p3: p3.section,
      p5: p5.section,
      p6: p6.section,
    };
    writeReport(opts.out!, report);

    const lines = [
      `callscope proxy benchmark: node ${process.version}, ${report.machine.cpuModel} x${report.machine.cpuCount}, seed ${seed}, load ${loadStart.map((x) => x.toFixed(1)).join(' ')}`,
      '',
      ...[p1, p3, p5, p6].flatMap((p) => [...p.lines, '']),
      ...Object.entries({ P1: report.p1.targets, P3: report.p3.targets, P5: report.p5.targets, P6: report.p6.targets }).flatMap(([k, v]) => Object.values(v).map((x) => `${k}: ${x}`)),
      '',
      `wrote ${path.relative(ROOT, opts.out!)}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    cleanup();
  }
}

if (opts.role === 'upstream') await runUpstream(Number(opts.seed));
else if (opts.role === 'bare') await runBare(opts.upstream!);
else {
  await main();
  process.exit(0);
}
