// One model call: the request bytes an agent sends, the bytes the provider answers (JSON, SSE, or an HTTP
// error), plausible token counts and timings, and the exchange line the capture middleware writes for them.
// The line always comes from `buildExchange`, so `request_raw`/`response_raw`, reassembly and
// `error_category` follow the middleware's own rules rather than the demo's idea of them.
import { buildExchange } from '../capture/exchange';
import type { JsonObject } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import { TerminalScanner } from '../capture/sse';
import { estimateTokens, type AssistantTurn, type Conversation } from './conversation';
import { truncateStream, type RequestOptions, type Usage } from './dialect-shared';
import { RENDERERS } from './dialects';
import type { Rng } from './random';
import type { CallFault } from './rollout-trace';
import type { ModelServer } from './scenario';

export interface CallInput {
  rng: Rng;
  server: ModelServer;
  conv: Conversation;
  turn: AssistantTurn;
  options: RequestOptions;
  fault: CallFault | null;
  /** Unix seconds. */
  startedAt: number;
  /** This server's prompt tokens on its previous call in the rollout (0 for the first call). */
  previousPrompt: number;
  /** Tokens of the system prompt and tools, which other rollouts of the run have usually cached. */
  sharedPrefix: number;
}

export interface CallResult {
  exchange: JsonObject;
  completedAt: number;
  usage: Usage;
  /** True when the call produced the assistant turn (no fault). */
  ok: boolean;
}

const encoder = new TextEncoder();
const toBytes = (text: string) => encoder.encode(text);

/** Decode speed, ms per output token, by serving stack. */
function msPerToken(server: ModelServer): number {
  if (server.dialect === 'messages') return 21;
  return server.vllm ? 14 : 9;
}

function usageFor(input: CallInput, requestBytes: number): Usage {
  const { rng, server, turn, previousPrompt, sharedPrefix } = input;
  const prompt = estimateTokens(requestBytes);
  const warmPrefix = rng.chance(0.75) ? Math.min(sharedPrefix, prompt) : 0;
  const visible = estimateTokens(Buffer.byteLength(turn.text ?? '') + turn.toolUses.reduce((n, u) => n + serialize(u.args).length + u.name.length + 12, 0));
  const reasoningText = estimateTokens(Buffer.byteLength(turn.reasoning ?? ''));
  // Responses reasoning is a summary of hidden reasoning several times longer; Chat and Messages show it whole.
  const reasoning = turn.reasoning ? (server.dialect === 'responses' ? Math.round(reasoningText * rng.float(2.5, 6)) : reasoningText) : 0;
  const output = visible + reasoning + (turn.toolUses.length ? 6 : 1);
  if (server.dialect === 'messages') {
    // A cache breakpoint on the last message: the previous prompt is read back, the new turn is written.
    const cached = previousPrompt > 0 && rng.chance(0.95) ? Math.min(previousPrompt, prompt - 1) : warmPrefix;
    const uncached = Math.min(prompt - cached, rng.int(1, 12));
    return { prompt, cached, cacheCreation: prompt - cached - uncached, output, reasoning };
  }
  // Prefix caches hand out whole blocks: 16 tokens in vLLM, 128 at OpenAI.
  const block = server.vllm ? 16 : 128;
  const reusable = previousPrompt > 0 && rng.chance(0.92) ? previousPrompt : warmPrefix;
  return { prompt, cached: Math.floor(Math.min(reusable, prompt - 1) / block) * block, cacheCreation: 0, output, reasoning };
}

function errorStatus(input: CallInput): number {
  const { rng, server } = input;
  if (input.fault === 'rate_limit') return 429;
  if (server.dialect === 'messages') return rng.chance(0.7) ? 529 : 500;
  if (server.vllm) return 503;
  return rng.pick([500, 502, 503]);
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function simulateCall(input: CallInput): CallResult {
  const { rng, server, fault } = input;
  const renderer = RENDERERS[server.dialect];
  const requestBody = toBytes(renderer.request(input.conv, server, input.options));
  const usage = usageFor(input, requestBody.length);
  const queueMs = rng.around(25, 0.6);
  const prefillMs = 15 + (usage.prompt - usage.cached) * rng.float(0.04, 0.12);
  const tpot = rng.around(msPerToken(server), 0.2);
  const generateMs = usage.output * tpot;
  const createdAt = input.startedAt + (queueMs + prefillMs) / 1000;
  const response = { turn: input.turn, usage, server, createdAt, reasoning: input.options.reasoning };

  let status = 200;
  let streaming = input.options.streaming;
  let body: string;
  let latencyMs: number;
  let ttftMs: number | null;
  if (fault === 'rate_limit' || fault === 'server_error') {
    status = errorStatus(input);
    streaming = false; // providers answer errors with a JSON body, whatever was asked
    body = serialize(renderer.errorBody(status, server, rng));
    latencyMs = fault === 'rate_limit' ? rng.around(35, 0.5) : rng.around(status === 503 ? 40 : 1800, 0.7);
    ttftMs = latencyMs - rng.float(0.05, 0.4);
  } else if (fault === 'truncated' || fault === 'stream_error') {
    body = fault === 'truncated' ? truncateStream(renderer.stream(response, rng), rng) : renderer.streamError(response, rng);
    ttftMs = queueMs + prefillMs + tpot;
    latencyMs = ttftMs + generateMs * rng.float(0.2, 0.7);
  } else if (streaming) {
    body = renderer.stream(response, rng).join('');
    ttftMs = queueMs + prefillMs + tpot;
    latencyMs = ttftMs + generateMs + rng.float(0.2, 2);
  } else {
    body = serialize(renderer.response(response));
    latencyMs = queueMs + prefillMs + generateMs;
    ttftMs = latencyMs - rng.float(0.05, 0.6);
  }
  const responseBody = toBytes(body);
  let terminal = null;
  if (streaming) {
    const scanner = new TerminalScanner(server.dialect);
    scanner.push(responseBody);
    terminal = scanner.terminal;
  }
  const startedAt = round6(input.startedAt);
  const completedAt = round6(input.startedAt + latencyMs / 1000 + rng.float(0.00001, 0.0002));
  const exchange = buildExchange({
    modelCallId: rng.uuid4hex(),
    dialect: server.dialect,
    modelServerName: server.name,
    startedAt,
    completedAt,
    latencyMs,
    ttftMs,
    statusCode: status,
    requestBody,
    responseBody,
    streaming,
    terminal,
  });
  return { exchange, completedAt, usage, ok: fault === null };
}
