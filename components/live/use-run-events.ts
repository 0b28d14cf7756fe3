'use client';

// Reports the changes of the runs asked for (all runs when `runs` is null) from GET /api/events (Server-Sent
// Events, `event: change` with `{run, rollouts}`), through the one connection the browser's callscope tabs
// share (shared-events.ts). `status` says whether the stream is up, `activeRuns` which runs changed in the
// last few seconds.
import { useEffect, useRef, useState } from 'react';
import { subscribeEvents, type LiveStatus } from './shared-events';

export type { LiveStatus };
export interface RunChange {
  run: string;
  rollouts: string[];
}

const ACTIVE_MS = 5000;

function parseChange(data: string): RunChange | null {
  try {
    const v = JSON.parse(data) as unknown;
    if (v && typeof v === 'object' && typeof (v as RunChange).run === 'string' && Array.isArray((v as RunChange).rollouts)) {
      return { run: (v as RunChange).run, rollouts: (v as RunChange).rollouts.filter((k): k is string => typeof k === 'string') };
    }
  } catch {
    // a malformed event is ignored; the next one refreshes
  }
  return null;
}

export function useRunEvents(runs: string[] | null, onChange?: (change: RunChange) => void): { status: LiveStatus; activeRuns: ReadonlySet<string> } {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [activeRuns, setActiveRuns] = useState<ReadonlySet<string>>(() => new Set());
  const callback = useRef(onChange);
  useEffect(() => {
    callback.current = onChange;
  });
  const filter = runs === null ? null : runs.join('\n');

  useEffect(() => {
    const wanted = filter === null ? null : new Set(filter.split('\n'));
    const timers = new Map<string, ReturnType<typeof setTimeout>>();
    const unsubscribe = subscribeEvents({
      status: setStatus,
      change: (data) => {
        const change = parseChange(data);
        if (!change || (wanted && !wanted.has(change.run))) return;
        setActiveRuns((prev) => (prev.has(change.run) ? prev : new Set(prev).add(change.run)));
        clearTimeout(timers.get(change.run));
        timers.set(
          change.run,
          setTimeout(() => {
            setActiveRuns((prev) => {
              const next = new Set(prev);
              next.delete(change.run);
              return next;
            });
          }, ACTIVE_MS),
        );
        callback.current?.(change);
      },
    });
    return () => {
      unsubscribe();
      for (const t of timers.values()) clearTimeout(t);
    };
  }, [filter]);

  return { status, activeRuns };
}
