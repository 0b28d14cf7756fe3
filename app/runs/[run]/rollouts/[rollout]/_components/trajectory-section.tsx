import { Suspense } from 'react';
import { TrajectoryFacts } from '@/components/trajectory/trajectory-facts';
import { TrajectoryView } from '@/components/trajectory/trajectory-view';
import { Card } from '@/components/ui/card';
import type { RolloutItem } from '@/lib/api/schemas';

/**
 * The rollout's trajectory: where it comes from and its counts from the index at once; the timeline, the outline
 * and its gaps once the trajectory is loaded (after the page paints: a large one takes a while to read).
 */
export function TrajectorySection({ run, rollout, version, t }: { run: string; rollout: string; version: string; t: NonNullable<RolloutItem['trajectory']> }) {
  return (
    <Card title="Trajectory">
      <div className="space-y-4">
        <TrajectoryFacts t={t} />
        <Suspense fallback={<p className="text-sm text-muted">Loading the trajectory…</p>}>
          <TrajectoryView run={run} rollout={rollout} version={version} />
        </Suspense>
      </div>
    </Card>
  );
}
