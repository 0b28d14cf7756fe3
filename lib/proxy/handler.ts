// The capture middleware as a `node:http` request handler (spec §6, architecture "Capture proxy"). Any Node
// server can mount it; `callscope proxy` runs it standalone and `callscope serve --upstream` mounts it at
// `/ng-rollout/...`.
//
// Routing (§6.1, §6.2): `/ng-rollout/<id>[/training-token-capture]` is stripped from every path. The id is
// read from the raw path without percent-decoding, and only an id the store accepts (§1.3 rule 1: letters,
// digits, `.`, `_`, `-`) can name a file, so no request can create a file outside the capture dir. A call
// is captured when it has such an id and its stripped path is one of the three observed paths; everything
// else (no prefix, an unobserved path, an id the store rejects, capture disabled) is forwarded unchanged
// and not captured. The upstream is fixed by configuration: no request header can choose it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OBSERVED_PATHS } from '../capture/exchange';
import { isStoreRolloutId, parseRolloutPrefix } from '../capture/ids';
import type { Dialect } from '../capture/sse';
import { CaptureStore } from '../capture/store';
import { forward } from './forward';
import { CallObservation } from './observe';
import { Relay } from './relay';
import { createUpstream, type UpstreamOptions } from './upstream';

export interface CaptureHandlerOptions extends UpstreamOptions {
  /** The upstream's URL: `http(s)://host:port` plus an optional base path put in front of every path. */
  upstream: string;
  /** The CaptureStore directory (created if missing); null forwards everything without capturing. */
  captureDir: string | null;
  /** The model-server name recorded in `model_ref`; empty or missing records `model_ref: null`. */
  modelServerName?: string | null;
  /** Capture problems (never the call's); default: console.warn. */
  warn?: (message: string) => void;
}

export interface CaptureHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  readonly upstreamOrigin: string;
  /** True once the capture dir is open; false when capture is disabled (no dir, or it cannot be created). */
  readonly ready: Promise<boolean>;
  /** Waits for calls in flight and their capture writes, then closes the upstream connections. */
  close(): Promise<void>;
}

export interface Route {
  /** The path and query to forward, without the rollout prefix. */
  pathAndQuery: string;
  /** The id segment exactly as sent, or null without a prefix. */
  rolloutId: string | null;
  /** The dialect of an observed path, or null. */
  dialect: Dialect | null;
}

function decodedOrRaw(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Splits a request target into the forwarded path, the rollout id and the dialect. */
export function routeRequest(target: string): Route {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    // Absolute form (`http://host/path`): only the path and query count; the authority never routes.
    try {
      const url = new URL(target);
      pathAndQuery = url.pathname + url.search;
    } catch {
      return { pathAndQuery: target, rolloutId: null, dialect: null };
    }
  }
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? '' : pathAndQuery.slice(q);
  const prefix = parseRolloutPrefix(path);
  if (!prefix) return { pathAndQuery, rolloutId: null, dialect: null };
  // §6.2 compares the decoded path (what the ASGI app sees); the forwarded bytes keep the client's encoding.
  const observed = decodedOrRaw(prefix.rest);
  const dialect = Object.hasOwn(OBSERVED_PATHS, observed) ? OBSERVED_PATHS[observed] : null;
  return { pathAndQuery: prefix.rest + query, rolloutId: prefix.rolloutId, dialect };
}

export function createCaptureHandler(options: CaptureHandlerOptions): CaptureHandler {
  const upstream = createUpstream(options.upstream, options);
  const warn = options.warn ?? ((message: string) => console.warn(`callscope proxy: ${message}`));
  const modelServerName = options.modelServerName || null;
  const inFlight = new Set<Promise<void>>();
  // undefined while the capture dir is being opened.
  let store: CaptureStore | null | undefined = options.captureDir === null ? null : undefined;
  const ready: Promise<boolean> =
    options.captureDir === null
      ? Promise.resolve(false)
      : CaptureStore.open(options.captureDir).then(
          (opened) => {
            store = opened;
            return true;
          },
          (error: Error) => {
            store = null;
            warn(`cannot open the capture dir ${options.captureDir} (${error.message}); capture is disabled, calls are still forwarded`);
            return false;
          },
        );

  const track = (done: Promise<void>) => {
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };

  const start = (req: IncomingMessage, res: ServerResponse, route: Route, capturing: boolean) => {
    const observation = capturing && store ? new CallObservation(route.dialect!, modelServerName) : null;
    const capture = observation ? { store: store!, rolloutId: route.rolloutId!, observation, warn } : null;
    const relay = new Relay(res, upstream.origin, capture, track);
    if (observation) req.once('end', () => observation.requestComplete());
    relay.attach(forward(upstream, req, route.pathAndQuery, relay, observation?.addRequestChunk));
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const route = routeRequest(req.url ?? '/');
    const capturing = route.rolloutId !== null && route.dialect !== null && isStoreRolloutId(route.rolloutId);
    if (capturing && store === undefined) void ready.then(() => start(req, res, route, capturing));
    else start(req, res, route, capturing);
  };

  return Object.assign(handler, {
    upstreamOrigin: upstream.origin,
    ready,
    async close() {
      await ready;
      await upstream.close();
      await Promise.allSettled([...inFlight]);
    },
  });
}
