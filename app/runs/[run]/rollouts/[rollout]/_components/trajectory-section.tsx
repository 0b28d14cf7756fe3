import { Suspense } from 'react';
import { TrajectoryFacts } from '@/components/trajectory/trajectory-facts';
import { TrajectoryView } from '@/components/trajectory/trajectory-view';
import { Card } from '@/components/ui/card';
import type { TrajectorySummary } from '@/lib/view/trajectory-summary';
import { TrajectoryGaps } from './trajectory-gaps';

/** The rollout's trajectory: where it comes from and its counts, the timeline and outline, then its gaps. */
export function TrajectorySection({ run, rollout, version, s }: { run: string; rollout: string; version: string; s: TrajectorySummary }) {
  return (
    <>
      <Card title="Trajectory">
        <div className="space-y-4">
          <TrajectoryFacts s={s} />
          {s.agent ? (
            <Suspense fallback={<p className="text-sm text-muted">Loading the trajectory…</p>}>
              <TrajectoryView run={run} rollout={rollout} version={version} />
            </Suspense>
          ) : null}
        </div>
      </Card>
      <TrajectoryGaps run={run} rollout={rollout} s={s} />
    </>
  );
}
