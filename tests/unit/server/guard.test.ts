// The guard's Content-Security-Policy: a nonce-based script policy with a fresh nonce per page request, on
// the response and on the request (where Next.js reads it), never the one a client sent; none on the API.
// And bad input in what the guard reads (cookie, query, request target) is refused, never thrown.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, scriptNonce } from '../../../lib/server/csp';
import { makeGuard } from '../../../lib/server/guard';

function run(guard: ReturnType<typeof makeGuard>, url: string, headers: IncomingHttpHeaders = {}) {
  const req = { url, method: 'GET', headers: { host: '127.0.0.1:3000', ...headers } } as IncomingMessage;
  const set: Record<string, string> = {};
  let status: number | undefined;
  const res = {
    setHeader: (k: string, v: string) => (set[k.toLowerCase()] = v),
    writeHead: (s: number) => (status = s),
    end: () => undefined,
  } as unknown as ServerResponse;
  const goesOn = guard(req, res, 3000);
  return { goesOn, status, req, policy: set['content-security-policy'] };
}

const guard = makeGuard({ host: '127.0.0.1', port: 3000 });

describe('the Content-Security-Policy', () => {
  it('allows scripts by nonce only: no unsafe-inline or unsafe-eval for scripts', () => {
    const policy = run(guard, '/').policy;
    const directives = Object.fromEntries(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['script-src']).toEqual(["'self'", expect.stringMatching(/^'nonce-[A-Za-z0-9+/]{22}=='$/)]);
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['worker-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['base-uri']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
  });

  it('has a fresh nonce per request, set on the request as on the response', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { req, policy } = run(guard, '/runs/x');
      expect(req.headers['content-security-policy']).toBe(policy);
      nonces.add(scriptNonce(policy)!);
    }
    expect(nonces.size).toBe(50);
  });

  it('replaces a policy the client sent, so that a client never chooses the nonce', () => {
    const sent = contentSecurityPolicy('chosen-by-client');
    const { req, policy } = run(guard, '/', { 'content-security-policy': sent, 'content-security-policy-report-only': sent });
    expect(scriptNonce(policy)).not.toBe('chosen-by-client');
    expect(req.headers['content-security-policy']).toBe(policy);
    expect(req.headers['content-security-policy-report-only']).toBeUndefined();
    const api = run(guard, '/api/runs', { 'content-security-policy': sent });
    expect(api.policy).toBeUndefined();
    expect(api.req.headers['content-security-policy']).toBeUndefined();
  });
});

describe('scriptNonce', () => {
  it('reads the nonce as Next.js does: script-src first, else default-src', () => {
    expect(scriptNonce(contentSecurityPolicy('abc+/_-=='))).toBe('abc+/_-==');
    expect(scriptNonce("default-src 'self' 'nonce-xyz'")).toBe('xyz');
    expect(scriptNonce("script-src 'self'; default-src 'nonce-xyz'")).toBeUndefined();
    expect(scriptNonce("script-src 'nonce-bad value'")).toBeUndefined();
    expect(scriptNonce(null)).toBeUndefined();
  });
});

describe('with a token, bad input is refused, never thrown', () => {
  const tokenGuard = makeGuard({ host: '127.0.0.1', port: 3000, token: 's3cret' });

  it('a cookie that is not valid percent-encoding is no token (401)', () => {
    expect(run(tokenGuard, '/', { cookie: 'callscope_token=%ff' })).toMatchObject({ goesOn: false, status: 401 });
    expect(run(tokenGuard, '/', { cookie: 'callscope_token=s3cret' })).toMatchObject({ goesOn: true });
  });

  it('a request target that is not a path, or a malformed path, is never redirected by ?token=', () => {
    for (const url of ['http://[/x?token=s3cret', '//evil.example/?token=s3cret', '/runs/a\\b?token=s3cret', '/runs/%ff?token=s3cret'])
      expect(run(tokenGuard, url), url).toMatchObject({ goesOn: false, status: 401 });
    expect(run(tokenGuard, '/runs/x?token=s3cret')).toMatchObject({ goesOn: false, status: 303 });
  });
});
