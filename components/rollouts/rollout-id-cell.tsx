import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import type { RolloutItem } from '@/lib/api/schemas';

/** The rollout's id (or its line, when it has none) linking to the rollout, with its state marks. */
export function RolloutIdCell({ run, r }: { run: string; r: RolloutItem }) {
  const href = `/runs/${encodeURIComponent(run)}/rollouts/${encodeURIComponent(r.key)}`;
  return (
    <div className="flex min-w-0 items-center gap-1">
      <Link href={href} prefetch={false} className="truncate font-mono text-accent hover:underline" title={r.task ? `${r.key}\ntask: ${r.task}` : r.key}>
        {r.rollout_id ?? `line ${r.line_no ?? '?'}`}
      </Link>
      {r.failure_class ? (
        <Badge tone="bad" title={`Failed attempt (failures file): ${r.failure_class}`}>
          failed
        </Badge>
      ) : null}
      {r.incomplete ? (
        <Badge tone="warn" title="The .capture.incomplete marker exists: at least one call failed to persist">
          incomplete
        </Badge>
      ) : null}
      {r.unreadable > 0 ? (
        <Badge tone="warn" title={`${r.unreadable} damaged capture lines`}>
          {r.unreadable} damaged
        </Badge>
      ) : null}
      {r.line_problem ? (
        <Badge tone="bad" className="shrink-0" title={`Line ${r.line_no ?? '?'} could not be read: ${r.line_problem}`}>
          unreadable
        </Badge>
      ) : null}
      {r.attachment_mismatch ? (
        <Badge title="The rollout line's attachment disagrees with the capture dir">mismatch</Badge>
      ) : null}
    </div>
  );
}
