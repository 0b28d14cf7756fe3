'use client';

import { useTransition } from 'react';
import { nextSort, viewParams, type RolloutView } from '@/lib/view/table';
import type { RolloutPage } from '@/lib/api/schemas';
import { RolloutsFilters } from './rollouts-filters';
import { RolloutsResults } from './rollouts-results';
import { useRolloutView } from './use-rollout-view';

/**
 * The rollouts of a run: filters over a table. The URL holds the view; changing it re-renders the first page
 * on the server, and the results below restart from that page (keyed by the view the server rendered).
 */
export function RolloutsView({ run, modelServers, unreadableLines, view, initial }: { run: string; modelServers: string[]; unreadableLines: number; view: RolloutView; initial: RolloutPage }) {
  const [pending, startTransition] = useTransition();
  const [urlView, setView] = useRolloutView(startTransition);
  return (
    <div className="space-y-3">
      <RolloutsFilters view={urlView} setView={setView} modelServers={modelServers} unreadableLines={unreadableLines} trajectories={initial.rollouts.some((r) => r.trajectory !== null)} />
      <RolloutsResults
        key={viewParams(view).toString()}
        run={run}
        view={view}
        initial={initial}
        busy={pending}
        shownSort={{ sort: urlView.sort, order: urlView.order }}
        onSort={(key) => setView(nextSort({ sort: urlView.sort, order: urlView.order }, key))}
      />
    </div>
  );
}
