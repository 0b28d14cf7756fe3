'use client';

import { useRouter } from 'next/navigation';
import { useCallback, useMemo } from 'react';
import { callHref } from '@/components/calls/call-href';
import type { CallColumns } from '@/lib/api/call-schemas';
import { callRef, contextSeries, latencySeries, tokenSeries } from '@/lib/view/series';
import { layerColor } from './palette';
import { SeriesChart } from './series-chart';

const Pending = ({ height }: { height: number }) => <div className="rounded-md bg-panel" style={{ height }} aria-hidden />;

export interface RolloutChartsProps {
  run: string;
  rollout: string;
  columns: CallColumns;
  shown?: number;
}

/**
 * Tokens, latency and context growth per call; clicking a call opens it. `shown` charts are drawn (the page
 * mounts them one task at a time), the others hold their place.
 */
export function RolloutCharts({ run, rollout, columns, shown = 3 }: RolloutChartsProps) {
  const router = useRouter();
  // Each series is computed once its chart is shown, not again as more are.
  const [drawTokens, drawLatency, drawContext] = [shown > 0, shown > 1, shown > 2];
  const tokens = useMemo(() => (drawTokens ? tokenSeries(columns) : null), [columns, drawTokens]);
  const latency = useMemo(() => (drawLatency ? latencySeries(columns) : null), [columns, drawLatency]);
  const context = useMemo(() => (drawContext ? contextSeries(columns) : null), [columns, drawContext]);
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
      {shown > 0 ? <SeriesChart title="Tokens per call" series={tokens!} colorOf={colorOf} onOpen={open} /> : <Pending height={236} />}
      {shown > 1 ? <SeriesChart title="Latency and time to first token" series={latency!} colorOf={colorOf} onOpen={open} /> : <Pending height={236} />}
      <div className="lg:col-span-2">
        {shown > 2 ? <SeriesChart title="Context growth (tokens in per call, by model server)" series={context!} colorOf={colorOf} onOpen={open} height={180} /> : <Pending height={216} />}
      </div>
    </div>
  );
}
