import type { Distribution } from '@/lib/api/compare-schemas';
import { boxGeometry, cellText, type CellKind } from '@/lib/view/compare';

/** One run's distribution on a shared axis: whiskers p5–p95, box p25–p75, median line, mean dot. */
export function BoxPlotRow({ run, color, dist, domain, kind }: { run: string; color: string; dist: Distribution; domain: [number, number] | null; kind: CellKind }) {
  const g = boxGeometry(dist, domain);
  const q = (i: number) => cellText({ value: dist.quantiles[i] ?? null, kind });
  const summary = `${run}: p5 ${q(0)} · p25 ${q(1)} · median ${q(2)} · p75 ${q(3)} · p95 ${q(4)} · mean ${cellText({ value: dist.mean, kind })} · ${dist.count} rollouts`;
  return (
    <div className="grid grid-cols-[9rem_1fr_7rem] items-center gap-3 text-xs" title={summary}>
      <span className="flex min-w-0 items-center gap-1.5">
        <span className="size-2.5 shrink-0 rounded-sm" style={{ background: color }} />
        <span className="truncate">{run}</span>
      </span>
      <div className="relative h-5" role="img" aria-label={summary}>
        {g ? (
          <>
            <span className="absolute top-1/2 h-px -translate-y-1/2" style={{ left: `${g.whisker[0]}%`, width: `${g.whisker[1] - g.whisker[0]}%`, background: color }} />
            <span className="absolute inset-y-0.5 rounded-sm border" style={{ left: `${g.box[0]}%`, width: `${Math.max(0.5, g.box[1] - g.box[0])}%`, background: `${color}33`, borderColor: color }} />
            <span className="absolute inset-y-0 w-0.5" style={{ left: `calc(${g.median}% - 1px)`, background: color }} />
            {g.mean !== null ? <span className="absolute top-1/2 size-1.5 -translate-x-1/2 -translate-y-1/2 rounded-full bg-fg" style={{ left: `${g.mean}%` }} /> : null}
          </>
        ) : (
          <span className="absolute inset-0 flex items-center text-muted">no known values</span>
        )}
      </div>
      <span className="text-right text-muted tabular-nums">median {q(2)}</span>
    </div>
  );
}
