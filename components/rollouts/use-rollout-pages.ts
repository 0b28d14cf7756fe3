'use client';

// The loaded rows of one view: the server's first page, more pages as the table scrolls (keyset cursor), and
// live refreshes. A refresh re-reads the rows already loaded (same count, from the top) and swaps them in,
// so rows keep their keys and the scroll position and selection survive; rows that changed flash briefly.
// The server parts of the page (run totals, indexing progress) are refreshed after each live refresh.
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useRunEvents, type RunChange } from '@/components/live/use-run-events';
import type { RolloutView } from '@/lib/view/table';
import type { RolloutPage } from '@/lib/api/schemas';
import { fetchRolloutPage } from './fetch-page';

const PAGE = 100;
const REFRESH_GAP_MS = 1000;
const FLASH_MS = 2500;

export function useRolloutPages(run: string, view: RolloutView, initial: RolloutPage) {
  const router = useRouter();
  const [data, setData] = useState(initial);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [changed, setChanged] = useState<ReadonlySet<string>>(() => new Set());
  const latest = useRef(data);
  const generation = useRef(0);
  const refreshState = useRef({ running: false, again: false, last: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined });
  const abort = useRef(new AbortController());
  const inFlight = useRef(false);
  latest.current = data;

  useEffect(() => {
    const controller = abort.current;
    const state = refreshState.current;
    return () => {
      controller.abort();
      clearTimeout(state.timer);
    };
  }, []);

  const loadMore = useCallback(async () => {
    const { next_cursor: cursor } = latest.current;
    if (!cursor || inFlight.current) return;
    const gen = generation.current;
    inFlight.current = true;
    setLoadingMore(true);
    setError(null);
    try {
      const page = await fetchRolloutPage(run, view, PAGE, cursor, abort.current.signal);
      if (gen !== generation.current) return;
      setData((prev) => {
        const seen = new Set(prev.rollouts.map((r) => r.key));
        return { total: page.total, next_cursor: page.next_cursor, rollouts: [...prev.rollouts, ...page.rollouts.filter((r) => !seen.has(r.key))] };
      });
    } catch (err) {
      if (!abort.current.signal.aborted) setError((err as Error).message);
    } finally {
      inFlight.current = false;
      setLoadingMore(false);
    }
  }, [run, view]);

  const refresh = useCallback(async (keys: string[]) => {
    const state = refreshState.current;
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = true;
    try {
      do {
        state.again = false;
        const want = Math.max(PAGE, latest.current.rollouts.length);
        const rows: RolloutPage['rollouts'] = [];
        let page: RolloutPage | null = null;
        do {
          page = await fetchRolloutPage(run, view, Math.min(500, want - rows.length), page?.next_cursor ?? null, abort.current.signal);
          rows.push(...page.rollouts);
        } while (page.next_cursor && rows.length < want);
        generation.current++;
        setData({ total: page.total, next_cursor: page.next_cursor, rollouts: rows });
        setError(null);
      } while (state.again);
      state.last = Date.now();
      router.refresh();
      setChanged(new Set(keys));
      setTimeout(() => setChanged(new Set()), FLASH_MS);
    } catch (err) {
      if (!abort.current.signal.aborted) setError(`live refresh failed: ${(err as Error).message}`);
    } finally {
      state.running = false;
    }
  }, [run, view, router]);

  const pendingKeys = useRef<string[]>([]);
  const onChange = useCallback(
    (change: RunChange) => {
      const state = refreshState.current;
      pendingKeys.current.push(...change.rollouts);
      if (state.timer) return;
      state.timer = setTimeout(() => {
        state.timer = undefined;
        const keys = pendingKeys.current;
        pendingKeys.current = [];
        void refresh(keys);
      }, Math.max(0, state.last + REFRESH_GAP_MS - Date.now()));
    },
    [refresh],
  );
  const live = useRunEvents([run], onChange);

  return { ...data, loadingMore, error, changed, loadMore, live: { status: live.status, receiving: live.activeRuns.has(run) } };
}
