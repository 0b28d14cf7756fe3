'use client';

import { LiveIndicator } from './live-indicator';
import { useLiveRefresh } from './use-live-refresh';

/**
 * A live indicator that also re-renders the server view around it when its runs change (or, given `rollout`,
 * when that rollout of the one run changes).
 */
export function LiveRefresh({ runs, rollout, className }: { runs: string[] | null; rollout?: string; className?: string }) {
  const { status, activeRuns } = useLiveRefresh(runs, { match: rollout === undefined ? undefined : (c) => c.rollouts.includes(rollout) });
  return <LiveIndicator status={status} receiving={activeRuns.size > 0} className={className} />;
}
