import { formatCompact, formatCount } from '@/lib/view/format';
import { barFraction } from '@/lib/view/table';

/** A token count with a small bar relative to the page's maximum; unknown shows a dash and no bar at all. */
export function TokenCell({ value, max, label, note }: { value: number | null; max: number | null; label: string; note?: string }) {
  const fraction = barFraction(value, max);
  const title = value === null ? `${label}: unknown` : `${formatCount(value)} ${label}${note ? ` (${note})` : ''}`;
  return (
    <div title={title} className="flex flex-col items-end gap-1">
      <span className={value === null ? 'text-muted' : undefined}>{formatCompact(value)}</span>
      {fraction === null ? null : (
        <span aria-hidden className="block h-1 w-full rounded-full bg-line/70">
          <span className="block h-1 rounded-full bg-accent/70" style={{ width: `${fraction * 100}%` }} />
        </span>
      )}
    </div>
  );
}
