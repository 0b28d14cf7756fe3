'use client';

// The rollout's own line, fetched once per page for every view that reads it (its conversation and its tree): the
// line can be hundreds of KB, and both open at once on a rollout without calls.
import { useEffect, useState } from 'react';
import type { Fetched } from '@/components/calls/use-fetched';
import { readBody } from '@/components/calls/read-body';
import { parseKeepingNumbers } from '@/lib/view/json-source';

export type Line = { value: unknown; text: null } | { value: null; text: string };

/** The line parsed (numbers kept as written); a line JSON.parse cannot read (NaN, a BOM: Python's json reads those) is kept as text. */
function parseLine(text: string): Line {
  try {
    return { value: parseKeepingNumbers(text), text: null };
  } catch {
    return { value: null, text };
  }
}

type Loaded = { ok: true; value: Line; bytes: number; ms: number } | { ok: false; message: string; notFound: boolean };
const loads = new Map<string, Promise<Loaded>>();

function load(url: string): Promise<Loaded> {
  let p = loads.get(url);
  if (!p) {
    const started = performance.now();
    p = fetch(url)
      .then(async (res): Promise<Loaded> => {
        const { text, bytes } = await readBody(res);
        if (!res.ok) return { ok: false, message: `${res.status} ${res.statusText}`, notFound: res.status === 404 };
        return { ok: true, value: parseLine(text), bytes, ms: performance.now() - started };
      })
      .catch((err: Error): Loaded => ({ ok: false, message: err.message, notFound: false }));
    loads.set(url, p);
    // A failed load is tried again by the next view that asks; a loaded line is kept only while it is in use.
    void p.then(() => setTimeout(() => loads.delete(url), 0));
  }
  return p;
}

export function useRolloutLine(url: string | null): Fetched<Line> {
  const [state, setState] = useState<Fetched<Line>>({ status: url ? 'loading' : 'idle' });
  useEffect(() => {
    if (!url) return setState({ status: 'idle' });
    let live = true;
    setState({ status: 'loading' });
    void load(url).then((r) => {
      if (!live) return;
      setState(r.ok ? { status: 'ready', value: r.value, bytes: r.bytes, ms: r.ms } : { status: 'error', message: r.message, notFound: r.notFound });
    });
    return () => {
      live = false;
    };
  }, [url]);
  return state;
}

export const rolloutLineUrl = (run: string, rollout: string) => `/api/runs/${encodeURIComponent(run)}/rollouts/${encodeURIComponent(rollout)}/line`;
