// The shape of a request's path, checked in `serve` before Next.js sees the request. Next answers a path
// segment that is not valid percent-encoded UTF-8 (a lone '%', '%zz', '%ff', the overlong '%c0%ae') with a
// 500 from its router, before any route code runs, and redirects a backslash ('a\b', '..\..\x') or an empty
// segment to another path (308). No id contains any of these, nor a control character, nor is one a dot
// segment ('.', '..', '%2e%2e', which URL parsers resolve away). So such a path is not any page or API
// route's business: an API path is answered here with a 400 in the API's error shape, and a page path is
// handed to Next as a path no route has, which renders the app's not-found page with status 404 (the
// address bar keeps the URL the user asked for). A request target that is not a path (`http://host/x`,
// `*`) is a 400 as well. The query string is left to the routes: their schemas read it leniently decoded.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A path no page or route answers (App Router folders starting with '_' are private): Next's 404 page. */
export const NOT_FOUND_PATH = '/_callscope/not-found';

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why the request target is not a well-formed path of ids, or null when it is. */
export function requestTargetProblem(target: string): string | null {
  if (!target.startsWith('/')) return 'the request target is not a path';
  const q = target.indexOf('?');
  const segments = (q < 0 ? target : target.slice(0, q)).split('/').slice(1);
  for (let i = 0; i < segments.length; i++) {
    const raw = segments[i];
    // Only a trailing slash may leave a segment empty (Next redirects it away, to the same resource).
    if (raw === '' && i < segments.length - 1) return `path segment ${i + 1} is empty`;
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return `path segment ${i + 1} is not valid percent-encoded UTF-8`;
    }
    if (decoded.includes('\\')) return `path segment ${i + 1} holds a backslash`;
    if (CONTROL.test(decoded)) return `path segment ${i + 1} holds a control character`;
    if (decoded === '.' || decoded === '..') return `path segment ${i + 1} is a dot segment`;
  }
  return null;
}

/** Whether a request target is under /api (as sent: Next matches '/%61pi' to no route). */
export function isApiTarget(target: string): boolean {
  return /^\/api(?:[/?]|$)/.test(target);
}

/**
 * Returns true when the request may go on to the routes (a malformed page path now points at the not-found
 * page); otherwise it has been answered with a 400.
 */
export function checkRequestShape(req: IncomingMessage, res: ServerResponse): boolean {
  const target = req.url ?? '';
  const problem = requestTargetProblem(target);
  if (problem === null) return true;
  if (target.startsWith('/') && !isApiTarget(target)) {
    req.url = NOT_FOUND_PATH;
    return true;
  }
  const body = JSON.stringify({ error: { code: 'bad_request', message: `malformed path: ${problem}` } });
  res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
  return false;
}
