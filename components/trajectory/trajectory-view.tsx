'use client';

import { useRouter } from 'next/navigation';
import { parseAsString, useQueryState } from 'nuqs';
import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { callHref } from '@/components/calls/call-href';
import { readBody } from '@/components/calls/read-body';
import { usePairKeys } from '@/components/diff/use-pair-keys';
import type { TrajectoryResponse } from '@/lib/api/trajectory-schemas';
import { formatCount } from '@/lib/view/format';
import { ItemKind, layoutTrajectory } from '@/lib/view/trajectory-layout';
import { itemKey, itemsByKey } from '@/lib/view/trajectory-keys';
import { readTrajectory, type TrajectoryParts } from '@/lib/view/trajectory-read';
import { trajectoryNotes, type TrajectoryNotes } from '@/lib/view/trajectory-summary';
import { LaneGroupList } from './lane-group-list';
import { TrajectoryChart } from './trajectory-chart';
import { TrajectoryGaps } from './trajectory-gaps';
import { toolCallHref, trajectoryApiHref } from './trajectory-href';
import { TrajectoryProblems } from './trajectory-notes';
import { TrajectoryOutline } from './trajectory-outline';
import { TrajectorySelection } from './trajectory-selection';
import { TurnStrip } from './turn-strip';

type Loaded = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; parts: TrajectoryParts | null; notes: TrajectoryNotes };

/** The trajectory answer, fetched after the page paints (a large rollout's answer is megabytes) and again on `version`. */
function useTrajectory(run: string, rollout: string, version: string): Loaded {
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  useEffect(() => {
    const abort = new AbortController();
    fetch(trajectoryApiHref(run, rollout), { signal: abort.signal })
      .then(async (res) => {
        if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
        const answer = JSON.parse((await readBody(res)).text) as TrajectoryResponse;
        const parts = readTrajectory(answer);
        startTransition(() => setLoaded({ status: 'ready', parts, notes: trajectoryNotes(answer, parts) }));
      })
      .catch((err: Error) => abort.signal.aborted || setLoaded({ status: 'error', message: err.message }));
    return () => abort.abort();
  }, [run, rollout, version]);
  return loaded;
}

/**
 * The rollout's trajectory: its lane groups, the turns, the timeline and beside it the outline of the same items.
 * The selected item is in the URL (`item`), the same in the timeline and the outline; j / k move it along the
 * outline. Clicking an item in the timeline opens its page (and leaves it selected for the way back).
 */
export function TrajectoryView({ run, rollout, version }: { run: string; rollout: string; version: string }) {
  const loaded = useTrajectory(run, rollout, version);
  const parts = loaded.status === 'ready' ? loaded.parts : null;
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const layout = useMemo(() => (parts ? layoutTrajectory(parts, { collapsed }) : null), [parts, collapsed]);
  const keys = useMemo(() => (parts && layout ? itemsByKey(parts, layout) : new Map<string, number>()), [parts, layout]);
  const [key, setKey] = useQueryState('item', parseAsString.withOptions({ history: 'replace', scroll: false }));
  const selected = key !== null ? (keys.get(key) ?? -1) : -1;
  const router = useRouter();
  const shown = useRef<Int32Array>(new Int32Array(0));
  const invocationIds = useMemo(() => new Set(parts?.invocations.map((i) => i.invocation_id)), [parts]);

  const select = useCallback((item: number) => parts && layout && void setKey(item >= 0 ? itemKey(parts, layout, item) : null), [parts, layout, setKey]);
  const hrefOf = useCallback(
    (item: number): string | null => {
      if (!parts || !layout) return null;
      const j = layout.src[item];
      if (layout.kind[item] === ItemKind.toolCall) return toolCallHref(run, rollout, parts.toolCalls[j].invocation_id, parts.toolCalls[j].tool_call_id);
      const id = layout.kind[item] === ItemKind.modelCall ? parts.modelCalls[j].model_call_id : null;
      return id ? callHref(run, rollout, id) : null;
    },
    [parts, layout, run, rollout],
  );
  const open = (item: number, newTab: boolean) => {
    const href = hrefOf(item);
    if (!href || !parts || !layout) return false;
    if (newTab) window.open(href, '_blank', 'noopener');
    else {
      // the way back finds the item selected: the URL says so before the router leaves it
      const here = new URL(window.location.href);
      here.searchParams.set('item', itemKey(parts, layout, item));
      window.history.replaceState(window.history.state, '', here);
      router.push(href);
    }
    return true;
  };
  const move = useCallback(
    (by: number) => {
      const list = shown.current;
      if (!list.length) return;
      const at = list.indexOf(selected);
      select(list[Math.min(list.length - 1, Math.max(0, at < 0 ? 0 : at + by))]);
    },
    [selected, select],
  );
  usePairKeys(move);
  const onShown = useCallback((items: Int32Array) => {
    shown.current = items;
  }, []);
  const toggle = (g: number) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (!next.delete(g)) next.add(g);
      return next;
    });

  if (loaded.status === 'error') return <p className="text-sm text-bad">The trajectory could not be loaded: {loaded.message}</p>;
  if (loaded.status === 'loading') return <div className="flex h-60 items-center justify-center rounded-md bg-panel text-sm text-muted">Loading the trajectory…</div>;
  if (!parts || !layout) {
    return (
      <div className="space-y-4">
        <TrajectoryProblems notes={loaded.notes} />
        <p className="text-sm text-muted">The rollout has no trajectory to draw.</p>
        <TrajectoryGaps run={run} rollout={rollout} notes={loaded.notes} invocationIds={new Set()} />
      </div>
    );
  }
  return (
    <div className="space-y-4">
      <TrajectoryProblems notes={loaded.notes} />
      <p className="text-sm text-muted">
        {formatCount(parts.modelCalls.length)} model call{parts.modelCalls.length === 1 ? '' : 's'} in the trajectory
        {loaded.notes.observationSource ? (
          <>
            {' '}
            · observations from <code>{loaded.notes.observationSource}</code>
          </>
        ) : null}
      </p>
      <LaneGroupList run={run} rollout={rollout} parts={parts} layout={layout} collapsed={collapsed} toggle={toggle} />
      <TurnStrip run={run} rollout={rollout} parts={parts} />
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_380px]">
        <TrajectoryChart parts={parts} layout={layout} selected={selected} open={open} select={select} toggle={toggle} />
        <TrajectoryOutline parts={parts} layout={layout} selected={selected} select={select} hrefOf={hrefOf} onShown={onShown} />
      </div>
      {selected >= 0 ? <TrajectorySelection run={run} rollout={rollout} parts={parts} layout={layout} item={selected} href={hrefOf(selected)} /> : null}
      {layout.unplaced > 0 ? (
        <p className="text-xs text-muted">
          {layout.unplaced} item{layout.unplaced === 1 ? ' has' : 's have'} no measured time and nothing to place {layout.unplaced === 1 ? 'it' : 'them'} by: listed in the outline (at its end), not drawn.
        </p>
      ) : null}
      <TrajectoryGaps run={run} rollout={rollout} notes={loaded.notes} invocationIds={invocationIds} />
    </div>
  );
}
