import { cn } from '@/components/ui/cn';
import { describeItem, type Fact } from '@/lib/view/trajectory-describe';
import type { TrajectoryLayout } from '@/lib/view/trajectory-layout';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';

const TONE = { bad: 'text-bad', warn: 'text-warn', good: 'text-good' } as const;

export function FactList({ facts, className }: { facts: Fact[]; className?: string }) {
  return (
    <dl className={cn('grid grid-cols-[88px_1fr] gap-x-2 gap-y-0.5', className)}>
      {facts.map(([label, value, tone]) => (
        <div key={label} className="contents">
          <dt className="text-muted">{label}</dt>
          <dd className={cn('min-w-0 break-words', tone ? TONE[tone] : undefined)}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The hovered item's details, next to the pointer (flipped to stay inside the chart). */
export function TrajectoryTooltip({ parts, layout, item, x, y, width }: { parts: TrajectoryParts; layout: TrajectoryLayout; item: number; x: number; y: number; width: number }) {
  const d = describeItem(parts, layout, item);
  const left = x + 330 > width ? Math.max(0, x - 330) : x + 14;
  const opens = d.kind === 'model call' || d.kind === 'tool call';
  return (
    <div role="tooltip" className="pointer-events-none absolute z-10 w-[316px] rounded-md border border-line bg-bg p-2.5 text-xs shadow-lg" style={{ left, top: y + 14 }}>
      <p className="mb-1 font-semibold break-all">
        {d.kind}: {d.title} {opens ? <span className="font-normal text-muted">· click to open</span> : null}
      </p>
      <p className="mb-1.5 text-muted">
        in <span className="text-fg">{d.group}</span> · {d.when}
      </p>
      <FactList facts={d.facts} />
    </div>
  );
}
