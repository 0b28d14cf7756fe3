import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { CallHeader } from '@/components/calls/call-header';
import { callApiHref, callHref } from '@/components/calls/call-href';
import { CallView } from '@/components/calls/call-view';
import { CallIdSchema, RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import type { CallSummary } from '@/lib/api/call-schemas';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ run: string; rollout: string; call: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { rollout, call } = await params;
  return { title: `${call} · ${rollout}` };
}

const ref = (c: CallSummary) => c.model_call_id ?? `i${c.call_index}`;

export default async function CallPage({ params }: Props) {
  const { run, rollout, call } = await params;
  if (![RunIdSchema.safeParse(run), RolloutKeySchema.safeParse(rollout), CallIdSchema.safeParse(call)].every((r) => r.success)) notFound();
  const { index } = await getInstance();
  const ctx = await index.callContext(run, rollout, call);
  if (!ctx) notFound();
  const href = (c: CallSummary | null) => (c ? callHref(run, rollout, ref(c)) : null);
  const same = ctx.previousOfServer;
  return (
    <div className="space-y-5">
      <CallHeader run={run} rollout={rollout} call={ctx.call} position={ctx.position} total={ctx.total} prevHref={href(ctx.prev)} nextHref={href(ctx.next)} />
      <Suspense fallback={<p className="text-sm text-muted">Loading…</p>}>
        <CallView
          apiHref={callApiHref(run, rollout, ref(ctx.call))}
          stored={(await index.rawLocation(run, rollout, call)) !== null}
          prevHref={href(ctx.prev)}
          nextHref={href(ctx.next)}
          compare={same ? { href: callHref(run, rollout, ref(same)), apiHref: callApiHref(run, rollout, ref(same)), callIndex: same.call_index } : null}
        />
      </Suspense>
    </div>
  );
}
