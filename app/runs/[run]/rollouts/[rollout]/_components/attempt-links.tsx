import Link from 'next/link';
import { rolloutHref } from '@/components/calls/call-href';
import { Badge } from '@/components/ui/badge';
import type { RolloutDetail } from '@/lib/api/schemas';
import { formatReward } from '@/lib/view/format';

/** The other attempts at the same task and rollout index (retries, failed attempts), as links. */
export function AttemptLinks({ run, attempts }: { run: string; attempts: RolloutDetail['attempts'] }) {
  if (!attempts.length) return null;
  return (
    <nav aria-label="other attempts" className="flex flex-wrap items-center gap-2 text-sm">
      <span className="text-muted">Other attempts of this task:</span>
      {attempts.map((a) => (
        <Link key={a.key} href={rolloutHref(run, a.key)} className="flex items-center gap-1.5 rounded-md border border-line px-2 py-0.5 no-underline hover:bg-panel">
          <span className="font-mono text-accent">{a.key}</span>
          <span className="text-muted">attempt {a.attempt ?? 0}</span>
          <span className="tabular-nums">reward {formatReward(a.reward)}</span>
          {a.failure_class ? <Badge tone="bad">{a.failure_class}</Badge> : null}
        </Link>
      ))}
    </nav>
  );
}
