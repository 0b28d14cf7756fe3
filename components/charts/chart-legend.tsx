import type { ChartSeries } from '@/lib/view/series';

/** Layer swatches, and how many calls are gaps because their values are unknown. */
export function ChartLegend({ series, colorOf }: { series: ChartSeries; colorOf: (key: string) => string }) {
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted">
      {series.layers.map((l) => (
        <span key={l.key} className="flex items-center gap-1.5">
          <span className={l.kind === 'dot' ? 'inline-block size-2 rounded-full' : 'inline-block h-2.5 w-3 rounded-sm'} style={{ background: colorOf(l.key) }} />
          {l.label}
        </span>
      ))}
      {series.unknown > 0 ? (
        <span className="ml-auto" title="null means unknown: such calls are left blank, never drawn as 0">
          {series.unknown} of {series.x.length} calls unknown (blank)
        </span>
      ) : null}
    </div>
  );
}
