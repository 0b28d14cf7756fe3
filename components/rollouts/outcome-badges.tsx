import { Badge } from '@/components/ui/badge';
import { outcomeBadges, outcomeTitle } from '@/lib/view/outcome';

/** How a rollout ended (its line's outcome fields and failure class) as badges; every field on hover. */
export function OutcomeBadges({ outcome, failure }: { outcome: Record<string, string | number | boolean | null> | null; failure: string | null }) {
  const badges = outcomeBadges(outcome, failure);
  if (!badges.length) return <span className="text-muted">—</span>;
  return (
    <div className="flex gap-1 overflow-hidden" title={outcomeTitle(outcome) || undefined}>
      {badges.map((b) => (
        <Badge key={b.field} tone={b.tone}>
          {b.text}
        </Badge>
      ))}
    </div>
  );
}
