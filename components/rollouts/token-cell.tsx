import { formatCompact, formatCount } from '@/lib/view/format';
import { barFraction, USAGE_NOTE } from '@/lib/view/table';

/**
 * A token count with a small bar relative to the page's maximum; unknown shows a dash and no bar at all. A count
 * `fromUsage` (the rollout line's response.usage, shownTokens) is set in italics.
 */
export function TokenCell({ value, max, label, note, fromUsage = false }: { value: number | null; max: number | null; label: string; note?: string; fromUsage?: boolean }) {
  const fraction = barFraction(value, max);
  const notes = [note, fromUsage ? USAGE_NOTE : undefined].filter(Boolean).join('; ');
  const title = value === null ? `${label}: unknown${fromUsage ? ` (${USAGE_NOTE})` : ''}` : `${formatCount(value)} ${label}${notes ? ` (${notes})` : ''}`;
  return (
    <div title={title} className="flex flex-col items-end gap-1">
      <span className={value === null ? 'text-muted' : fromUsage ? 'italic' : undefined}>{formatCompact(value)}</span>
      {fraction === null ? null : (
        <span aria-hidden className="block h-1 w-full rounded-full bg-line/70">
          <span className="block h-1 rounded-full bg-accent/70" style={{ width: `${fraction * 100}%` }} />
        </span>
      )}
    </div>
  );
}
