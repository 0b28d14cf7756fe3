'use client';

import dynamic from 'next/dynamic';
import { startTransition, useEffect, useState } from 'react';
import { Card } from '@/components/ui/card';
import { formatCount } from '@/lib/view/format';
import type { CallColumns } from '@/lib/view/series';
import { rolloutApiHref } from './call-href';

function Placeholder({ height, text }: { height: number; text: string }) {
  return (
    <div className="flex items-center justify-center rounded-md bg-panel text-sm text-muted" style={{ height }}>
      {text}
    </div>
  );
}

// The chart code (d3, flatbush, and recharts for small rollouts) and the table (tanstack virtual) are in their
// own chunks, requested together with the call columns so that all arrive at about the same time, and kept out
// of the task that evaluates the page's scripts and hydrates it.
const loadTimeline = () => import('@/components/timeline/timeline-chart');
const loadCharts = () => import('@/components/charts/rollout-charts');
const loadTable = () => import('./calls-table');
const TimelineChart = dynamic(() => loadTimeline().then((m) => m.TimelineChart), { ssr: false, loading: () => <Placeholder height={240} text="Loading the timeline…" /> });
const RolloutCharts = dynamic(() => loadCharts().then((m) => m.RolloutCharts), { ssr: false, loading: () => <Placeholder height={480} text="Loading the charts…" /> });
const CallsTable = dynamic(() => loadTable().then((m) => m.CallsTable), { ssr: false, loading: () => <Placeholder height={300} text="Loading the calls…" /> });

// The timeline, the three charts and the table mount one per task, so that no single task lays out and draws
// all of them (at 30,000 calls each costs tens of milliseconds; together they made 300 ms long tasks).
const STAGES = 5;

/** Counts from 0 to `stages`, one step per macrotask, once `ready`; stays at `stages` afterwards. */
function useStages(ready: boolean, stages: number): number {
  const [stage, setStage] = useState(0);
  useEffect(() => {
    if (!ready || stage >= stages) return;
    const t = setTimeout(() => setStage((s) => s + 1), 0);
    return () => clearTimeout(t);
  }, [ready, stage, stages]);
  return stage;
}

/**
 * The timeline, the per-call charts and the calls table of a rollout, drawn from one copy of its call columns.
 * The columns are fetched after the page paints (inlined in the HTML, a 30,000-call rollout costs seconds of
 * parsing) and rendered in a transition, so the page never blocks for long. When the rollout changes (live),
 * the server re-renders the page with a new `version`; the views keep showing the calls they have (and their
 * zoom, hover and scroll) until the new columns arrive.
 */
export function RolloutCallViews({ run, rollout, n, version }: { run: string; rollout: string; n: number; version: string }) {
  const [columns, setColumns] = useState<CallColumns | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stage = useStages(columns !== null, STAGES);
  useEffect(() => {
    if (n === 0) return;
    // The chunks are requested in a task of their own: inserting their script elements took tens of ms,
    // which made the task that runs the page's first effects a long one.
    const prefetch = setTimeout(() => void Promise.all([loadTimeline(), loadCharts(), loadTable()]), 0);
    const abort = new AbortController();
    fetch(`${rolloutApiHref(run, rollout)}/calls`, { signal: abort.signal })
      .then(async (res) => {
        if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
        const value = (await res.json()) as CallColumns;
        startTransition(() => setColumns(value));
      })
      .catch((err: Error) => abort.signal.aborted || setError(err.message));
    return () => {
      clearTimeout(prefetch);
      abort.abort();
    };
  }, [run, rollout, n, version]);
  if (n === 0) {
    return (
      <Card title="Calls">
        <p className="text-sm text-muted">This rollout has no captured calls to draw (see its gaps).</p>
      </Card>
    );
  }
  const wait = (height: number, text: string) => (error ? <p className="text-sm text-bad">The calls could not be loaded: {error}</p> : <Placeholder height={height} text={text} />);
  return (
    <>
      <Card title={`Timeline (${formatCount(n)} call${n === 1 ? '' : 's'})`}>{columns && stage >= 1 ? <TimelineChart run={run} rollout={rollout} columns={columns} /> : wait(240, 'Loading the calls…')}</Card>
      <Card title="Per call">{columns && stage >= 2 ? <RolloutCharts run={run} rollout={rollout} columns={columns} shown={stage - 1} /> : wait(480, 'Loading the charts…')}</Card>
      <Card title="Calls">{columns && stage >= 5 ? <CallsTable run={run} rollout={rollout} columns={columns} /> : wait(300, 'Loading the calls…')}</Card>
    </>
  );
}
