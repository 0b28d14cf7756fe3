import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { RolloutsView } from '@/components/rollouts/rollouts-view';
import { RunHeader } from '@/components/rollouts/run-header';
import { RunTabs } from '@/components/runs/run-tabs';
import { TaskProfileCard } from '@/components/runs/task-profile';
import { presentRollout } from '@/lib/api/present';
import { RunIdSchema } from '@/lib/api/schemas';
import { readTaskProfile } from '@/lib/rollouts/reward-profile';
import { getInstance } from '@/lib/server/instance';
import { parseRolloutView } from '@/lib/view/table';

export const dynamic = 'force-dynamic';

const FIRST_PAGE = 100;

type Props = { params: Promise<{ run: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).run };
}

export default async function RunPage({ params, searchParams }: Props) {
  const id = (await params).run;
  if (!RunIdSchema.safeParse(id).success) notFound();
  const { index } = await getInstance();
  if (!(await index.runSource(id))) notFound();
  const run = (await index.listRuns()).find((r) => r.id === id);
  if (!run) notFound();
  const { view, ignored } = parseRolloutView(await searchParams);
  const page = await index.listRollouts(run.id, { ...view, limit: FIRST_PAGE });
  if (!page) notFound();
  const profile = run.reward_profile_file ? await readTaskProfile(run.reward_profile_file) : null;
  return (
    <>
      <RunHeader run={run} />
      <RunTabs run={run.id} active="rollouts" />
      {run.capture_dir_note ? (
        <p role="note" aria-label="Capture dir" className="mb-3 rounded-md border border-line bg-panel px-3 py-2 text-sm">
          {run.capture_dir_note}
        </p>
      ) : null}
      {ignored.length ? (
        <p role="alert" className="mb-3 rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm text-warn">
          Ignored invalid query parameters: {ignored.join(', ')}
        </p>
      ) : null}
      <Suspense fallback={<p className="text-sm text-muted">Loading rollouts…</p>}>
        <RolloutsView run={run.id} modelServers={run.totals.model_servers} unreadableLines={run.totals.line_problems} view={view} initial={{ ...page, rollouts: page.rollouts.map(presentRollout) }} />
      </Suspense>
      {profile ? <TaskProfileCard profile={profile} /> : null}
    </>
  );
}
