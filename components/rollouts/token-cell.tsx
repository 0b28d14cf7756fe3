import { formatCompact, formatCount } from '@/lib/view/format';
import { barClass, barMaxVar, USAGE_NOTE } from '@/lib/view/table';

/**
 * A token count with a small bar relative to the maximum of the rows loaded; unknown shows a dash and no bar at
 * all. A count `fromUsage` (the rollout line's response.usage, shownTokens) is set in italics.
 *
 * The bar's width is computed by CSS from the count and the table's maximum (barScaleCss, lib/view/table.ts), so
 * that a page that raises a maximum while scrolling restyles the bars in sight instead of rendering every row.
 */
export function TokenCell({ value, field, label, note, fromUsage = false }: { value: number | null; field: string; label: string; note?: string; fromUsage?: boolean }) {
  const shown = value !== null && Number.isFinite(value);
  const notes = [note, fromUsage ? USAGE_NOTE : undefined].filter(Boolean).join('; ');
  const title = value === null ? `${label}: unknown${fromUsage ? ` (${USAGE_NOTE})` : ''}` : `${formatCount(value)} ${label}${notes ? ` (${notes})` : ''}`;
  return (
    <div title={title} className="flex flex-col items-end gap-1">
      <span className={value === null ? 'text-muted' : fromUsage ? 'italic' : undefined}>{formatCompact(value)}</span>
      {shown ? (
        <span aria-hidden className="block h-1 w-full rounded-full bg-line/70">
          <span className={`block h-1 rounded-full bg-accent/70 ${barClass(field)}`} style={{ width: `calc(clamp(0, ${value} / var(${barMaxVar(field)}), 1) * 100%)` }} />
        </span>
      ) : null}
    </div>
  );
}
