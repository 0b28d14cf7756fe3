// The request-shape check `serve` runs before Next.js: every malformed id (not valid percent-encoded UTF-8, a
// backslash, a control character, an empty or dot segment) is caught, in any segment; well-formed ids and
// paths, and anything in the query string, pass. An API path is answered 400 in the API's error shape; a page
// path is pointed at the not-found page.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkRequestShape, isApiTarget, NOT_FOUND_PATH, requestTargetProblem } from '../../../lib/server/request-shape';

const MALFORMED_IDS = ['%c0%ae', '%c0%af', '%', '%zz', '%ff', '%e0%80%af', '%ed%a0%80', 'a%', 'x%2', 'a\\b', '%5c', '%5C', '..\\..\\x', 'a%5cb', '%00', 'a%0ab', '.', '..', '%2e', '%2e%2e', '.%2E', ''];

describe('requestTargetProblem', () => {
  it('passes well-formed paths of ids', () => {
    for (const p of ['/', '/runs/swe-claude-code', '/runs/r/rollouts/0-0~f2/calls/i3', '/runs/a%20b', '/runs/%2e%2e%2f..%2fetc', '/runs/x/', '/api/runs/r/rollouts/%C3%A9', '/_next/static/chunks/a-b.js', '/runs/r?q=%ff&x=\\', '/compare?runs=a,b'])
      expect(requestTargetProblem(p), p).toBeNull();
  });

  it('catches a malformed id in any segment of a page or API path', () => {
    const templates = ['/runs/ID', '/runs/r/rollouts/ID', '/runs/r/rollouts/0-0/calls/ID', '/api/runs/ID/rollouts', '/api/runs/r/rollouts/ID', '/api/runs/r/rollouts/0-0/calls/ID/raw', '/ID'];
    for (const t of templates) {
      for (const id of MALFORMED_IDS) {
        if (id === '' && t.endsWith('/ID')) continue; // a trailing slash is not an id
        const p = t.replace('ID', id);
        expect(requestTargetProblem(p), p).toMatch(/^path segment \d+ /);
      }
    }
  });

  it('names what is wrong, and refuses a target that is not a path', () => {
    expect(requestTargetProblem('/runs/%c0%ae')).toBe('path segment 2 is not valid percent-encoded UTF-8');
    expect(requestTargetProblem('/runs/a\\b')).toBe('path segment 2 holds a backslash');
    expect(requestTargetProblem('//evil.example/x')).toBe('path segment 1 is empty');
    expect(requestTargetProblem('/runs/%2e%2e')).toBe('path segment 2 is a dot segment');
    for (const t of ['http://[/x', 'http://127.0.0.1/runs', '*', '']) expect(requestTargetProblem(t), t).toBe('the request target is not a path');
  });
});

describe('isApiTarget', () => {
  it('is the /api prefix as sent', () => {
    expect(['/api', '/api/', '/api/runs', '/api?x'].every(isApiTarget)).toBe(true);
    expect(['/apix', '/%61pi/runs', '/runs/api', 'http://h/api/runs'].some(isApiTarget)).toBe(false);
  });
});

function answered(url: string, method = 'GET') {
  const req = { url, method } as IncomingMessage;
  const out: { status?: number; headers?: Record<string, string | number>; body?: string } = {};
  const res = {
    writeHead: (status: number, headers: Record<string, string | number>) => Object.assign(out, { status, headers }),
    end: (body?: string) => (out.body = body),
  } as unknown as ServerResponse;
  return { goesOn: checkRequestShape(req, res), url: req.url, ...out };
}

describe('checkRequestShape', () => {
  it('lets a well-formed request through untouched', () => {
    expect(answered('/runs/r?q=%ff')).toEqual({ goesOn: true, url: '/runs/r?q=%ff' });
  });

  it('answers a malformed API path with a 400 in the API error shape', () => {
    const r = answered('/api/runs/%c0%ae/rollouts');
    expect(r.goesOn).toBe(false);
    expect(r.status).toBe(400);
    expect(r.headers?.['content-type']).toBe('application/json');
    expect(JSON.parse(r.body!)).toEqual({ error: { code: 'bad_request', message: 'malformed path: path segment 3 is not valid percent-encoded UTF-8' } });
    expect(answered('/api/runs/a\\b/rollouts', 'HEAD').body).toBeUndefined();
  });

  it('points a malformed page path at the not-found page', () => {
    for (const p of ['/runs/%ff', '/runs/r/rollouts/..\\..\\x', '/runs//x', '/%c0%af']) expect(answered(p), p).toEqual({ goesOn: true, url: NOT_FOUND_PATH });
    expect(requestTargetProblem(NOT_FOUND_PATH)).toBeNull();
  });

  it('answers a target that is not a path with a 400', () => {
    for (const t of ['http://[/x', 'http://127.0.0.1/api/runs', '*']) expect(answered(t).status, t).toBe(400);
  });
});
