'use client';

// Loads one URL once per address (payloads are fetched by the browser, never carried in page props), with
// its size in bytes and the time it took, and a readable error for a 404 or a failed request.
import { useEffect, useState } from 'react';
import { parseKeepingNumbers } from '@/lib/view/json-source';
import { readBody } from './read-body';

export type Fetched<T> =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; value: T; bytes: number; ms: number }
  | { status: 'error'; message: string; notFound: boolean };

export function useFetched<T>(url: string | null, parse: (text: string) => T): Fetched<T> {
  const [state, setState] = useState<Fetched<T>>({ status: url ? 'loading' : 'idle' });
  useEffect(() => {
    if (!url) return setState({ status: 'idle' });
    const abort = new AbortController();
    const started = performance.now();
    setState({ status: 'loading' });
    fetch(url, { signal: abort.signal })
      .then(async (res) => {
        const { text, bytes } = await readBody(res);
        if (!res.ok) {
          let message = `${res.status} ${res.statusText}`;
          try {
            message = (JSON.parse(text) as { error: { message: string } }).error.message;
          } catch {
            // not an API error body; keep the status line
          }
          return setState({ status: 'error', message, notFound: res.status === 404 });
        }
        setState({ status: 'ready', value: parse(text), bytes, ms: performance.now() - started });
      })
      .catch((err: Error) => {
        if (!abort.signal.aborted) setState({ status: 'error', message: err.message, notFound: false });
      });
    return () => abort.abort();
  }, [url]); // `parse` is a module-level function
  return state;
}

export type CallRecord = Record<string, unknown>;

export const parseRecord = (text: string): CallRecord => {
  const v: unknown = parseKeepingNumbers(text);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as CallRecord) : {};
};
export const keepText = (text: string) => text;
