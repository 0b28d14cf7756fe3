'use client';

import { FilterSelect } from '@/components/rollouts/filter-select';
import { SearchBox } from '@/components/ui/search-box';
import type { RunsView } from '@/lib/view/runs';
import type { RunsViewPatch } from './use-runs-view';

/** Search over run names and agents, and a filter by agent; both live in the URL (use-runs-view.ts). */
export function RunsFilters({ view, agents, onChange }: { view: RunsView; agents: { agent: string; runs: number }[]; onChange: (patch: RunsViewPatch) => void }) {
  return (
    <div className="flex flex-wrap items-end gap-3">
      <SearchBox label="Search runs" placeholder="run name, agent…" value={view.q} onChange={(q) => onChange({ q })} className="w-64" />
      {agents.length > 1 || view.agent ? (
        <FilterSelect label="Agent" value={view.agent} options={agents.map((a) => [a.agent, `${a.agent} (${a.runs})`] as [string, string])} onChange={(agent) => onChange({ agent })} />
      ) : null}
    </div>
  );
}
