import { describe, expect, it } from 'vitest';
import { clientResponseHeaders, contentCodings, firstHeader, requestHasBody, upstreamRequestHeaders } from '../../../lib/proxy/headers';

describe('hop-by-hop headers (RFC 9110 §7.6.1)', () => {
  it('forwards end-to-end request headers in order and spelling, without hop-by-hop ones, Host or Expect', () => {
    const raw = [
      'Host', 'proxy.local:8001',
      'Authorization', 'Bearer sk-1',
      'Connection', 'keep-alive, X-Hop',
      'X-Hop', 'drop me',
      'Keep-Alive', 'timeout=5',
      'Transfer-Encoding', 'chunked',
      'TE', 'trailers',
      'Upgrade', 'h2c',
      'Proxy-Authorization', 'Basic x',
      'Expect', '100-continue',
      'X-Forwarded-For', '10.0.0.1',
      'Content-Type', 'application/json',
      'x-api-key', 'k1',
      'X-Multi', 'a',
      'X-Multi', 'b',
    ];
    expect(upstreamRequestHeaders(raw)).toEqual([
      'Authorization', 'Bearer sk-1',
      'X-Forwarded-For', '10.0.0.1',
      'Content-Type', 'application/json',
      'x-api-key', 'k1',
      'X-Multi', 'a',
      'X-Multi', 'b',
    ]);
  });

  it('forwards response headers except hop-by-hop ones; Content-Length, Set-Cookie duplicates and case survive', () => {
    const raw = ['Content-Type', 'text/event-stream', 'Transfer-Encoding', 'chunked', 'Connection', 'close', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Length', '12', 'Trailer', 'X-T'];
    expect(clientResponseHeaders(raw)).toEqual(['Content-Type', 'text/event-stream', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Length', '12']);
  });

  it('reads the first content-type value with a case-insensitive name match', () => {
    expect(firstHeader(['content-TYPE', 'text/event-stream; charset=utf-8', 'Content-Type', 'application/json'], 'content-type')).toBe('text/event-stream; charset=utf-8');
    expect(firstHeader([], 'content-type')).toBeNull();
  });

  it('lists content codings in the order applied, without identity', () => {
    expect(contentCodings(['Content-Encoding', 'gzip, BR', 'content-encoding', 'identity'])).toEqual(['gzip', 'br']);
    expect(contentCodings(['Content-Type', 'x'])).toEqual([]);
  });

  it('knows when a request has a body', () => {
    expect(requestHasBody({})).toBe(false);
    expect(requestHasBody({ 'content-length': '0' })).toBe(false);
    expect(requestHasBody({ 'content-length': '12' })).toBe(true);
    expect(requestHasBody({ 'transfer-encoding': 'chunked' })).toBe(true);
  });
});
