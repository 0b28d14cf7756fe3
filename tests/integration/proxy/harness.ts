// Shared pieces of the proxy integration tests: a proxy on a free loopback port in front of a mock
// upstream, a raw HTTP client that keeps every received byte (and the error that ended a body), a fetch that
// tees what an SDK client receives, and the capture file read back line by line.
import { promises as fsp, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { expect } from 'vitest';
import { EXCHANGE_FIELDS } from '../../../lib/capture/exchange';
import { keysOf, type JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { createCaptureHandler, type CaptureHandler, type CaptureHandlerOptions } from '../../../lib/proxy/handler';

export const SERVER_NAME = 'policy_model';
export const API_KEY = 'sk-test-SECRET-never-captured-4f1d';

export interface ProxyHarness {
  url: string;
  captureDir: string | null;
  handler: CaptureHandler;
  server: http.Server;
  warnings: string[];
  /** The capture file of a rollout as text ('' when it does not exist). */
  text(rolloutId: string): string;
  /** The exchanges of a rollout, parsed strictly (every line must be whole). */
  exchanges(rolloutId: string): JsonObject[];
  close(): Promise<void>;
}

export async function startProxy(upstream: string, options: Partial<CaptureHandlerOptions> = {}): Promise<ProxyHarness> {
  const ownDir = !('captureDir' in options);
  const captureDir = ownDir ? mkdtempSync(path.join(os.tmpdir(), 'callscope-proxy-')) : options.captureDir!;
  const warnings: string[] = [];
  const handler = createCaptureHandler({ upstream, modelServerName: SERVER_NAME, warn: (m) => warnings.push(m), ...options, captureDir });
  await handler.ready;
  const server = http.createServer({ requestTimeout: 0 }, handler);
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const text = (id: string) => {
    try {
      return readFileSync(path.join(captureDir ?? '/nonexistent', `${id}.capture.jsonl`), 'utf8');
    } catch {
      return '';
    }
  };
  return {
    url,
    captureDir,
    handler,
    server,
    warnings,
    text,
    exchanges: (id) => {
      const t = text(id);
      if (t === '') return [];
      expect(t.endsWith('\n')).toBe(true);
      return t.slice(0, -1).split('\n').map((l) => parseStrict(l) as JsonObject);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await handler.close();
      if (ownDir) await fsp.rm(captureDir!, { recursive: true, force: true });
    },
  };
}

export const clientAgent = new Agent({ connections: null, keepAliveTimeout: 1_000, headersTimeout: 0, bodyTimeout: 0 });

export interface RawResult {
  status: number;
  rawHeaders: string[];
  body: Buffer;
  /** The error that ended the body, if it did not end cleanly. */
  error: Error | null;
}

/** One request with undici (no decompression): every byte received, and how the body ended. */
export async function rawCall(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; onChunk?: (chunk: Buffer) => void; signal?: AbortSignal } = {},
): Promise<RawResult> {
  // Origin and path apart: a URL would be normalized (dot segments, %2e), and raw paths are the point.
  const [, origin, pathAndQuery] = /^(https?:\/\/[^/]+)(\/.*)$/.exec(url)!;
  const res = await clientAgent.request({
    origin,
    path: pathAndQuery,
    method: (init.method ?? 'POST') as 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', ...init.headers },
    body: init.body,
    signal: init.signal,
  });
  const rawHeaders: string[] = [];
  for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : [v ?? '']) rawHeaders.push(k, x);
  const chunks: Buffer[] = [];
  let error: Error | null = null;
  try {
    for await (const c of res.body) {
      init.onChunk?.(c as Buffer);
      chunks.push(c as Buffer);
    }
  } catch (e) {
    error = e as Error;
  }
  return { status: res.statusCode, rawHeaders, body: Buffer.concat(chunks), error };
}

export function header(raw: string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return undefined;
}

export interface Received {
  status: number;
  body: Promise<Buffer>;
}

/** A fetch for SDK clients that keeps a copy of every response body exactly as the client received it. */
export function teeingFetch(received: Received[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) {
      received.push({ status: res.status, body: Promise.resolve(Buffer.alloc(0)) });
      return res;
    }
    const [forClient, copy] = res.body.tee();
    const body = (async () => {
      const chunks: Buffer[] = [];
      try {
        for await (const c of copy) chunks.push(Buffer.from(c));
      } catch {
        // the copy ends where the client's body failed
      }
      return Buffer.concat(chunks);
    })();
    received.push({ status: res.status, body });
    return new Response(forClient, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const TWO_DECIMALS = /^-?\d+\.\d{1,2}$/;

/** Checks every rule of spec §2 that holds for any line, and returns its raw latency spellings. */
export function expectWellFormed(exchange: JsonObject, line: string): void {
  const keys = keysOf(exchange);
  expect(keys).toEqual(EXCHANGE_FIELDS.filter((k) => keys.includes(k)));
  expect(keys.slice(0, 11)).toEqual(EXCHANGE_FIELDS.slice(0, 11));
  expect(exchange.model_call_id).toMatch(/^[0-9a-f]{32}$/);
  expect(exchange.model_ref).toEqual({ type: 'responses_api_models', name: SERVER_NAME });
  const started = Number(exchange.started_at);
  const completed = Number(exchange.completed_at);
  expect(started).toBeGreaterThan(1.7e9);
  expect(started).toBeLessThanOrEqual(completed);
  const latency = /"latency_ms":([^,]+),/.exec(line)![1];
  expect(latency).toMatch(TWO_DECIMALS);
  const ttft = /"latency_ttft_ms":([^,]+),/.exec(line)![1];
  if (ttft !== 'null') {
    expect(ttft).toMatch(TWO_DECIMALS);
    expect(Number(ttft)).toBeLessThanOrEqual(Number(latency));
  }
  expect(line).not.toContain(API_KEY);
}
