'use client';

import { LiveIndicator } from './live-indicator';
import { useLiveRefresh } from './use-live-refresh';

/** A live indicator that also re-renders the server view around it when its runs change. */
export function LiveRefresh({ runs }: { runs: string[] | null }) {
  const { status, activeRuns } = useLiveRefresh(runs);
  return <LiveIndicator status={status} receiving={activeRuns.size > 0} />;
}
