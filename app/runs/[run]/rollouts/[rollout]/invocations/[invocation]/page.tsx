import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { rolloutHref, runHref } from '@/components/calls/call-href';
import { CopyPageLink } from '@/components/calls/copy-page-link';
import { InvocationConversation } from '@/components/trajectory/invocation-conversation';
import { InvocationFacts } from '@/components/trajectory/invocation-facts';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { plainJson } from '@/lib/view/plain-json';
import { invocationDetail } from '@/lib/view/trajectory-invocation';
import { loadTrajectoryParts } from '../../_components/load-trajectory';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ run: string; rollout: string; invocation: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { rollout, invocation } = await params;
  return { title: `${invocation} · ${rollout}` };
}

/** One agent invocation of the rollout's trajectory: status, place in the tree, its calls, its conversation. */
export default async function InvocationPage({ params }: Props) {
  const { run, rollout, invocation } = await params;
  if (!RunIdSchema.safeParse(run).success || !RolloutKeySchema.safeParse(rollout).success || invocation.length > 1000) notFound();
  const { index } = await getInstance();
  const parts = await loadTrajectoryParts(index, run, rollout);
  const d = parts ? invocationDetail(parts, invocation) : null;
  if (!parts || !d) notFound();
  return (
    <div className="space-y-5">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" prefetch={false} className="hover:text-fg">Runs</Link> / <Link href={runHref(run)} prefetch={false} className="hover:text-fg">{run}</Link> /{' '}
        <Link href={rolloutHref(run, rollout)} prefetch={false} className="hover:text-fg">{rollout}</Link> / <span className="text-fg">invocation {invocation}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-2">
        <h1 className="font-mono text-xl font-semibold break-all">{invocation}</h1>
        <span className="text-sm text-muted">agent invocation</span>
        <div className="ml-auto">
          <CopyPageLink label="Copy link" />
        </div>
      </div>
      <InvocationFacts run={run} rollout={rollout} parts={parts} d={d} />
      <InvocationConversation record={plainJson(parts.invocations[d.index]) as Record<string, unknown>} />
    </div>
  );
}
