// The upstream is configuration, never request input: one origin (plus an optional base path that is put in
// front of every forwarded path), reached through one keep-alive undici Pool. Undici's header and body
// timeouts default to 300 s, which would cut long generations, so both are set explicitly (0 = none).
import { Pool } from 'undici';

export interface UpstreamOptions {
  /** Milliseconds to wait for the response headers; 0 waits forever (the default). */
  headersTimeoutMs?: number;
  /** Milliseconds the response body may stay silent between chunks; 0 waits forever (the default). */
  bodyTimeoutMs?: number;
  /** Milliseconds to establish a connection (default 30 s). */
  connectTimeoutMs?: number;
  /**
   * Idle time before a pooled upstream connection is closed when the upstream sends no keep-alive hint
   * (default 4 s, below the 5 s idle timeout of common servers, so a request never races their close).
   */
  keepAliveTimeoutMs?: number;
}

export interface Upstream {
  /** `scheme://host:port`, as shown to users. */
  readonly origin: string;
  /** The configured URL's path without its trailing slash ('' for the root). */
  readonly basePath: string;
  readonly pool: Pool;
  /** The upstream path for a client path (already stripped of any `/ng-rollout/<id>` prefix). */
  pathFor(pathAndQuery: string): string;
  close(): Promise<void>;
}

export class UpstreamUrlError extends Error {}

/** Parses and checks an upstream URL: http or https, no credentials, no query or fragment. */
export function parseUpstreamUrl(value: string): { origin: string; basePath: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UpstreamUrlError(`${value}: not a URL (expected e.g. http://127.0.0.1:8000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UpstreamUrlError(`${value}: only http and https upstreams are supported`);
  }
  if (url.username || url.password) throw new UpstreamUrlError(`${value}: credentials in the URL are not supported`);
  if (url.search || url.hash) throw new UpstreamUrlError(`${value}: the upstream URL cannot have a query or fragment`);
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

export function createUpstream(value: string, options: UpstreamOptions = {}): Upstream {
  const { origin, basePath } = parseUpstreamUrl(value);
  const pool = new Pool(origin, {
    connections: null,
    pipelining: 1,
    headersTimeout: options.headersTimeoutMs ?? 0,
    bodyTimeout: options.bodyTimeoutMs ?? 0,
    connectTimeout: options.connectTimeoutMs ?? 30_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
  });
  return {
    origin,
    basePath,
    pool,
    pathFor: (pathAndQuery) => basePath + pathAndQuery,
    close: () => pool.close(),
  };
}
