import Link from 'next/link';
import { invocationHref } from '@/components/trajectory/trajectory-href';
import { Card } from '@/components/ui/card';
import type { ObservationGap } from '@/lib/rollouts/observations';
import type { TrajectorySummary } from '@/lib/view/trajectory-summary';
import { GapEntry } from './gap-list';

const same = (a: ObservationGap, b: ObservationGap) => a.code === b.code && a.invocation_id === b.invocation_id && a.detail === b.detail;

/**
 * The gaps of the trajectory and of the agent's observations, explained like the capture gaps (one vocabulary).
 * The collector copies the observations' gaps into the trajectory, so a gap in both is listed once.
 */
export function TrajectoryGaps({ run, rollout, s }: { run: string; rollout: string; s: TrajectorySummary }) {
  const extra = s.observationGaps.filter((g) => !s.trajectoryGaps.some((t) => same(g, t)));
  const all = [...s.trajectoryGaps.map((g) => ({ g, from: 'ng_trajectory' })), ...extra.map((g) => ({ g, from: 'ng_agent_observations' }))];
  return (
    <Card title={`Trajectory gaps (${all.length})`}>
      {all.length === 0 ? (
        <p className="text-sm text-muted">Neither the trajectory nor the agent&apos;s observations report a gap: the producer and the collector say no evidence about the agent is missing.</p>
      ) : (
        <ul className="space-y-3">
          {all.map(({ g, from }, k) => (
            <GapEntry
              key={`${g.code}-${k}`}
              code={g.code}
              detail={g.detail}
              where={
                <>
                  in <code>{from}</code>
                  {g.invocation_id ? (
                    <>
                      {' '}
                      · invocation{' '}
                      {s.invocationIds.includes(g.invocation_id) ? (
                        <Link href={invocationHref(run, rollout, g.invocation_id)} prefetch={false} className="font-mono text-accent hover:underline">
                          {g.invocation_id}
                        </Link>
                      ) : (
                        <code>{g.invocation_id}</code>
                      )}
                    </>
                  ) : null}
                </>
              }
            />
          ))}
        </ul>
      )}
    </Card>
  );
}
