import { describe, expect, it } from 'vitest';
import { routeRequest } from '../../../lib/proxy/handler';

describe('§6.1/§6.2 routing of a request target', () => {
  it('strips the prefix and names the dialect of the three observed paths', () => {
    expect(routeRequest('/ng-rollout/7-0/v1/chat/completions')).toEqual({ pathAndQuery: '/v1/chat/completions', rolloutId: '7-0', dialect: 'chat' });
    expect(routeRequest('/ng-rollout/task7-roll2/v1/responses').dialect).toBe('responses');
    expect(routeRequest('/ng-rollout/a/v1/messages?beta=true')).toEqual({ pathAndQuery: '/v1/messages?beta=true', rolloutId: 'a', dialect: 'messages' });
  });

  it('strips the training-token-capture segment and still captures under the same id', () => {
    expect(routeRequest('/ng-rollout/3-1/training-token-capture/v1/responses')).toEqual({ pathAndQuery: '/v1/responses', rolloutId: '3-1', dialect: 'responses' });
    // Greedy with backtracking: nothing after the segment makes the segment the rest.
    expect(routeRequest('/ng-rollout/r/training-token-capture')).toEqual({ pathAndQuery: '/training-token-capture', rolloutId: 'r', dialect: null });
  });

  it('forwards unobserved paths stripped but without a dialect (trailing slash, other endpoints)', () => {
    for (const rest of ['/v1/models', '/v1/completions', '/health', '/v1/responses/', '/V1/responses', '/']) {
      expect(routeRequest(`/ng-rollout/abc${rest}`)).toEqual({ pathAndQuery: rest, rolloutId: 'abc', dialect: null });
    }
  });

  it('leaves an unprefixed target unchanged', () => {
    expect(routeRequest('/v1/chat/completions?x=1')).toEqual({ pathAndQuery: '/v1/chat/completions?x=1', rolloutId: null, dialect: null });
    expect(routeRequest('/ng-rollout/')).toEqual({ pathAndQuery: '/ng-rollout/', rolloutId: null, dialect: null });
    expect(routeRequest('/ng-rollout/x')).toEqual({ pathAndQuery: '/ng-rollout/x', rolloutId: null, dialect: null });
  });

  it('reads the id from the raw path, without percent-decoding it', () => {
    expect(routeRequest('/ng-rollout/a%2F..%2Fb/v1/responses')).toMatchObject({ rolloutId: 'a%2F..%2Fb', pathAndQuery: '/v1/responses' });
    expect(routeRequest('/ng-rollout/..%2F..%2Fetc/v1/messages').rolloutId).toBe('..%2F..%2Fetc');
    expect(routeRequest('/ng-rollout/../v1/messages')).toMatchObject({ rolloutId: '..', dialect: 'messages' });
  });

  it('compares the decoded rest with the observed paths, and forwards the rest as sent', () => {
    expect(routeRequest('/ng-rollout/a/v1/%72esponses')).toEqual({ pathAndQuery: '/v1/%72esponses', rolloutId: 'a', dialect: 'responses' });
    expect(routeRequest('/ng-rollout/a/v1/%zz')).toEqual({ pathAndQuery: '/v1/%zz', rolloutId: 'a', dialect: null });
  });

  it('routes an absolute-form target by its path only; the authority never chooses anything', () => {
    expect(routeRequest('http://evil.example:9/ng-rollout/4-2/v1/responses?q=1')).toEqual({ pathAndQuery: '/v1/responses?q=1', rolloutId: '4-2', dialect: 'responses' });
  });

  it('does not treat inherited object keys as observed paths', () => {
    expect(routeRequest('/ng-rollout/a/constructor').dialect).toBeNull();
    expect(routeRequest('/ng-rollout/a/__proto__').dialect).toBeNull();
  });
});
