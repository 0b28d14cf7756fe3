import type { RolloutItem } from '@/lib/api/schemas';
import { TRAJECTORY_SOURCE_INFO } from '@/lib/capture/vocabulary';
import { formatCount } from '@/lib/view/format';

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** Where the trajectory comes from, in plain words, and its counts (from the index, before the trajectory loads). */
export function TrajectoryFacts({ t }: { t: NonNullable<RolloutItem['trajectory']> }) {
  return (
    <div className="space-y-2 text-sm">
      <p className="text-muted">
        <span className="font-medium text-fg">{TRAJECTORY_SOURCE_INFO[t.source].title}: </span>
        {TRAJECTORY_SOURCE_INFO[t.source].meaning} Compactions and sandbox runs come from the line&apos;s <code>ng_agent_observations</code>: the trajectory does not carry them.
      </p>
      <p aria-label="trajectory counts" className="tabular-nums">
        {plural(t.invocations, 'invocation')} · {plural(t.tool_calls, 'tool call')}
        {t.tool_calls ? (
          <span className="text-muted">
            {' '}
            (<span className={t.tool_failed ? 'text-bad' : undefined}>{formatCount(t.tool_failed)} failed</span>, {formatCount(t.tool_unmeasured)} not measured)
          </span>
        ) : null}{' '}
        · {plural(t.turns, 'turn')} · {plural(t.compactions, 'compaction')} · {plural(t.sandboxes, 'sandbox run')}
      </p>
    </div>
  );
}
