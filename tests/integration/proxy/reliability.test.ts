// The quick tier of targets.md R1–R4 for the capture proxy:
//   R1 byte transparency under random chunking, delays, codings, invalid UTF-8, 0-byte and 20 MB bodies;
//   R2 1,000 concurrent streaming calls, each captured once in its rollout's file, no interleaved lines;
//   R3 a full, read-only or deleted capture dir and a held lock change nothing for the client, and the
//      rollout is marked incomplete wherever a marker can be written at all;
//   R4 kill -9 of writers during concurrent appends loses no acknowledged line.
// Each prints its figure (N exchanges, 0 altered bytes, ...) so a run can be quoted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeReplacing } from '../../../lib/capture/exchange';
import { parseStrict } from '../../../lib/capture/json-parse';
import { readCaptureFile } from '../../../lib/capture/store';
import {
  chatJson,
  chatStream,
  cutAt,
  JSON_HEADERS,
  messagesJson,
  messagesStream,
  MockUpstream,
  responsesJson,
  responsesStream,
  sha256,
  SSE_HEADERS,
  type Scenario,
} from '../../support/mock-upstream';
import { reportFigure, scaled } from '../../support/reliability';
import { rawCall, startProxy, type ProxyHarness } from './harness';

const here = path.dirname(fileURLToPath(import.meta.url));
const PATHS = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' } as const;
type Dialect = keyof typeof PATHS;
const BODIES: Record<Dialect, { json: string; sse: string }> = {
  chat: { json: chatJson(), sse: chatStream() },
  responses: { json: responsesJson(), sse: responsesStream() },
  messages: { json: messagesJson(), sse: messagesStream() },
};

let mock: MockUpstream;
let proxy: ProxyHarness;
let n = 0;

beforeAll(async () => {
  mock = new MockUpstream();
  await mock.start();
  proxy = await startProxy(mock.url);
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
});

/** One call through `h` with scenario `s`; asserts the client got exactly the upstream's status and bytes. */
async function transparent(h: ProxyHarness, rollout: string, dialect: Dialect, s: Scenario) {
  const name = `rel-${n++}`;
  mock.set(name, s);
  const res = await rawCall(`${h.url}/ng-rollout/${rollout}${PATHS[dialect]}`, { body: '{"model":"m"}', headers: { 'x-mock-scenario': name } });
  const sent = mock.requests.find((r) => r.scenario === name)!;
  await sent.done;
  expect(res.error).toBeNull();
  expect(res.status).toBe(s.status ?? 200);
  expect(sha256(res.body)).toBe(sha256(sent.sent));
  return { res, sent };
}

describe('R1 byte transparency', () => {
  it('random chunking, delays, gzip, invalid UTF-8 and empty bodies, all dialects, JSON and SSE (property)', async () => {
    let exchanges = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          dialect: fc.constantFrom<Dialect>('chat', 'responses', 'messages'),
          kind: fc.constantFrom('json', 'sse', 'bytes', 'empty'),
          sseHeader: fc.boolean(),
          encoding: fc.constantFrom(undefined, undefined, 'gzip' as const),
          cuts: fc.array(fc.nat(), { maxLength: 12 }),
          delays: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 12 }),
          contentLength: fc.boolean(),
          bytes: fc.uint8Array({ minLength: 1, maxLength: 3000 }),
          status: fc.constantFrom(200, 200, 200, 400, 503),
        }),
        async (p) => {
          const body =
            p.kind === 'empty' ? Buffer.alloc(0) : p.kind === 'bytes' ? Buffer.from(p.bytes) : Buffer.from(BODIES[p.dialect][p.kind as 'json' | 'sse']);
          const sse = p.kind === 'sse' || (p.kind === 'bytes' && p.sseHeader);
          const chunks = cutAt(body, p.cuts.map((c) => c % Math.max(1, body.length)));
          const rollout = `r1-${n}`;
          await transparent(proxy, rollout, p.dialect, {
            status: p.status,
            headers: sse ? SSE_HEADERS : JSON_HEADERS,
            chunks,
            delayMs: p.delays,
            contentLength: p.contentLength,
            encoding: p.encoding,
          });
          const lines = proxy.exchanges(rollout);
          expect(lines).toHaveLength(1);
          if (body.length && (sse || lines[0].response === null)) expect(lines[0].response_raw).toBe(decodeReplacing(body));
          if (!body.length) expect('response_raw' in lines[0]).toBe(false);
          exchanges++;
        },
      ),
      { numRuns: scaled(80) },
    );
    reportFigure('R1', `${exchanges} random exchanges through the proxy (3 dialects, JSON, SSE, raw bytes, empty, gzip, random chunking and delays), 0 altered bytes`, { exchanges, altered: 0 });
  });

  it('a 20 MB body, once', async () => {
    const content = 'héllo wörld 東京 🎉 '.repeat(Math.ceil(20.5e6 / 26)); // 26 bytes each
    const body = Buffer.from(JSON.stringify({ id: 'big', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }));
    const cuts = Array.from({ length: Math.floor(body.length / 65_000) }, (_, i) => (i + 1) * 65_000 + (i % 3));
    await transparent(proxy, 'r1-big', 'chat', { headers: JSON_HEADERS, chunks: cutAt(body, cuts) });
    expect(Buffer.byteLength(proxy.text('r1-big'))).toBeGreaterThan(20e6);
    expect(proxy.exchanges('r1-big')[0]).toMatchObject({ error_category: null, response: { id: 'big' } });
    reportFigure('R1', `one ${(body.length / 1e6).toFixed(1)} MB body in 65 KB chunks, 0 altered bytes`, { exchanges: 1, altered: 0 });
  });
});

describe('R2 concurrency', () => {
  it('1,000 concurrent streaming calls: each captured once, in its rollout file, no interleaved lines', async () => {
    // One round in CI; test:soak runs more, one after the other, each on rollout files of its own.
    for (let round = 0; round < scaled(1); round++) await concurrentRound(round);
  }, scaled(1) * 120_000);
});

/** 1,000 concurrent streaming calls over 50 rollouts (`round` > 0: on rollout files of its own). */
async function concurrentRound(round: number) {
  const calls = 1000;
  const rollouts = 50;
  const prefix = round ? `r2x${round}-` : 'r2-';
  mock.set('r2', (request) => {
    const { i } = JSON.parse(request.body.toString());
    return { headers: SSE_HEADERS, chunks: [`data: {"id":"c${i}","choices":[{"delta":{"content":"${i}"}}]}\n\n`, 'data: [DONE]\n\n'], delayMs: 5 };
  });
  const results = await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      rawCall(`${proxy.url}/ng-rollout/${prefix}${i % rollouts}/v1/chat/completions`, { body: JSON.stringify({ i, stream: true }), headers: { 'x-mock-scenario': 'r2' } }),
    ),
  );
  results.forEach((r, i) => expect(r.body.toString()).toBe(`data: {"id":"c${i}","choices":[{"delta":{"content":"${i}"}}]}\n\ndata: [DONE]\n\n`));
  let total = 0;
  for (let r = 0; r < rollouts; r++) {
    const lines = proxy.exchanges(`${prefix}${r}`); // strict: a torn or interleaved line would not parse
    const seen = lines.map((l) => (l.request as { i: number }).i).sort((a, b) => a - b);
    expect(seen).toEqual(Array.from({ length: calls / rollouts }, (_, k) => k * rollouts + r));
    for (const l of lines) expect(l).toMatchObject({ error_category: null, response: { id: `c${(l.request as { i: number }).i}` } });
    total += lines.length;
  }
  expect(total).toBe(calls);
  reportFigure('R2', `${calls.toLocaleString('en-US')} concurrent streaming calls over ${rollouts} rollouts: ${total}/${calls} records, each once, in its rollout's file, no interleaved line`, { records: total, calls });
}

// --- R3 ------------------------------------------------------------------------------------------------

const mounts: string[] = [];
function mountTmpfs(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]).status === 0;
  if (ok) mounts.push(dir);
  return ok;
}
const probe = mkdtempSync(path.join(os.tmpdir(), 'callscope-mount-probe-'));
const canMount = mountTmpfs(probe, 'size=64k');
if (canMount) spawnSync('umount', [probe]);
else console.warn('R3: mounting a tmpfs is not permitted here (needs root with CAP_SYS_ADMIN); the full-disk and read-only cases are skipped');
mounts.length = 0;
rmSync(probe, { recursive: true, force: true });

afterAll(() => {
  for (const dir of mounts) {
    spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('R3 capture failures never fail or alter the call', () => {
  const sse = (): Scenario => ({ headers: SSE_HEADERS, chunks: cutAt(messagesStream(), [100, 700, 1500]), delayMs: 1 });
  const json = (): Scenario => ({ headers: JSON_HEADERS, chunks: cutAt(messagesJson(), [50, 400]), delayMs: 1 });
  let affected = 0;
  let marked = 0;
  afterAll(() =>
    reportFigure('R3', `${affected} capture failures (${canMount ? 'full disk, read-only dir, ' : 'no tmpfs here: full disk and read-only dir skipped; '}unwritable file, deleted dir) and a held lock: 0 calls altered; ${marked}/${affected} affected rollouts marked (a read-only or deleted dir cannot hold a marker)`, { affected, marked, altered: 0 }),
  );

  async function bothUnchanged(h: ProxyHarness, rollout: string) {
    await transparent(h, rollout, 'messages', sse());
    await transparent(h, rollout, 'messages', json());
  }

  it.skipIf(!canMount)('a full disk (64 KB tmpfs, filled): calls unchanged, rollout marked incomplete', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-full-'));
    expect(mountTmpfs(dir, 'size=64k')).toBe(true);
    const h = await startProxy(mock.url, { captureDir: dir });
    try {
      try {
        writeFileSync(path.join(dir, 'filler'), Buffer.alloc(1 << 20));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      await bothUnchanged(h, 'full-1');
      affected++;
      expect(existsSync(path.join(dir, 'full-1.capture.incomplete'))).toBe(true);
      marked++;
      expect(h.warnings.join('\n')).toMatch(/ENOSPC/);
    } finally {
      await h.close();
    }
  });

  it.skipIf(!canMount)('a read-only dir (tmpfs remounted read-only; chmod does not bind root): calls unchanged', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-ro-'));
    expect(mountTmpfs(dir, 'size=1m')).toBe(true);
    expect(spawnSync('mount', ['-o', 'remount,ro', dir]).status).toBe(0);
    const h = await startProxy(mock.url, { captureDir: dir });
    try {
      await bothUnchanged(h, 'ro-1');
      affected++;
      expect(readdirSync(dir)).toEqual([]);
      expect(h.warnings.join('\n')).toMatch(/EROFS/);
    } finally {
      await h.close();
    }
  });

  it('an unwritable capture file (its path is a directory, as root ignores modes): calls unchanged, marked', async () => {
    const h = await startProxy(mock.url);
    try {
      mkdirSync(path.join(h.captureDir!, 'eisdir-1.capture.jsonl'));
      await bothUnchanged(h, 'eisdir-1');
      affected++;
      expect(existsSync(path.join(h.captureDir!, 'eisdir-1.capture.incomplete'))).toBe(true);
      marked++;
    } finally {
      await h.close();
    }
  });

  it('a deleted capture dir: calls unchanged, a warning, and the dir is not re-created', async () => {
    const h = await startProxy(mock.url);
    try {
      rmSync(h.captureDir!, { recursive: true });
      await bothUnchanged(h, 'gone-1');
      affected++;
      expect(existsSync(h.captureDir!)).toBe(false);
      expect(h.warnings.join('\n')).toMatch(/ENOENT/);
    } finally {
      await h.close();
    }
  });

  it('a lock held by another process: the call is unchanged, its terminal waits for the lock and the line', async () => {
    const file = path.join(proxy.captureDir!, 'locked-1.capture.jsonl');
    const released = path.join(proxy.captureDir!, 'released');
    const holder = spawn('python3', [
      '-c',
      'import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND)\nfcntl.flock(fd, fcntl.LOCK_EX)\nprint("locked", flush=True)\ntime.sleep(1.0)\nopen(sys.argv[2], "w").close()\nfcntl.flock(fd, fcntl.LOCK_UN)',
      file,
      released,
    ]);
    await new Promise<void>((r) => holder.stdout.once('data', () => r()));
    const name = `rel-${n++}`;
    mock.set(name, sse());
    let releasedAtTerminal: boolean | null = null;
    let bytes = Buffer.alloc(0);
    const res = await rawCall(`${proxy.url}/ng-rollout/locked-1/v1/messages`, {
      body: '{}',
      headers: { 'x-mock-scenario': name },
      onChunk: (c) => {
        bytes = Buffer.concat([bytes, c]);
        if (bytes.includes('event: message_stop')) releasedAtTerminal ??= existsSync(released);
      },
    });
    expect(sha256(res.body)).toBe(sha256(mock.last().sent));
    expect(releasedAtTerminal).toBe(true);
    expect(proxy.exchanges('locked-1')).toHaveLength(1);
    expect(existsSync(path.join(proxy.captureDir!, 'locked-1.capture.incomplete'))).toBe(false);
  });
});

// --- R4 ------------------------------------------------------------------------------------------------

describe('R4 kill -9 during concurrent appends', () => {
  it('no acknowledged line is lost; at most one torn tail, which the reader reports', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-kill-'));
    const rounds = 3 * scaled(1);
    const workers = 3;
    // Rounds run side by side, each on its own rollout file, killed at different moments.
    const round = async (k: number) => {
      const rollout = `kill-${k}`;
      const acks = new Set<string>();
      const children: ChildProcess[] = [];
      const ready: Promise<void>[] = [];
      for (let w = 0; w < workers; w++) {
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'append-worker.ts'), dir, rollout, `w${w}`, '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
        children.push(child);
        const lines = createInterface({ input: child.stdout! });
        ready.push(new Promise((r) => lines.on('line', (l) => (l === 'ready' ? r() : acks.add(l)))));
      }
      await Promise.all(ready);
      // Kill only once appends are under way (on a loaded machine the writers may start slowly).
      for (const deadline = Date.now() + 30_000; acks.size < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100 + (k % 3) * 150));
      const exited = children.map((c) => new Promise((r) => c.once('exit', r)));
      for (const c of children) c.kill('SIGKILL');
      await Promise.all(exited);

      const file = path.join(dir, `${rollout}.capture.jsonl`);
      const parts = readFileSync(file, 'utf8').split('\n');
      const tail = parts.pop()!; // '' when the file ends with a newline
      const present = new Set(parts.map((l) => (parseStrict(l) as { model_call_id: string }).model_call_id.replace('-', ':')));
      for (const a of acks) expect(present.has(a)).toBe(true);
      const read = await readCaptureFile(file);
      expect(read.records).toHaveLength(parts.length);
      expect(read.unreadable).toBe(tail === '' ? 0 : 1);
      expect(acks.size).toBeGreaterThan(0);
      return acks.size;
    };
    try {
      // Three rounds at a time (nine writer processes), killed at different moments.
      let acked = 0;
      for (let k = 0; k < rounds; k += 3) acked += (await Promise.all([k, k + 1, k + 2].map((j) => round(j)))).reduce((a, b) => a + b, 0);
      reportFigure('R4', `${rounds} rounds × ${workers} writers killed with SIGKILL mid-append: ${acked} acknowledged appends, 0 lost, at most one torn tail per file (reported as unreadable)`, { kills: rounds * workers, acknowledged: acked, lost: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, scaled(1) * 60_000);
});
