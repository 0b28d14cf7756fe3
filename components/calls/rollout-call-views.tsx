'use client';

import { startTransition, useEffect, useRef, useState, type ComponentType } from 'react';
import type { RolloutChartsProps } from '@/components/charts/rollout-charts';
import type { TimelineChartProps } from '@/components/timeline/timeline-chart';
import { Card } from '@/components/ui/card';
import { formatCount } from '@/lib/view/format';
import type { CallColumns } from '@/lib/api/call-schemas';
import { CALL_COLUMN_PARTS } from '@/lib/view/series';
import { rolloutApiHref } from './call-href';
import { readBody } from './read-body';
import type { CallsTableProps } from './calls-table';

function Placeholder({ height, text }: { height: number; text: string }) {
  return (
    <div className="flex items-center justify-center rounded-md bg-panel text-sm text-muted" style={{ height }}>
      {text}
    </div>
  );
}

// The chart code (d3, flatbush, and recharts for small rollouts) and the table (tanstack virtual) are in their
// own chunks, requested together with the call columns so that all arrive at about the same time, and kept out
// of the task that evaluates the page's scripts and hydrates it. They are mounted only once loaded: a lazy
// component suspends on its first render, and the retry rendered the timeline in a time-sliced pass that the
// next stage interrupted, so its layout was computed twice (two long tasks at 30,000 calls).
interface Views {
  prepareTimeline: (columns: CallColumns) => unknown;
  TimelineChart: ComponentType<TimelineChartProps>;
  RolloutCharts: ComponentType<RolloutChartsProps>;
  CallsTable: ComponentType<CallsTableProps>;
}
const loadViews = (): Promise<Views> =>
  Promise.all([import('@/components/timeline/timeline-chart'), import('@/components/timeline/timeline-data'), import('@/components/charts/rollout-charts'), import('./calls-table')]).then(([t, d, c, k]) => ({
    prepareTimeline: d.timelineData,
    TimelineChart: t.TimelineChart,
    RolloutCharts: c.RolloutCharts,
    CallsTable: k.CallsTable,
  }));

// The timeline's layout is computed, then the timeline, the three charts and the table mount, one per task, so
// that no single task lays out and draws all of them (over tens of thousands of calls each is a sizeable task;
// together they made long tasks). Stage k shows: 2 the timeline, 3–5 the charts one by one, 6 the table.
const STAGES = 6;

/**
 * Counts from 0 to `stages`, one step per macrotask, once `ready`; stays at `stages` afterwards. `before(k)`
 * runs in the step's own task, before the render of stage k (which React runs in a task after it).
 */
function useStages(ready: boolean, stages: number, before: (stage: number) => void): number {
  const [stage, setStage] = useState(0);
  const step = useRef(before);
  step.current = before;
  useEffect(() => {
    if (!ready || stage >= stages) return;
    const t = setTimeout(() => {
      step.current(stage + 1);
      setStage((s) => s + 1);
    }, 0);
    return () => clearTimeout(t);
  }, [ready, stage, stages]);
  return stage;
}

/**
 * The timeline, the per-call charts and the calls table of a rollout, drawn from one copy of its call columns.
 * The columns are fetched after the page paints (inlined in the HTML, a 30,000-call rollout costs seconds of
 * parsing) and rendered in a transition, so the page never blocks for long. When the rollout changes (live),
 * the server re-renders the page with a new `version`; the views keep showing the calls they have (and their
 * zoom, hover and scroll) until the new columns arrive. Without `timeline` (a rollout whose trajectory the page draws
 * instead), the call timeline is left out.
 */
export function RolloutCallViews({ run, rollout, n, version, timeline = true }: { run: string; rollout: string; n: number; version: string; timeline?: boolean }) {
  const [columns, setColumns] = useState<CallColumns | null>(null);
  const [views, setViews] = useState<Views | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stage = useStages(columns !== null && views !== null, STAGES, (k) => {
    if (k === 1 && columns && views) views.prepareTimeline(columns);
  });
  const none = n === 0;
  useEffect(() => {
    if (none) return;
    // The chunks are requested in a task of their own: inserting their script elements took tens of ms,
    // which made the task that runs the page's first effects a long one.
    let live = true;
    const load = setTimeout(() => {
      loadViews().then(
        (v) => live && setViews(v),
        (err: Error) => live && setError(err.message),
      );
    }, 0);
    return () => {
      live = false;
      clearTimeout(load);
    };
  }, [none]);
  useEffect(() => {
    if (n === 0) return;
    const abort = new AbortController();
    // In parts, each received and parsed in a task of its own (one answer for a large rollout made a long task).
    const part = async (fields: readonly string[]) => {
      const res = await fetch(`${rolloutApiHref(run, rollout)}/calls?fields=${fields.join(',')}`, { signal: abort.signal });
      if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
      return JSON.parse((await readBody(res)).text) as Partial<CallColumns>;
    };
    Promise.all(CALL_COLUMN_PARTS.map(part))
      .then((parts) => {
        const value = Object.assign({}, ...parts) as CallColumns;
        startTransition(() => setColumns(value));
      })
      .catch((err: Error) => abort.signal.aborted || setError(err.message));
    return () => abort.abort();
  }, [run, rollout, n, version]);
  if (n === 0) {
    return (
      <Card title="Calls">
        <p className="text-sm text-muted">This rollout has no captured calls to draw (see its gaps).</p>
      </Card>
    );
  }
  const ready = columns !== null && views !== null;
  const wait = (height: number, text: string) => (error ? <p className="text-sm text-bad">The calls could not be loaded: {error}</p> : <Placeholder height={height} text={text} />);
  return (
    <>
      {timeline ? (
        <Card title={`Timeline (${formatCount(n)} call${n === 1 ? '' : 's'})`}>{ready && stage >= 2 ? <views.TimelineChart run={run} rollout={rollout} columns={columns} /> : wait(240, 'Loading the calls…')}</Card>
      ) : null}
      <Card title="Per call">{ready && stage >= 3 ? <views.RolloutCharts run={run} rollout={rollout} columns={columns} shown={stage - 2} /> : wait(480, 'Loading the charts…')}</Card>
      <Card title="Calls">{ready && stage >= 6 ? <views.CallsTable run={run} rollout={rollout} columns={columns} /> : wait(300, 'Loading the calls…')}</Card>
    </>
  );
}
