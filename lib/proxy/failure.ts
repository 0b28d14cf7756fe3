// Transport failures (spec §6.6 exception path, architecture "Transport failures"). Undici and node:net
// report failures by error code, while the classification reads the exception's class name the way NeMo
// Gym's Python does (`timeout` first, then `conn`), so each failure is named after the Python exception it
// corresponds to: ConnectionRefusedError, ConnectionResetError, TimeoutError, ...
import { classifyException } from '../capture/errors';
import type { ObservedException } from '../capture/exchange';

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

const CONNECTION_NAMES: Record<string, string> = {
  ECONNREFUSED: 'ConnectionRefusedError',
  ECONNRESET: 'ConnectionResetError',
  ECONNABORTED: 'ConnectionAbortedError',
  EPIPE: 'ServerDisconnectedError',
  UND_ERR_SOCKET: 'ServerDisconnectedError',
  UND_ERR_CLOSED: 'ServerDisconnectedError',
  ENOTFOUND: 'ClientConnectorError',
  EAI_AGAIN: 'ClientConnectorError',
  EHOSTUNREACH: 'ClientConnectorError',
  ENETUNREACH: 'ClientConnectorError',
  EHOSTDOWN: 'ClientConnectorError',
  EADDRNOTAVAIL: 'ClientConnectorError',
};

/** The client went away before the call finished (the upstream exchange is aborted). */
export class ClientDisconnectedError extends Error {
  readonly code = 'CLIENT_DISCONNECTED';
  constructor() {
    super('the client closed the connection before the response was complete');
    this.name = 'ClientDisconnectedError';
  }
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof e?.code === 'string') return e.code;
  // node:net's happy-eyeballs connect reports an AggregateError of per-address failures.
  if (Array.isArray(e?.errors) && e.errors.length) return errorCode(e.errors[0]);
  if (e?.cause && e.cause !== error) return errorCode(e.cause);
  return undefined;
}

/** What the capture records about a failure: the class name that drives the category. */
export function observedException(error: unknown): ObservedException {
  const code = errorCode(error);
  if (code && TIMEOUT_CODES.has(code)) return { name: 'TimeoutError', isTimeout: true };
  if (code && CONNECTION_NAMES[code]) return { name: CONNECTION_NAMES[code] };
  const name = (error as Error)?.name;
  return { name: typeof name === 'string' && name ? name : 'Error' };
}

/** The category a failure gets when no upstream status applies (timeout, connection or exception). */
export function failureKind(error: unknown): string {
  const { name, isTimeout } = observedException(error);
  return classifyException(name, isTimeout);
}

/** The 502 body for a failure before any response head: readable by OpenAI- and Anthropic-style clients. */
export function badGatewayBody(error: unknown, upstreamOrigin: string): Buffer {
  const kind = failureKind(error);
  const code = errorCode(error);
  const detail = (error as Error)?.message || String(error);
  const message = `callscope proxy: upstream ${upstreamOrigin} ${kind === 'timeout' ? 'timed out' : 'failed'}: ${detail}${code ? ` (${code})` : ''}`;
  return Buffer.from(JSON.stringify({ type: 'error', error: { type: 'upstream_unavailable', code: kind, message } }));
}
