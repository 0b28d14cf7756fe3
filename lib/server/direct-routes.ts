// The three API routes `serve` answers from node:http before Next.js, behind the same guard and with the same
// endpoint functions as their route files under app/api (which `next dev` still uses):
// - GET /api/runs, so that the first API answer comes as soon as the index is open, not after Next has
//   loaded (most of a warm start), nor after a first start's `next build`;
// - GET .../calls/{call}/raw, the stored line piped from its byte span with 1 MiB reads: the Next route's
//   web stream moved a very large line several times slower than a node pipe, which moves it at disk speed;
// - GET .../calls/{call}, the call record around its request and response spans, written as it is read: the
//   payload view of a large request spent most of its wait in the Next route's web stream.
// This file only matches paths and decodes their segments; lib/api/endpoints/ answers. The endpoints (and zod,
// slow to load) are loaded after the server listens, not before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from '../api/answer';
import type { CallPathParams } from '../api/endpoints/call-params';
import type { IndexReader } from '../index/reader';
import { writeAnswer } from './node-answer';

const api = () =>
  Promise.all([import('../api/answer'), import('../api/endpoints/runs'), import('../api/endpoints/call-record'), import('../api/endpoints/call-raw')]).then(
    ([answer, runs, record, raw]) => ({ ...answer, ...runs, ...record, ...raw }),
  );

/** Loads the API's endpoints and schemas (call once the server listens). */
export function warmDirectRoutes(): void {
  void api();
}

type Route = (index: IndexReader, m: RegExpExecArray, url: URL) => Promise<Answer>;

const callParams = (m: RegExpExecArray): CallPathParams => ({ run: segment(m[1]), rollout: segment(m[2]), call: segment(m[3]) });

const ROUTES: [RegExp, Route][] = [
  [/^\/api\/runs$/, async (index) => (await api()).runsEndpoint(index)],
  [/^\/api\/runs\/([^/]+)\/rollouts\/([^/]+)\/calls\/([^/]+)\/raw$/, async (index, m, url) => (await api()).callRawEndpoint(index, { ...callParams(m), download: url.searchParams.get('download') !== null })],
  [/^\/api\/runs\/([^/]+)\/rollouts\/([^/]+)\/calls\/([^/]+)$/, async (index, m) => (await api()).callRecordEndpoint(index, callParams(m))],
];

function segment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // not valid percent-encoding: the schema refuses the '%'
  }
}

/** Returns a handler that answers its routes and returns true, or returns false for anything else. */
export function makeDirectRoutes(index: IndexReader): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = new URL(req.url ?? '/', 'http://local');
    for (const [pattern, route] of ROUTES) {
      const m = pattern.exec(url.pathname);
      if (!m) continue;
      route(index, m, url)
        .then((answer) => writeAnswer(req, res, answer))
        .catch(async (err) => {
          const answer = (await api()).errorAnswer(err); // logs what is not a typed error, even mid-body
          if (res.headersSent) res.destroy();
          else await writeAnswer(req, res, answer);
        });
      return true;
    }
    return false;
  };
}
