// What the three dialect renderers share: the token usage a call reports, the render options, SSE framing
// and request assembly. Every payload is serialized with the capture format's own serializer (compact,
// `1.0` stays `1.0`), so the bytes are what a provider or agent would plausibly send.
import type { JsonObject, JsonValue } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import type { AssistantTurn, Conversation } from './conversation';
import type { Rng } from './random';
import type { ModelServer } from './scenario';

export interface Usage {
  /** All prompt tokens, cached ones included. */
  prompt: number;
  /** Prompt tokens served from the provider's prefix cache (Anthropic: cache reads). */
  cached: number;
  /** Anthropic only: prompt tokens written to the cache by this call. */
  cacheCreation: number;
  /** Completion tokens, reasoning included. */
  output: number;
  reasoning: number;
}

export interface RequestOptions {
  streaming: boolean;
  reasoning: boolean;
  temperature: number | null;
  maxTokens: number;
}

export interface ResponseInput {
  turn: AssistantTurn;
  usage: Usage;
  server: ModelServer;
  /** Unix seconds of the provider's `created` stamp. */
  createdAt: number;
  reasoning: boolean;
}

/** One SSE event block. Chat streams have no `event:` lines. */
export function sse(event: string | null, data: JsonObject | string): string {
  const payload = typeof data === 'string' ? data : serialize(data);
  return event ? `event: ${event}\ndata: ${payload}\n\n` : `data: ${payload}\n\n`;
}

/** Some whole events before the terminal (the last event), as far as a broken stream got. */
export function eventsBefore(events: string[], rng: Rng, lo: number, hi: number): { text: string; kept: number } {
  const kept = Math.max(1, Math.floor((events.length - 1) * rng.float(lo, hi)));
  return { text: events.slice(0, kept).join(''), kept };
}

/** A stream cut before its terminal event, the way a dropped connection leaves it: possibly mid-event. */
export function truncateStream(events: string[], rng: Rng): string {
  const { text, kept } = eventsBefore(events, rng, 0.35, 0.85);
  const next = events[kept];
  return rng.chance(0.5) && next ? text + next.slice(0, Math.max(1, Math.floor(next.length / 2))) : text;
}

/** JSON text already serialized, spliced into an object by `spliceJson`. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * The serialized object, with RawJson values copied in verbatim. Agents resend the whole conversation on
 * every call, so renderers keep each message's serialized form and only join them per request: the bytes
 * equal serializing the whole object, without re-serializing the history each turn.
 */
export function spliceJson(fields: Record<string, JsonValue | RawJson | undefined>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${serialize(key)}:${value instanceof RawJson ? value.text : serialize(value)}`);
  }
  return `{${parts.join(',')}}`;
}

/** Memoizes a serialization per object identity (messages and tool lists never change once made). */
export function memo<K extends object>(fn: (key: K) => string): (key: K) => string {
  const cache = new WeakMap<K, string>();
  return (key) => {
    let text = cache.get(key);
    if (text === undefined) cache.set(key, (text = fn(key)));
    return text;
  };
}

export interface Renderer {
  /** The request body's JSON text. */
  request(conv: Conversation, server: ModelServer, options: RequestOptions): string;
  /** The non-streaming response body. */
  response(input: ResponseInput): JsonObject;
  /** The SSE events of a streamed response, terminal last. */
  stream(input: ResponseInput, rng: Rng): string[];
  /** A stream that breaks with the dialect's error event after some content. */
  streamError(input: ResponseInput, rng: Rng): string;
  /** An HTTP error body for `status` (429, 5xx), as the provider sends it. */
  errorBody(status: number, server: ModelServer, rng: Rng): JsonObject;
}
