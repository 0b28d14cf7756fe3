'use client';

import Link from 'next/link';
import { useMemo, useState } from 'react';
import { LiveIndicator } from '@/components/live/live-indicator';
import { useLiveRefresh } from '@/components/live/use-live-refresh';
import { buttonClass } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { cn } from '@/components/ui/cn';
import type { RunInfo } from '@/lib/index/index';
import { usageShown } from '@/lib/view/table';
import { RunRow } from './run-row';

const HEADERS: [string, string?][] = [
  ['Run'],
  ['Rollouts', 'Rollouts, including failed attempts from the failures file'],
  ['Calls'],
  ['Tokens in'],
  ['Tokens out'],
  ['Reasoning', 'Reasoning tokens'],
  ['Cached', 'Cached input tokens'],
  ['Total tokens'],
  ['Errors', 'Calls with an error category'],
  ['Gaps', 'Gaps (missing evidence) over all rollouts'],
  ['Mean reward'],
  ['Model servers'],
];

/** The runs with their totals; select two or more to compare. Refreshes while runs change or index. */
export function RunsTable({ runs }: { runs: RunInfo[] }) {
  const [picked, setPicked] = useState<ReadonlySet<string>>(() => new Set());
  const { status, activeRuns } = useLiveRefresh(null, { poll: runs.some((r) => r.progress.state !== 'ready') });
  const selected = useMemo(() => runs.map((r) => r.id).filter((id) => picked.has(id)), [runs, picked]);
  const toggle = (id: string, on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const all = selected.length === runs.length && runs.length > 0;
  const compareHref = `/compare?runs=${selected.map(encodeURIComponent).join(',')}`;

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <span className="text-sm text-muted">{selected.length ? `${selected.length} selected` : 'Select two or more runs to compare them'}</span>
        {selected.length >= 2 ? (
          <Link href={compareHref} className={buttonClass('primary')}>
            Compare {selected.length} runs
          </Link>
        ) : (
          <span aria-disabled="true" className={cn(buttonClass('primary'), 'pointer-events-none opacity-40')}>
            Compare
          </span>
        )}
        <LiveIndicator status={status} receiving={activeRuns.size > 0} className="ml-auto" />
      </div>
      <div className="overflow-x-auto rounded-lg border border-line">
        <table className="w-full text-sm">
          <thead className="bg-panel text-xs text-muted">
            <tr>
              <th className="w-8 px-3 py-2 text-left">
                <Checkbox checked={all} onChange={(e) => setPicked(e.target.checked ? new Set(runs.map((r) => r.id)) : new Set())} aria-label="select all runs" />
              </th>
              {HEADERS.map(([label, title], i) => (
                <th key={label} title={title} scope="col" className={cn('px-3 py-2 font-medium whitespace-nowrap', i === 0 || i === HEADERS.length - 1 ? 'text-left' : 'text-right')}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <RunRow key={run.id} run={run} selected={picked.has(run.id)} onSelect={(on) => toggle(run.id, on)} live={activeRuns.has(run.id)} />
            ))}
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
