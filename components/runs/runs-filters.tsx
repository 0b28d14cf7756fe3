'use client';

import { Search } from 'lucide-react';
import { useId } from 'react';
import { cn } from '@/components/ui/cn';
import { controlClass, FilterSelect } from '@/components/rollouts/filter-select';
import type { RunsView } from '@/lib/view/runs';
import type { RunsViewPatch } from './use-runs-view';

/** Search over run names and agents, and a filter by agent; both live in the URL (use-runs-view.ts). */
export function RunsFilters({ view, agents, onChange }: { view: RunsView; agents: { agent: string; runs: number }[]; onChange: (patch: RunsViewPatch) => void }) {
  const id = useId();
  return (
    <div className="flex flex-wrap items-end gap-3">
      <div className="flex flex-col gap-0.5 text-xs text-muted">
        <label htmlFor={id}>Search runs</label>
        <span className="relative">
          <Search size={14} className="pointer-events-none absolute top-1/2 left-2 -translate-y-1/2 text-muted" aria-hidden />
          <input
            id={id}
            type="search"
            name="q"
            value={view.q ?? ''}
            maxLength={200}
            placeholder="run name, agent…"
            onChange={(e) => onChange({ q: e.target.value || null })}
            className={cn(controlClass, 'w-64 pl-7', view.q && 'border-accent')}
          />
        </span>
      </div>
      {agents.length > 1 || view.agent ? (
        <FilterSelect label="Agent" value={view.agent} options={agents.map((a) => [a.agent, `${a.agent} (${a.runs})`] as [string, string])} onChange={(agent) => onChange({ agent })} />
      ) : null}
    </div>
  );
}
