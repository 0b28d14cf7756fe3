import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { RolloutCallViews } from '@/components/calls/rollout-call-views';
import { RolloutConversation } from '@/components/rollouts/rollout-conversation';
import { RolloutLineView } from '@/components/rollouts/rollout-line-view';
import { presentRollout, rolloutVersion } from '@/lib/api/present';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { showsAgent } from '@/lib/view/trajectory-summary';
import { AttemptLinks } from './_components/attempt-links';
import { GapList } from './_components/gap-list';
import { RolloutHeader } from './_components/rollout-header';
import { TrajectorySection } from './_components/trajectory-section';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ run: string; rollout: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).rollout };
}

export default async function RolloutPage({ params }: Props) {
  const { run, rollout } = await params;
  if (!RunIdSchema.safeParse(run).success || !RolloutKeySchema.safeParse(rollout).success) notFound();
  const { index } = await getInstance();
  const row = await index.rollout(run, rollout);
  const attempts = row ? await index.rolloutAttempts(run, rollout) : null;
  if (!row || !attempts) notFound();
  const r = presentRollout(row);
  const line = await index.lineLocation(run, rollout);
  const agent = showsAgent(r.trajectory);
  const version = rolloutVersion(row);
  return (
    <div className="space-y-5">
      <RolloutHeader run={run} r={r} attached={{ calls: row.attached_calls, tokensTotal: row.attached_tokens_total }} best={await index.bestOfTask(run, rollout)} />
      <AttemptLinks run={run} attempts={attempts} />
      {line && row.num_calls === 0 ? <RolloutConversation run={run} rollout={rollout} openAtOnce /> : null}
      <GapList gaps={r.gaps} source={r.source} calls={r.num_calls} rolloutId={r.rollout_id} />
      {agent && r.trajectory ? <TrajectorySection run={run} rollout={rollout} version={version} t={r.trajectory} /> : null}
      <RolloutCallViews run={run} rollout={rollout} n={row.num_calls} version={version} timeline={!agent} />
      {line && row.num_calls > 0 ? <RolloutConversation run={run} rollout={rollout} openAtOnce={false} /> : null}
      {line ? <RolloutLineView run={run} rollout={rollout} bytes={line.length} openAtOnce={row.num_calls === 0} /> : null}
    </div>
  );
}
