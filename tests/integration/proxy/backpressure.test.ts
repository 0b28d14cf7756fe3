// Backpressure both ways: a client that stops reading stops the upstream's writes (the proxy pauses its
// upstream socket rather than buffering the body), and an upstream that stops reading stops the client's
// upload. Both then resume and every byte arrives intact. The 48 and 64 MB bodies (more than the socket
// buffers on the way hold) go to a prefixed unobserved path, which takes the same relay and request tee as
// a captured call without capturing huge lines; a captured 20 MB body is in reliability.test.ts.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockUpstream, sha256 } from '../../support/mock-upstream';
import { startProxy, type ProxyHarness } from './harness';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `read()` stops changing for `quietMs`, and returns its value then. */
async function settled(read: () => number, quietMs = 300): Promise<number> {
  let last = read();
  for (;;) {
    await sleep(quietMs);
    const now = read();
    if (now === last) return now;
    last = now;
  }
}

describe('backpressure', () => {
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

  it('a client that stops reading stops the upstream; then every byte arrives', async () => {
    const chunks = Array.from({ length: 192 }, (_, i) => Buffer.alloc(256 * 1024, 97 + (i % 26)));
    const total = 192 * 256 * 1024;
    mock.set('huge', { headers: [['content-type', 'text/event-stream']], chunks, delayMs: 0 });
    const body = await new Promise<Buffer>((resolve, reject) => {
      const req = http.request(`${proxy.url}/ng-rollout/bp-1/v1/files`, { method: 'POST', headers: { 'x-mock-scenario': 'huge' } }, (res) => {
        res.pause();
        void (async () => {
          await sleep(100);
          const upstream = mock.requests.find((r) => r.scenario === 'huge')!;
          const stalledAt = await settled(() => upstream.progress);
          // The socket buffers of both connections held about 10 MB when measured; the body is 48 MB.
          expect(stalledAt).toBeLessThan(24 * MB);
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve(Buffer.concat(parts)));
          res.resume();
        })().catch(reject);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(body.length).toBe(total);
    expect(sha256(body)).toBe(sha256(Buffer.concat(chunks)));
  });
});

describe('backpressure toward the client', () => {
  it('an upstream that stops reading stops the upload; then the whole body arrives', async () => {
    let release!: () => void;
    const reading = new Promise<void>((r) => (release = r));
    let received = 0;
    const upstream = net.createServer((socket) => {
      socket.pause();
      void reading.then(() => {
        let buffer = Buffer.alloc(0);
        socket.on('data', (d: Buffer) => {
          received += d.length;
          buffer = Buffer.concat([buffer.subarray(-16), d]);
          if (buffer.includes('0\r\n\r\n')) socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{"ok":true}');
        });
        socket.resume();
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const proxy = await startProxy(`http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}`);
    try {
      const piece = Buffer.alloc(MB, 0x20);
      const total = 64;
      let written = 0;
      const done = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${proxy.url}/ng-rollout/bp-2/v1/uploads`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        const pump = () => {
          while (written < total) {
            const chunk = written === 0 ? Buffer.concat([Buffer.from('{"input":"'), piece.subarray(10)]) : written === total - 1 ? Buffer.concat([piece.subarray(2), Buffer.from('"}')]) : piece;
            written++;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      const stalledAt = await settled(() => written);
      expect(stalledAt).toBeLessThan(total / 2);
      release();
      const res = await done;
      expect(res).toEqual({ status: 200, body: '{"ok":true}' });
      expect(received).toBeGreaterThan(total * MB);
    } finally {
      await proxy.close();
      await new Promise<void>((r) => upstream.close(() => r()));
    }
  });
});
