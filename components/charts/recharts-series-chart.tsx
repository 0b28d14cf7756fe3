'use client';

import { useMemo } from 'react';
import { Bar, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { chartRows, nearestIndex, type ChartSeries } from '@/lib/view/series';
import { formatAxis, SeriesTooltipBody } from './series-tooltip';

const TICK = { fontSize: 11, fill: 'currentColor' };

/** A per-call chart in SVG (up to a few thousand calls): stacked bars and dots; null values draw nothing. */
export function RechartsSeriesChart({ series, height, label, colorOf, onOpen }: { series: ChartSeries; height: number; label: string; colorOf: (key: string) => string; onOpen: (i: number, newTab: boolean) => void }) {
  const rows = useMemo(() => chartRows(series), [series]);
  return (
    <div role="img" aria-label={label} className="w-full cursor-pointer text-muted" style={{ height }}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart
          data={rows}
          margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          barCategoryGap={rows.length > 60 ? 0 : 2}
          onClick={(state, event) => {
            const i = Number(state.activeTooltipIndex);
            if (Number.isInteger(i) && i >= 0 && i < rows.length) onOpen(i, event.ctrlKey || event.metaKey);
          }}
        >
          <CartesianGrid stroke="currentColor" strokeOpacity={0.15} vertical={false} />
          <XAxis dataKey="x" tick={TICK} stroke="currentColor" strokeOpacity={0.4} minTickGap={24} />
          <YAxis tick={TICK} width={52} stroke="currentColor" strokeOpacity={0.4} tickFormatter={(v: number) => formatAxis(series.unit, v)} />
          <Tooltip
            isAnimationActive={false}
            cursor={{ fill: 'currentColor', fillOpacity: 0.08 }}
            content={({ active, label: x }) => (active && x !== undefined ? <SeriesTooltipBody series={series} i={nearestIndex(series.x, Number(x))} colorOf={colorOf} /> : null)}
          />
          {series.layers.map((l) =>
            l.kind === 'bar' ? (
              <Bar key={l.key} dataKey={l.key} name={l.label} stackId="stack" fill={colorOf(l.key)} isAnimationActive={false} />
            ) : (
              <Line key={l.key} dataKey={l.key} name={l.label} stroke="none" dot={{ r: 2.5, fill: colorOf(l.key), stroke: 'none' }} activeDot={{ r: 4 }} isAnimationActive={false} connectNulls={false} />
            ),
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
