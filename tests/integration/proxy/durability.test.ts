// §6.4 hold-back, observed from a real client: the terminal event (and the end of any body) reaches the
// client only once the line is in the file. The upstream is gated, so the order is causal, not timed. And
// target P2: concurrent calls to one rollout share their fsyncs (group commit).
import fs, { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chatJson, cutAt, JSON_HEADERS, messagesStream, MockUpstream, sha256, SSE_HEADERS } from '../../support/mock-upstream';
import { rawCall, startProxy, type ProxyHarness } from './harness';

let mock: MockUpstream;
let proxy: ProxyHarness;

beforeAll(async () => {
  mock = new MockUpstream();
  await mock.start();
  proxy = await startProxy(mock.url);
});

afterAll(async () => {
  await proxy.close();
  await mock.close();
});

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

const lineCount = (rollout: string) => {
  try {
    return readFileSync(path.join(proxy.captureDir!, `${rollout}.capture.jsonl`), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe('§6.4 the line is durable before the client sees the terminal event', () => {
  it('test_capture_is_durable_before_stream_terminal_event_is_sent: lines at each client chunk are [0, 1]', async () => {
    const g = gate();
    const chunks = ['event: message_start\ndata: {"type":"message_start","message":{"id":"m1"}}\n\nevent: message_', 'stop\ndata: {"type":"message_stop"}\n\n'];
    mock.set('gated', { headers: SSE_HEADERS, chunks, gates: [undefined, g.promise] });
    const seen: [string, number][] = [];
    const res = await rawCall(`${proxy.url}/ng-rollout/dur-1/v1/messages`, {
      body: '{"stream":true}',
      headers: { 'x-mock-scenario': 'gated' },
      onChunk: (c) => {
        seen.push([c.toString(), lineCount('dur-1')]);
        if (seen.length === 1) g.open();
      },
    });
    expect(res.body.toString()).toBe(chunks.join(''));
    // The first chunk (the start and the first bytes of the terminal block) flowed at once: the upstream
    // had not sent the rest when the client got it. The chunk completing the terminal block waited.
    expect(seen[0]).toEqual([chunks[0], 0]);
    expect(seen.slice(1).map(([, n]) => n)).toEqual(seen.slice(1).map(() => 1));
    expect(proxy.exchanges('dur-1')).toMatchObject([{ error_category: null, response: { id: 'm1' } }]);
  });

  it('a realistic stream: every client chunk before the terminal block saw no line, the terminal saw it', async () => {
    const body = messagesStream();
    const events = body.split(/(?<=\n\n)/);
    const g = gate();
    mock.set('gated-2', { headers: SSE_HEADERS, chunks: events, gates: events.map((_, i) => (i === events.length - 1 ? g.promise : undefined)) });
    let bytes = Buffer.alloc(0);
    const beforeTerminal = Buffer.byteLength(events.slice(0, -1).join(''));
    const atTerminal: number[] = [];
    await rawCall(`${proxy.url}/ng-rollout/dur-2/v1/messages`, {
      body: '{}',
      headers: { 'x-mock-scenario': 'gated-2' },
      onChunk: (c) => {
        bytes = Buffer.concat([bytes, c]);
        if (bytes.includes('event: message_stop')) atTerminal.push(lineCount('dur-2'));
        else if (bytes.length === beforeTerminal) {
          expect(lineCount('dur-2')).toBe(0);
          g.open();
        }
      },
    });
    expect(bytes.toString()).toBe(body);
    expect(atTerminal).toEqual([1]);
  });

  it('a JSON body: its last chunk waits for the line', async () => {
    const body = chatJson();
    const parts = cutAt(body, [40, 900]);
    const g = gate();
    mock.set('gated-json', { headers: JSON_HEADERS, chunks: parts, gates: [undefined, undefined, g.promise] });
    const counts: number[] = [];
    let received = 0;
    setTimeout(() => g.open(), 50);
    const res = await rawCall(`${proxy.url}/ng-rollout/dur-3/v1/chat/completions`, {
      body: '{}',
      headers: { 'x-mock-scenario': 'gated-json' },
      onChunk: (c) => {
        received += c.length;
        if (received === Buffer.byteLength(body)) counts.push(lineCount('dur-3'));
      },
    });
    expect(sha256(res.body)).toBe(sha256(Buffer.from(body)));
    expect(counts).toEqual([1]);
  });
});

describe('P2 group commit', () => {
  it('concurrent calls finishing together share fsyncs, and each is one whole line', async () => {
    // Each durable write of the store is one O_SYNC `fs.write` (write + fsync in one call).
    const write = vi.spyOn(fs, 'write');
    try {
      const g = gate();
      const calls = 40;
      mock.set('together', { headers: SSE_HEADERS, chunks: ['data: {"choices":[{"delta":{"content":"hi"}}]}\n\n', 'data: [DONE]\n\n'], gates: [undefined, g.promise] });
      const pending = Array.from({ length: calls }, (_, i) =>
        rawCall(`${proxy.url}/ng-rollout/group-1/v1/chat/completions`, { body: JSON.stringify({ i }), headers: { 'x-mock-scenario': 'together' } }),
      );
      await vi.waitFor(() => expect(mock.requests.filter((r) => r.scenario === 'together')).toHaveLength(calls), { timeout: 20_000 });
      g.open();
      await Promise.all(pending);
      const lines = proxy.exchanges('group-1');
      expect(lines).toHaveLength(calls);
      expect(new Set(lines.map((l) => (l.request as { i: number }).i)).size).toBe(calls);
      const durableWrites = write.mock.calls.filter(([fd]) => typeof fd === 'number').length;
      expect(durableWrites).toBeGreaterThan(0);
      expect(durableWrites).toBeLessThan(calls / 2);
    } finally {
      write.mockRestore();
    }
  });
});
