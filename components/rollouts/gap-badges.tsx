import { Badge } from '@/components/ui/badge';
import { gapLabel, gapTitle } from '@/lib/capture/vocabulary';

/** A rollout's gaps (missing evidence) as badges; the title explains each code. */
export function GapBadges({ gaps }: { gaps: { code: string; detail?: string }[] }) {
  if (!gaps.length) return null;
  return (
    <div className="flex gap-1 overflow-hidden">
      {gaps.map((g, i) => (
        <Badge key={`${g.code}-${i}`} tone="warn" title={gapTitle(g)}>
          {gapLabel(g.code)}
        </Badge>
      ))}
    </div>
  );
}
