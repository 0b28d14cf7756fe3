// The client side of one forwarded call: writes the upstream's head and body to the client as they arrive,
// with backpressure (a full client buffer pauses the upstream until 'drain'), and, for a captured call,
// holds back what the spec says must wait for the durable line (§6.4, architecture "Hold-back"):
//   - an event stream: every chunk from the one that completes the terminal event block onwards;
//   - any other body: its last chunk (each chunk waits until the next one arrives or the body ends);
//   - always: the end of the response (or the 502, or the aborted connection).
// Those are released once the line is durable, or once the capture failed and the marker was touched.
// A transport failure before the head answers 502 with a JSON body; after the head, the client gets every
// byte received and then a connection closed without a clean end, never a well-formed response.
import type { ServerResponse } from 'node:http';
import type { ObservedException } from '../capture/exchange';
import { markIncomplete, type CaptureStore } from '../capture/store';
import { badGatewayBody, ClientDisconnectedError, observedException } from './failure';
import type { ForwardSink, Forwarding } from './forward';
import { clientResponseHeaders, firstHeader } from './headers';
import type { CallObservation } from './observe';

// How long a finished call waits for the rest of a request body the upstream never read.
const REQUEST_REST_LIMIT_MS = 2_000;

export interface CaptureTarget {
  store: CaptureStore;
  rolloutId: string;
  observation: CallObservation;
  warn: (message: string) => void;
}

export class Relay implements ForwardSink {
  private forwarding: Forwarding | null = null;
  private headSent = false;
  /** The client response was ended or its connection closed by us. */
  private finished = false;
  private held: Buffer[] = [];
  /** A compressed stream's chunk whose hold-back decision waits for decoding. */
  private pending: Promise<void> | null = null;
  private waitingForDrain = false;
  private holdLastChunk = true;

  constructor(
    private readonly res: ServerResponse,
    private readonly upstreamOrigin: string,
    private readonly capture: CaptureTarget | null,
    /** Resolves once the call is over for the capture (its line written or given up). */
    private readonly onSettled: (done: Promise<void>) => void = () => undefined,
  ) {
    res.sendDate = false;
    res.on('close', () => {
      if (!this.finished) this.forwarding?.abort(new ClientDisconnectedError());
    });
  }

  attach(forwarding: Forwarding): void {
    this.forwarding = forwarding;
  }

  onHead(status: number, statusMessage: string, rawHeaders: string[]): void {
    this.capture?.observation.head(status, rawHeaders);
    const eventStream = firstHeader(rawHeaders, 'content-type')?.startsWith('text/event-stream') ?? false;
    const declaredLength = firstHeader(rawHeaders, 'content-length');
    // With a declared length the last byte completes the response, so it is the last chunk that waits.
    this.holdLastChunk = !eventStream || declaredLength !== null;
    const headers = clientResponseHeaders(rawHeaders);
    try {
      try {
        this.res.writeHead(status, statusMessage || undefined, headers);
      } catch {
        // A reason phrase node:http refuses (characters outside latin1): the standard one is sent instead.
        this.res.statusMessage = '';
        this.res.writeHead(status, headers);
      }
    } catch (error) {
      // A header node:http refuses to send fails the call like a bad gateway.
      this.forwarding?.abort(error as Error);
      return;
    }
    this.headSent = true;
    // A stream's head goes out at once (time to first byte). Any other head goes out with the first body
    // bytes: an empty body's head is its end, which must wait for the line.
    if (eventStream && declaredLength !== '0') this.res.flushHeaders();
  }

  onChunk(chunk: Buffer): boolean {
    if (chunk.length === 0) return true;
    const observation = this.capture?.observation;
    if (!observation) return this.write(chunk);
    const terminal = observation.chunk(chunk);
    if (typeof terminal === 'boolean') return this.route(chunk, terminal);
    this.pending = terminal.then((complete) => {
      this.pending = null;
      if (this.route(chunk, complete)) this.forwarding?.resume();
    });
    return false;
  }

  private route(chunk: Buffer, terminalComplete: boolean): boolean {
    if (terminalComplete) {
      this.held.push(chunk);
      return true;
    }
    if (!this.holdLastChunk) return this.write(chunk);
    const previous = this.held.pop();
    this.held.push(chunk);
    return previous ? this.write(previous) : true;
  }

  private write(chunk: Buffer): boolean {
    if (this.res.write(chunk)) return true;
    if (!this.waitingForDrain) {
      this.waitingForDrain = true;
      this.res.once('drain', () => {
        this.waitingForDrain = false;
        this.forwarding?.resume();
      });
    }
    return false;
  }

  onEnd(): void {
    this.settle(null, () => {
      this.finished = true;
      const last = this.held.pop();
      for (const chunk of this.held.splice(0)) this.res.write(chunk);
      this.res.end(last);
    });
  }

  onFailure(error: Error): void {
    const clientGone = error instanceof ClientDisconnectedError;
    this.settle(observedException(error), () => {
      if (clientGone) return;
      if (this.headSent) this.closeAfterFlush();
      else this.badGateway(error);
    });
  }

  /** Records the call (if captured), then runs `release` — also when recording failed. */
  private settle(exception: ObservedException | null, release: () => void): void {
    this.capture?.observation.stop();
    if (!this.capture) return release();
    const done = this.record(exception).finally(release);
    this.onSettled(done);
  }

  private async record(exception: ObservedException | null): Promise<void> {
    const { store, rolloutId, observation, warn } = this.capture!;
    if (this.pending) await this.pending;
    await this.forwarding?.readRestOfRequest(REQUEST_REST_LIMIT_MS);
    let line;
    try {
      line = await observation.line(exception);
    } catch (error) {
      warn(`capture of call ${observation.modelCallId} in rollout ${rolloutId} failed: ${(error as Error).message}`);
      await markIncomplete(store.root, rolloutId).catch(() => undefined);
      return;
    }
    const result = await store.record(rolloutId, line);
    if (!result.ok) {
      warn(`capture write for rollout ${rolloutId} failed (${result.error.message}); the call went through, the rollout is marked incomplete`);
    }
  }

  private badGateway(error: Error): void {
    this.finished = true;
    if (this.res.headersSent || this.res.destroyed) {
      this.res.destroy();
      return;
    }
    const body = badGatewayBody(error, this.upstreamOrigin);
    this.res.writeHead(502, 'Bad Gateway', { 'content-type': 'application/json', 'content-length': String(body.length) });
    this.res.end(body);
  }

  /** Every received byte, then a closed connection without the response's clean end. */
  private closeAfterFlush(): void {
    this.finished = true;
    const socket = this.res.socket;
    if (!socket || socket.destroyed) return;
    this.res.flushHeaders(); // a head kept back for the first body bytes goes out now (no-op if it went)
    for (const chunk of this.held.splice(0)) this.res.write(chunk);
    socket.end(() => socket.destroy());
  }
}
