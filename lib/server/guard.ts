// Request guard in front of every page and API route: the Host header must name this server (DNS
// rebinding), and with a token every request must carry it (bearer header, or the cookie that `?token=`
// sets). Pages get a Content-Security-Policy with a fresh script nonce per response (lib/server/csp.ts),
// put on the request too for Next.js to read; a policy header the client sent is never the one read.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import { contentSecurityPolicy } from './csp';
import { isApiTarget, requestTargetProblem } from './request-shape';

const COOKIE = 'callscope_token';

export interface GuardOptions {
  host: string;
  port: number;
  token?: string;
}

function localNames(host: string): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
  if (host !== '0.0.0.0' && host !== '::') names.add(host.includes(':') ? `[${host}]` : host);
  else {
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces())) {
      for (const a of list ?? []) names.add(a.family === 'IPv6' ? `[${a.address}]` : a.address);
    }
  }
  return names;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return null; // not valid percent-encoding: no token
    }
  }
  return null;
}

/** The `?token=` of a well-formed path (a malformed one is never redirected: the routes answer it). */
function queryToken(target: string): { url: URL; token: string } | null {
  if (requestTargetProblem(target) !== null) return null;
  const url = new URL(target, 'http://local');
  const token = url.searchParams.get('token');
  return token === null ? null : { url, token };
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code, message } }));
}

/** Returns true when the request may proceed; otherwise it has been answered. */
export function makeGuard(options: GuardOptions): (req: IncomingMessage, res: ServerResponse, port: number) => boolean {
  const names = localNames(options.host);
  return (req, res, port) => {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader);
    if (!m || !names.has(m[1]) || (m[2] !== undefined && Number(m[2]) !== port)) {
      refuse(res, 421, 'bad_request', 'this server does not answer for that Host');
      return false;
    }
    if (options.token) {
      const fromQuery = queryToken(req.url ?? '');
      if (fromQuery !== null && sameSecret(fromQuery.token, options.token) && req.method === 'GET') {
        const { url } = fromQuery;
        url.searchParams.delete('token');
        res.writeHead(303, {
          location: url.pathname + (url.search || '') + url.hash,
          'set-cookie': `${COOKIE}=${encodeURIComponent(options.token)}; HttpOnly; SameSite=Strict; Path=/`,
        });
        res.end();
        return false;
      }
      const auth = req.headers.authorization;
      const bearer = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
      const cookie = cookieValue(req.headers.cookie, COOKIE);
      const presented = bearer ?? cookie;
      if (presented === null || !sameSecret(presented, options.token)) {
        refuse(res, 401, 'unauthorized', 'a token is required: send Authorization: Bearer <token>, or open any page once with ?token=<token>');
        return false;
      }
    }
    delete req.headers['content-security-policy'];
    delete req.headers['content-security-policy-report-only'];
    if (!isApiTarget(req.url ?? '')) {
      const policy = contentSecurityPolicy(randomBytes(16).toString('base64'));
      req.headers['content-security-policy'] = policy;
      res.setHeader('content-security-policy', policy);
    }
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    return true;
  };
}
