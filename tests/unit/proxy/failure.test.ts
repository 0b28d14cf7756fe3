import { describe, expect, it } from 'vitest';
import { exceptionCategory } from '../../../lib/capture/errors';
import { badGatewayBody, ClientDisconnectedError, failureKind, observedException } from '../../../lib/proxy/failure';

const withCode = (code: string, name = 'Error') => Object.assign(new Error('x'), { code, name });

describe('transport failures named like the Python exceptions they stand for (§6.6)', () => {
  it.each([
    ['ECONNREFUSED', 'connection'],
    ['ECONNRESET', 'connection'],
    ['EPIPE', 'connection'],
    ['UND_ERR_SOCKET', 'connection'],
    ['UND_ERR_CLOSED', 'connection'],
    ['ENOTFOUND', 'connection'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ETIMEDOUT', 'timeout'],
    ['UND_ERR_ABORTED', 'exception'],
  ])('%s -> %s', (code, category) => {
    expect(failureKind(withCode(code))).toBe(category);
  });

  it('reads the code of an AggregateError (happy-eyeballs connect) from its first error', () => {
    const agg = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed');
    expect(observedException(agg).name).toBe('ConnectionRefusedError');
  });

  it('keeps the class name of an unknown error, and a client that left counts as a connection failure', () => {
    expect(observedException(new TypeError('bad'))).toEqual({ name: 'TypeError' });
    expect(failureKind(new ClientDisconnectedError())).toBe('connection');
  });

  it('after a head the status decides when it is an error status, else the failure does', () => {
    expect(exceptionCategory(200, observedException(withCode('UND_ERR_SOCKET')).name)).toBe('connection');
    expect(exceptionCategory(503, observedException(withCode('UND_ERR_SOCKET')).name)).toBe('upstream_error');
  });

  it('answers a JSON body that OpenAI- and Anthropic-style clients can read', () => {
    const body = JSON.parse(badGatewayBody(withCode('ECONNREFUSED'), 'http://127.0.0.1:9').toString());
    expect(body).toMatchObject({ type: 'error', error: { type: 'upstream_unavailable', code: 'connection' } });
    expect(body.error.message).toContain('http://127.0.0.1:9');
    expect(body.error.message).toContain('ECONNREFUSED');
  });
});
