// What the capture middleware observes about one call (spec §2, §6.3–6.5): the timings, the request and
// response bytes, the status, whether the response streams, and where the terminal event completes.
// `lib/capture/exchange` turns the observation into the line. The observation never touches the client
// response; it only tells the relay whether the terminal event is complete, so that the relay holds it back.
//
// Timing: `started_at` and `completed_at` are wall-clock seconds with sub-millisecond precision
// (performance.timeOrigin + performance.now()); latency and TTFT come from the monotonic clock alone.
// TTFT is taken when the first non-empty body chunk arrives from the upstream and is handed on.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isCanonicalJsonObject } from '../capture/canonical';
import { buildExchange, parseObject, type ObservedCall, type ObservedException, type PreparedBodies } from '../capture/exchange';
import type { JsonObject } from '../capture/json-value';
import { serializeAtDepth } from '../capture/json-serialize';
import { TerminalScanner, type Dialect } from '../capture/sse';
import { serializeExchange } from '../capture/store';
import { decodeBody, StreamDecoder } from './decode';
import { contentCodings, firstHeader } from './headers';

export function wallClockSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/** `uuid4().hex`: 32 lowercase hex characters. */
export function newModelCallId(): string {
  return randomUUID().replace(/-/g, '');
}

function concat(chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

interface PreparedRequest {
  /** How many request chunks it was prepared from (more may arrive after an early response). */
  chunks: number;
  body: Buffer;
  /** The request's serialization in the line, or null when the body is not a JSON object. */
  serialized: Uint8Array | null;
  /** Why the request cannot be serialized (the line then fails, as serializeExchange would). */
  error: Error | null;
}

export class CallObservation {
  readonly modelCallId = newModelCallId();
  readonly startedAt = wallClockSeconds();
  private readonly startMs = performance.now();
  private readonly requestChunks: Buffer[] = [];
  /** The body as the capture stores it: decoded when a content coding applies and decoding works. */
  private bodyChunks: Buffer[] = [];
  /** The body as received, kept only when a content coding applies. */
  private rawChunks: Buffer[] = [];
  private codings: string[] = [];
  private statusCode: number | null = null;
  private streamingBody = false;
  private scanner: TerminalScanner | null = null;
  private decoder: StreamDecoder | null = null;
  private streamDecodeFailed = false;
  private ttftMs: number | null = null;
  private stopped: { completedAt: number; latencyMs: number } | null = null;

  constructor(
    readonly dialect: Dialect,
    readonly modelServerName: string | null,
  ) {}

  readonly addRequestChunk = (chunk: Buffer): void => {
    this.requestChunks.push(chunk);
  };

  /** The response head: status, and streaming when the first content-type value starts with `text/event-stream`. */
  head(status: number, rawHeaders: readonly string[]): void {
    this.statusCode = status;
    this.streamingBody = firstHeader(rawHeaders, 'content-type')?.startsWith('text/event-stream') ?? false;
    this.codings = contentCodings(rawHeaders);
    if (!this.streamingBody) return;
    this.scanner = new TerminalScanner(this.dialect);
    if (this.codings.length === 0) return;
    if (StreamDecoder.supports(this.codings)) this.decoder = new StreamDecoder(this.codings[0]);
    else this.streamDecodeFailed = true;
  }

  get streaming(): boolean {
    return this.streamingBody;
  }

  /**
   * A non-empty response body chunk as it arrives. Returns whether the terminal event is complete once this
   * chunk is included (never, for a body that does not stream), or a promise of that when a compressed
   * stream has to be decoded first: the caller must not hand on later chunks before it settles.
   */
  chunk(chunk: Buffer): boolean | Promise<boolean> {
    this.ttftMs ??= performance.now() - this.startMs;
    if (this.codings.length === 0) {
      this.bodyChunks.push(chunk);
      return this.scan(chunk);
    }
    this.rawChunks.push(chunk);
    if (!this.decoder || this.streamDecodeFailed) return false;
    return this.decoder.push(chunk).then((decoded) => {
      if (decoded === null) {
        this.streamDecodeFailed = true;
        return false;
      }
      if (decoded.length) this.bodyChunks.push(decoded);
      return this.scan(decoded);
    });
  }

  private scan(decoded: Buffer): boolean {
    if (!this.scanner) return false;
    this.scanner.push(decoded);
    return this.scanner.terminal !== null;
  }

  /** The app returned or raised: `completed_at` and the latency are read here, once. */
  stop(): void {
    this.stopped ??= { completedAt: wallClockSeconds(), latencyMs: performance.now() - this.startMs };
  }

  private async capturedBody(): Promise<Buffer> {
    if (this.codings.length === 0 || (this.decoder && !this.streamDecodeFailed)) return concat(this.bodyChunks);
    const raw = concat(this.rawChunks);
    return (await decodeBody(raw, this.codings)) ?? raw;
  }

  /** The exchange line's object (spec §2); `exception` for a transport failure or a client that went away. */
  async exchange(exception: ObservedException | null = null): Promise<JsonObject> {
    return buildExchange(await this.observed(exception));
  }

  /**
   * The serialized line (`serializeExchange(await this.exchange(exception))`, byte for byte). The request's
   * part is usually ready (see requestComplete); a response body that is already canonical JSON goes in as
   * it is. Throws JsonSerializeError like serializeExchange.
   */
  async line(exception: ObservedException | null = null): Promise<Buffer> {
    const request = this.preparedRequest();
    if (request.error) throw request.error;
    const call = await this.observed(exception);
    const preserialized: Record<string, Uint8Array> = {};
    const prepared: PreparedBodies = {};
    if (request.serialized) {
      preserialized.request = request.serialized;
      prepared.request = 'serialized';
    } else prepared.request = 'not-an-object';
    if (!exception && !call.streaming && isCanonicalJsonObject(call.responseBody)) {
      preserialized.response = call.responseBody;
      prepared.response = 'serialized';
    }
    return serializeExchange(buildExchange(call, prepared), preserialized);
  }

  /**
   * The request body has been read in full: its part of the line (a lossless parse and re-serialization,
   * unless the body is canonical already) is prepared now, while the upstream works, rather than after the
   * response, whose last bytes wait for the line.
   */
  requestComplete(): void {
    setImmediate(() => this.preparedRequest());
  }

  private request: PreparedRequest | null = null;

  private preparedRequest(): PreparedRequest {
    if (this.request && this.request.chunks === this.requestChunks.length) return this.request;
    const body = concat(this.requestChunks.length ? this.requestChunks : [Buffer.alloc(0)]);
    const request: PreparedRequest = { chunks: this.requestChunks.length, body, serialized: null, error: null };
    if (isCanonicalJsonObject(body)) request.serialized = body;
    else {
      const value = parseObject(body);
      // Depth 1: the request sits inside the exchange object, and the serializer's depth limit counts it.
      if (value) {
        try {
          request.serialized = Buffer.from(serializeAtDepth(value, 1), 'utf8');
        } catch (error) {
          request.error = error as Error;
        }
      }
    }
    return (this.request = request);
  }

  private async observed(exception: ObservedException | null): Promise<ObservedCall> {
    this.stop();
    this.decoder?.close();
    const { completedAt, latencyMs } = this.stopped!;
    return {
      modelCallId: this.modelCallId,
      dialect: this.dialect,
      modelServerName: this.modelServerName,
      startedAt: this.startedAt,
      completedAt,
      latencyMs,
      ttftMs: this.ttftMs,
      statusCode: this.statusCode,
      requestBody: this.preparedRequest().body,
      responseBody: await this.capturedBody(),
      streaming: this.streamingBody,
      terminal: this.scanner?.terminal ?? null,
      exception,
    };
  }
}
