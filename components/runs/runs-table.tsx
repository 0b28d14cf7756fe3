'use client';

import Link from 'next/link';
import { useMemo, useState } from 'react';
import { LiveIndicator } from '@/components/live/live-indicator';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { buttonClass } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { cn } from '@/components/ui/cn';
import type { Run } from '@/lib/api/schemas';
import { agentOptions, nextRunSort, RUN_COLUMNS, selectRuns, sharedFacts } from '@/lib/view/runs';
import { usageShown } from '@/lib/view/table';
import { RunRow } from './run-row';
import { RunsFilters } from './runs-filters';
import { RunsSortHeader } from './runs-sort-header';
import { SharedFactsLine } from './shared-facts';
import { useRunsView } from './use-runs-view';

/** The runs with their totals, searched, filtered and sorted from the URL; select two or more to compare. Refreshes while runs change or index. */
export function RunsTable({ runs }: { runs: Run[] }) {
  const [view, setView] = useRunsView();
  const [picked, setPicked] = useState<ReadonlySet<string>>(() => new Set());
  const { status, activeRuns } = useLiveRefresh(null, { poll: runs.some((r) => r.progress.state !== 'ready') });
  const shown = useMemo(() => selectRuns(runs, view), [runs, view]);
  const shared = useMemo(() => sharedFacts(runs), [runs]);
  const agents = useMemo(() => agentOptions(runs), [runs]);
  const columns = RUN_COLUMNS.filter((c) => !c.list || shared[c.key as 'agents' | 'model_servers'] === null);
  const selected = useMemo(() => runs.map((r) => r.id).filter((id) => picked.has(id)), [runs, picked]);
  const toggle = (id: string, on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const all = shown.length > 0 && shown.every((r) => picked.has(r.id));
  const selectShown = (on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      for (const r of shown) if (on) next.add(r.id); else next.delete(r.id);
      return next;
    });
  const compareHref = `/compare?runs=${selected.map(encodeURIComponent).join(',')}`;

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <RunsFilters view={view} agents={agents} onChange={setView} />
        <span role="status" aria-label="runs shown" className="pb-1.5 text-sm text-muted">
          {shown.length === runs.length ? (runs.length === 1 ? '1 run' : `${runs.length} runs`) : `${shown.length} of ${runs.length} runs`}
        </span>
        <span className="ml-auto pb-1.5 text-sm text-muted">{selected.length ? `${selected.length} selected` : 'Select two or more runs to compare them'}</span>
        {selected.length >= 2 ? (
          <Link href={compareHref} className={buttonClass('primary')}>
            Compare {selected.length} runs
          </Link>
        ) : (
          <span aria-disabled="true" className={cn(buttonClass('primary'), 'pointer-events-none opacity-40')}>
            Compare
          </span>
        )}
        <LiveIndicator status={status} receiving={activeRuns.size > 0} className="pb-1.5" />
      </div>
      <SharedFactsLine facts={shared} runs={runs.length} />
      <div className="overflow-x-auto rounded-lg border border-line">
        <table className="w-full text-sm">
          <thead className="bg-panel text-xs text-muted">
            <tr>
              <th className="w-8 px-2 py-2 text-left">
                <Checkbox checked={all} onChange={(e) => selectShown(e.target.checked)} aria-label="select all shown runs" />
              </th>
              {columns.map((c) => (
                <RunsSortHeader key={c.key} column={c} view={view} onSort={(key) => setView(nextRunSort(view, key))} align={c.key === 'run' || c.list ? 'left' : 'right'} />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((run) => (
              <RunRow key={run.id} run={run} shared={shared} selected={picked.has(run.id)} onSelect={(on) => toggle(run.id, on)} live={activeRuns.has(run.id)} />
            ))}
            {shown.length === 0 ? (
              <tr>
                <td colSpan={columns.length + 1} className="px-3 py-6 text-center text-sm text-muted">
                  No run matches.{' '}
                  <button type="button" className="text-accent hover:underline" onClick={() => setView({ q: null, agent: null })}>
                    Clear the search
                  </button>
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      {runs.some((r) => usageShown(r.totals, r.totals.calls)) ? (
        <p className="text-xs text-muted">
          Token figures in <span className="italic">italics</span> are sums of the rollout lines&apos; own <code>response.usage</code>: those runs have no
          captured calls. An agent&apos;s response.usage may count its last turn only or the whole rollout.
        </p>
      ) : null}
    </div>
  );
}
