import { formatCompact, formatCount, formatMs } from '@/lib/view/format';
import type { ChartSeries } from '@/lib/view/series';

/** A y-axis label short enough for a narrow axis: 850ms, 1.2s, 12k. */
export const formatAxis = (unit: ChartSeries['unit'], v: number) => (unit === 'ms' ? (v >= 1000 ? `${+(v / 1000).toFixed(1)}s` : `${+v.toFixed(0)}ms`) : formatCompact(v));

export const formatValue = (unit: ChartSeries['unit'], v: number | null) => (v === null ? 'unknown' : unit === 'ms' ? formatMs(v) : `${formatCount(v)} tok`);

/** The values of one call in a chart; an unknown value says so instead of showing 0. */
export function SeriesTooltipBody({ series, i, colorOf }: { series: ChartSeries; i: number; colorOf: (key: string) => string }) {
  return (
    <div className="rounded-md border border-line bg-bg p-2 text-xs shadow-lg">
      <p className="mb-1 font-semibold">Call #{series.x[i]}</p>
      <ul className="space-y-0.5">
        {series.layers
          .filter((l) => l.group === undefined || l.values[i] !== null)
          .map((l) => (
            <li key={l.key} className="flex items-center gap-1.5">
              <span className="inline-block size-2 rounded-sm" style={{ background: colorOf(l.key) }} />
              <span className="text-muted">{l.label}</span>
              <span className={l.values[i] === null ? 'ml-auto pl-3 text-muted italic' : 'ml-auto pl-3 tabular-nums'}>{formatValue(series.unit, l.values[i])}</span>
            </li>
          ))}
      </ul>
      <p className="mt-1 text-muted">click to open the call</p>
    </div>
  );
}
