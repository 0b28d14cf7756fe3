// What `serve` answers, behind the guard, for a request that needs Next.js while the dashboard is being built
// (a first start, or sources newer than the build) or could not be built or started: a page gets a small
// self-contained HTML page with status 503 and Retry-After, which reloads itself every few seconds through a
// meta refresh (the Content-Security-Policy runs no inline script; no script is needed), and an API path gets
// the API's JSON error `unavailable` (503). The page asks for nothing else (its icon is an empty data: URL, its
// style inline), so it cannot fail a request while the build runs. The direct routes (lib/server/direct-routes.ts) answer before this.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isApiTarget } from './request-shape';

/** Seconds between the building page's reloads, and the Retry-After of every answer while building. */
export const RETRY_SECONDS = 2;

export type DashboardState = 'building' | 'failed';

const MESSAGES: Record<DashboardState, { title: string; text: string; api: string }> = {
  building: {
    title: 'callscope is building the dashboard (first start)…',
    text: 'This takes a minute, once: the page reloads by itself when the dashboard is ready. The runs are being indexed meanwhile.',
    api: 'the dashboard is being built (first start); retry shortly',
  },
  failed: {
    title: 'callscope could not start the dashboard',
    text: 'The terminal that runs callscope serve says why. The JSON API still answers /api/runs.',
    api: 'the dashboard could not start',
  },
};

function page(state: DashboardState): string {
  const m = MESSAGES[state];
  const refresh = state === 'building' ? `<meta http-equiv="refresh" content="${RETRY_SECONDS}">` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${refresh}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>callscope</title><link rel="icon" href="data:,">
<style>body{font:15px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#222;background:#fafafa}
main{max-width:34rem;padding:2rem}h1{font-size:1.15rem;font-weight:600;margin:0 0 .5rem}p{margin:0;color:#555}
@media (prefers-color-scheme:dark){body{color:#eee;background:#111}p{color:#aaa}}</style>
</head><body><main><h1>${m.title}</h1><p>${m.text}</p></main></body></html>
`;
}

/** Answers a request that needs the dashboard while it is `state`: the HTML page, or the JSON error under /api. */
export function answerWithoutDashboard(state: DashboardState, req: IncomingMessage, res: ServerResponse): void {
  const api = isApiTarget(req.url ?? '');
  const body = api ? JSON.stringify({ error: { code: 'unavailable', message: MESSAGES[state].api } }) : page(state);
  const headers: Record<string, string> = {
    'content-type': api ? 'application/json' : 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
  };
  if (state === 'building') headers['retry-after'] = String(RETRY_SECONDS);
  res.writeHead(503, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
