// The browser's loads of one URL (components/calls/use-fetched.ts): views asking for the same URL at once share one
// request and one parsed value (a rollout's line is read by its conversation and its tree), a failed load is tried
// again by the next view that asks, and an API error reads as its message.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { load, loadShared } from '../../../components/calls/use-fetched';
import { parseLine } from '../../../components/rollouts/use-rollout-line';

const tick = () => new Promise((r) => setTimeout(r, 0));

function stubFetch(answer: (url: string, n: number) => Response): { urls: string[] } {
  const seen = { urls: [] as string[] };
  vi.stubGlobal('fetch', async (url: string) => {
    seen.urls.push(url);
    return answer(url, seen.urls.length);
  });
  return seen;
}

afterEach(() => vi.unstubAllGlobals());

describe('loadShared', () => {
  it('one request and one parsed value for the views that ask at once; a new request once it has settled', async () => {
    const seen = stubFetch(() => new Response('{"reward":1.0,"n":12345678901234567891}'));
    const [a, b] = await Promise.all([loadShared('/api/x/line', parseLine), loadShared('/api/x/line', parseLine)]);
    expect(seen.urls).toEqual(['/api/x/line']);
    expect(a.status).toBe('ready');
    expect(b).toBe(a); // the same parsed line, not a second parse
    await tick();
    await loadShared('/api/x/line', parseLine);
    expect(seen.urls).toEqual(['/api/x/line', '/api/x/line']);
  });

  it('keeps URLs and parsers apart, and does not keep a failed load', async () => {
    const seen = stubFetch((url, n) => (n === 1 ? new Response('{"error":{"code":"not_found","message":"unknown rollout 9-9"}}', { status: 404 }) : new Response('{}')));
    const failed = await loadShared('/api/y/line', parseLine);
    expect(failed).toEqual({ status: 'error', message: 'unknown rollout 9-9', notFound: true });
    await tick();
    const [again, other, text] = await Promise.all([loadShared('/api/y/line', parseLine), loadShared('/api/z/line', parseLine), loadShared('/api/y/line', (t) => t)]);
    expect(seen.urls).toEqual(['/api/y/line', '/api/y/line', '/api/z/line', '/api/y/line']);
    expect(again.status).toBe('ready');
    expect(other.status).toBe('ready');
    expect(text).toMatchObject({ status: 'ready', value: '{}' });
  });
});

describe('load', () => {
  it('a body that is not an API error keeps the status line; a failed request its message', async () => {
    stubFetch(() => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(await load('/api/a', (t) => t)).toEqual({ status: 'error', message: '502 Bad Gateway', notFound: false });
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(await load('/api/a', (t) => t)).toEqual({ status: 'error', message: 'Failed to fetch', notFound: false });
  });

  it('a line JSON.parse cannot read (NaN, as Python writes it) is kept as text', async () => {
    stubFetch(() => new Response('{"reward":NaN}'));
    expect(await load('/api/b/line', parseLine)).toMatchObject({ status: 'ready', value: { value: null, text: '{"reward":NaN}' } });
  });
});
