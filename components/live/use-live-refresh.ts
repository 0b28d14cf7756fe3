'use client';

// Keeps a server-rendered view current: re-renders it (router.refresh, which keeps client state) when one of
// its runs changes, at most once a second, and every `pollMs` while `poll` is set (indexing progress).
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef } from 'react';
import { useRunEvents, type RunChange } from './use-run-events';

const MIN_INTERVAL_MS = 1000;

export interface LiveRefreshOptions {
  poll?: boolean;
  pollMs?: number;
  /** Only changes this accepts re-render the view (e.g. those of one rollout); all do by default. */
  match?: (change: RunChange) => boolean;
}

export function useLiveRefresh(runs: string[] | null, { poll = false, pollMs = 1500, match }: LiveRefreshOptions = {}) {
  const router = useRouter();
  const last = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);

  const refresh = useCallback(() => {
    if (pending.current) return;
    const wait = Math.max(0, last.current + MIN_INTERVAL_MS - Date.now());
    pending.current = setTimeout(() => {
      pending.current = null;
      last.current = Date.now();
      router.refresh();
    }, wait);
  }, [router]);

  useEffect(() => () => clearTimeout(pending.current ?? undefined), []);
  useEffect(() => {
    if (!poll) return;
    const t = setInterval(refresh, pollMs);
    return () => clearInterval(t);
  }, [poll, pollMs, refresh]);

  const matchRef = useRef(match);
  useEffect(() => {
    matchRef.current = match;
  });
  const onChange = useCallback((change: RunChange) => (matchRef.current?.(change) ?? true) && refresh(), [refresh]);
  return useRunEvents(runs, onChange);
}
