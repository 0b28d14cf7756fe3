import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { DiffHeader } from '@/components/diff/diff-header';
import { DiffPicker } from '@/components/diff/diff-picker';
import { DiffView } from '@/components/diff/diff-view';
import { EmptyState } from '@/components/ui/empty-state';
import { RolloutRefSchema } from '@/lib/api/diff-schemas';
import { rolloutDiff } from '@/lib/index/compare/rollout-diff';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Diff' };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function DiffPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const [a, b] = [first(params.a), first(params.b)];
  if (!a || !b) {
    return (
      <EmptyState title="Choose two rollouts to diff" className="space-y-3">
        <DiffPicker a={a} b={b} />
      </EmptyState>
    );
  }
  const refA = RolloutRefSchema.safeParse(a);
  const refB = RolloutRefSchema.safeParse(b);
  if (!refA.success || !refB.success) notFound();
  const { index } = await getInstance();
  const diff = await rolloutDiff(index, refA.data, refB.data);
  if (!diff) notFound();
  return (
    <div className="space-y-4">
      <DiffHeader diff={diff} />
      <Suspense fallback={<p className="text-sm text-muted">Loading…</p>}>
        <DiffView diff={diff} />
      </Suspense>
    </div>
  );
}
