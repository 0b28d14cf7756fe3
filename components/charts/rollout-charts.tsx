'use client';

import { useRouter } from 'next/navigation';
import { useCallback, useMemo } from 'react';
import { callHref } from '@/components/calls/call-href';
import { callRef, contextSeries, latencySeries, tokenSeries, type CallColumns } from '@/lib/view/series';
import { layerColor } from './palette';
import { SeriesChart } from './series-chart';

/** Tokens, latency and context growth per call; clicking a call opens it. */
export function RolloutCharts({ run, rollout, columns }: { run: string; rollout: string; columns: CallColumns }) {
  const router = useRouter();
  const tokens = useMemo(() => tokenSeries(columns), [columns]);
  const latency = useMemo(() => latencySeries(columns), [columns]);
  const context = useMemo(() => contextSeries(columns), [columns]);
  const colorOf = useCallback(
    (key: string) => {
      const group = key.startsWith('server:') ? Number(key.slice(7)) : undefined;
      return layerColor({ key, group }, columns.servers.length);
    },
    [columns.servers.length],
  );
  const open = useCallback(
    (i: number, newTab: boolean) => {
      const href = callHref(run, rollout, callRef(columns, i));
      if (newTab) window.open(href, '_blank', 'noopener');
      else router.push(href);
    },
    [columns, router, run, rollout],
  );
  if (columns.n === 0) return null;
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <SeriesChart title="Tokens per call" series={tokens} colorOf={colorOf} onOpen={open} />
      <SeriesChart title="Latency and time to first token" series={latency} colorOf={colorOf} onOpen={open} />
      <div className="lg:col-span-2">
        <SeriesChart title="Context growth (tokens in per call, by model server)" series={context} colorOf={colorOf} onOpen={open} height={180} />
      </div>
    </div>
  );
}
