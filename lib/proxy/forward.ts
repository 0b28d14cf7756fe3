// One request forwarded upstream through undici's dispatcher API: the lowest layer that keeps the raw
// response header list, hands over every body chunk as it is parsed, and pauses the upstream socket on
// request (backpressure toward the upstream). The request body streams upstream as it arrives from the
// client, with undici waiting on its socket before it reads the next chunk (backpressure toward the client);
// an optional tap sees each request chunk (the capture keeps a copy).
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { rawHeaderStrings, requestHasBody, upstreamRequestHeaders } from './headers';
import type { Upstream } from './upstream';

export interface ForwardSink {
  /** The final response head (informational 1xx heads are not passed on). */
  onHead(status: number, statusMessage: string, rawHeaders: string[]): void;
  /** A response body chunk; returning false pauses the upstream until `resume()`. */
  onChunk(chunk: Buffer): boolean;
  onEnd(): void;
  /** A transport failure, before or after the head. Called at most once, and never after `onEnd`. */
  onFailure(error: Error): void;
}

export interface Forwarding {
  pause(): void;
  resume(): void;
  /** Stops the exchange; the sink then sees `onFailure(reason)` unless it already ended. */
  abort(reason: Error): void;
  /**
   * Once the exchange is over: reads whatever the upstream did not (a failure before the body was sent, an
   * early response) through the tap, so the capture holds the whole request. Waits at most `limitMs` for a
   * client that stopped sending.
   */
  readRestOfRequest(limitMs: number): Promise<void>;
}

async function* teeBody(req: IncomingMessage, tap: ((chunk: Buffer) => void) | undefined): AsyncGenerator<Buffer> {
  // destroyOnReturn: false — if undici stops reading early (an early response), the client's connection
  // stays usable; node:http discards the unread rest of the request.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    tap?.(chunk as Buffer);
    yield chunk as Buffer;
  }
}

function headerObjectToRaw(headers: Record<string, string | string[] | undefined>): string[] {
  const raw: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) raw.push(name, v);
  }
  return raw;
}

async function drain(body: AsyncGenerator<Buffer> | null, req: IncomingMessage, tap: ((chunk: Buffer) => void) | undefined): Promise<void> {
  try {
    // Resumes the tee where the upstream left it (or starts it, when nothing was sent) ...
    if (body) for await (const chunk of body) void chunk;
    // ... and after undici closed it early, reads the rest directly.
    if (!req.readableEnded) for await (const chunk of req.iterator({ destroyOnReturn: false })) tap?.(chunk as Buffer);
  } catch {
    // The client went away mid-request: the capture keeps what arrived.
  }
}

class UpstreamExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private pendingAbort: Error | null = null;
  private pausedBeforeStart = false;
  private settled = false;
  body: AsyncGenerator<Buffer> | null = null;

  constructor(
    private readonly sink: ForwardSink,
    private readonly req: IncomingMessage,
    private readonly tap: ((chunk: Buffer) => void) | undefined,
  ) {}

  readRestOfRequest(limitMs: number): Promise<void> {
    if (!this.tap || this.req.readableEnded) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
    return Promise.race([drain(this.body, this.req, this.tap), limit]).finally(() => clearTimeout(timer));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort) controller.abort(this.pendingAbort);
    else if (this.pausedBeforeStart) controller.pause();
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    if (status < 200 || this.settled) return;
    const raw = Array.isArray(controller.rawHeaders) ? rawHeaderStrings(controller.rawHeaders) : headerObjectToRaw(headers);
    this.sink.onHead(status, statusMessage ?? '', raw);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (!this.sink.onChunk(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    this.sink.onEnd();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.sink.onFailure(error);
  }

  pause(): void {
    if (this.controller) this.controller.pause();
    else this.pausedBeforeStart = true;
  }

  resume(): void {
    this.pausedBeforeStart = false;
    this.controller?.resume();
  }

  abort(reason: Error): void {
    if (this.settled) return;
    if (this.controller) this.controller.abort(reason);
    else {
      // Still queued or connecting: undici has no handle on the request yet. Report now; the late start
      // aborts it.
      this.pendingAbort = reason;
      this.fail(reason);
    }
  }
}

/** Sends `req` to the upstream at `pathAndQuery` (already stripped of any rollout prefix). */
export function forward(upstream: Upstream, req: IncomingMessage, pathAndQuery: string, sink: ForwardSink, tap?: (chunk: Buffer) => void): Forwarding {
  const exchange = new UpstreamExchange(sink, req, tap);
  if (requestHasBody(req.headers)) exchange.body = teeBody(req, tap);
  try {
    upstream.pool.dispatch(
      {
        origin: upstream.origin,
        path: upstream.pathFor(pathAndQuery),
        method: req.method ?? 'GET',
        headers: upstreamRequestHeaders(req.rawHeaders),
        // undici's dispatcher takes async iterables (docs/api/Dispatcher.md), its typings do not list them.
        body: exchange.body as unknown as Readable | null,
      },
      exchange,
    );
  } catch (error) {
    // Invalid method, path or header for undici: a failure before any response head.
    queueMicrotask(() => exchange.fail(error as Error));
  }
  return exchange;
}
