'use client';

import dynamic from 'next/dynamic';
import type { ChartSeries } from '@/lib/view/series';
import { CanvasSeriesChart } from './canvas-series-chart';
import { ChartLegend } from './chart-legend';

// recharts is loaded only for rollouts small enough to draw in SVG.
const RechartsSeriesChart = dynamic(() => import('./recharts-series-chart').then((m) => m.RechartsSeriesChart), { ssr: false });

/**
 * Above this many calls a chart is drawn on a canvas: SVG with one element per bar and layer costs a long task
 * (three charts of a thousand calls in bench:ui) where the canvas draws at once.
 */
export const CANVAS_THRESHOLD = 300;

/** One per-call chart with its legend, in SVG or on a canvas depending on the number of calls. */
export function SeriesChart({ title, series, colorOf, onOpen, height = 200 }: { title: string; series: ChartSeries; colorOf: (key: string) => string; onOpen: (i: number, newTab: boolean) => void; height?: number }) {
  const label = `${title}: ${series.x.length} calls`;
  return (
    <figure className="min-w-0 space-y-2">
      <figcaption className="text-sm font-semibold">{title}</figcaption>
      {series.x.length > CANVAS_THRESHOLD ? (
        <CanvasSeriesChart series={series} height={height} label={label} colorOf={colorOf} onOpen={onOpen} />
      ) : (
        <RechartsSeriesChart series={series} height={height} label={label} colorOf={colorOf} onOpen={onOpen} />
      )}
      <ChartLegend series={series} colorOf={colorOf} />
    </figure>
  );
}
