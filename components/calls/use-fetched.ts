'use client';

// Loads one URL once per address (payloads are fetched by the browser, never carried in page props), with
// its size in bytes and the time it took, and a readable error for a 404 or a failed request. `shared`: views
// that ask for the same URL with the same parser at once share one request and one parsed value (a rollout's
// line, hundreds of KB, read by its conversation and its tree); a shared load is kept only while it is in
// flight, so a failed one is tried again by the next view that asks.
import { useEffect, useState } from 'react';
import { isObj } from '@/lib/view/json-object';
import { parseKeepingNumbers } from '@/lib/view/json-source';
import { readBody } from './read-body';

export type Fetched<T> =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; value: T; bytes: number; ms: number }
  | { status: 'error'; message: string; notFound: boolean };

type Settled<T> = Extract<Fetched<T>, { status: 'ready' | 'error' }>;

/** One request: the parsed body, or the API's error message (else the status line). */
export async function load<T>(url: string, parse: (text: string) => T, signal?: AbortSignal): Promise<Settled<T>> {
  const started = performance.now();
  try {
    const res = await fetch(url, { signal });
    const { text, bytes } = await readBody(res);
    if (!res.ok) {
      let message = `${res.status} ${res.statusText}`;
      try {
        message = (JSON.parse(text) as { error: { message: string } }).error.message;
      } catch {
        // not an API error body; keep the status line
      }
      return { status: 'error', message, notFound: res.status === 404 };
    }
    return { status: 'ready', value: parse(text), bytes, ms: performance.now() - started };
  } catch (err) {
    return { status: 'error', message: (err as Error).message, notFound: false };
  }
}

const inFlight = new WeakMap<(text: string) => unknown, Map<string, Promise<Settled<unknown>>>>();

/** `load`, one request per URL and parser among the callers that ask before it settles. */
export function loadShared<T>(url: string, parse: (text: string) => T): Promise<Settled<T>> {
  let byUrl = inFlight.get(parse);
  if (!byUrl) inFlight.set(parse, (byUrl = new Map()));
  let p = byUrl.get(url) as Promise<Settled<T>> | undefined;
  if (!p) {
    const loading = load(url, parse);
    byUrl.set(url, loading);
    // Dropped a task after it settles: views mounted with the one that asked first still share it.
    void loading.then(() => setTimeout(() => byUrl.delete(url), 0));
    p = loading;
  }
  return p;
}

export function useFetched<T>(url: string | null, parse: (text: string) => T, options: { shared?: boolean } = {}): Fetched<T> {
  const [state, setState] = useState<Fetched<T>>({ status: url ? 'loading' : 'idle' });
  const shared = options.shared ?? false;
  useEffect(() => {
    if (!url) return setState({ status: 'idle' });
    // A shared request is not aborted: other views may be waiting for it.
    const abort = shared ? null : new AbortController();
    let live = true;
    setState({ status: 'loading' });
    void (shared ? loadShared(url, parse) : load(url, parse, abort!.signal)).then((r) => {
      if (live) setState(r);
    });
    return () => {
      live = false;
      abort?.abort();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `parse` is a module-level function; callers that pass one inline must not refetch on every render
  }, [url, shared]);
  return state;
}

export type CallRecord = Record<string, unknown>;

export const parseRecord = (text: string): CallRecord => {
  const v: unknown = parseKeepingNumbers(text);
  return isObj(v) ? v : {};
};
export const keepText = (text: string) => text;
