import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CompareHeader } from '@/components/compare/compare-header';
import { CompareView } from '@/components/compare/compare-view';
import { RunPicker } from '@/components/compare/run-picker';
import { EmptyState } from '@/components/ui/empty-state';
import { RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { TASK_SORTS, type TaskSort } from '@/lib/view/compare';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Compare' };

const MAX_RUNS = 8;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** This compare view with the changed tasks paired another way. */
const pairHref = (ids: string[], params: Record<string, string | string[] | undefined>) => (by: 'index' | 'task') => {
  const q = new URLSearchParams({ runs: ids.join(',') });
  const tasks = first(params.tasks);
  if (tasks) q.set('tasks', tasks);
  q.set('pair_by', by);
  return `/compare?${q}#task-changes`;
};

export default async function ComparePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const ids = [...new Set((first(params.runs) ?? '').split(',').filter(Boolean))];
  const { index } = await getInstance();
  if (ids.length === 0) {
    const runs = (await index.listRuns()).map((r) => r.id);
    return (
      <EmptyState title="Choose runs to compare" className="text-left">
        {runs.length ? <RunPicker runs={runs} /> : 'There are no runs to compare.'}
      </EmptyState>
    );
  }
  if (ids.some((id) => !RunIdSchema.safeParse(id).success)) notFound();
  if (ids.length > MAX_RUNS) return <EmptyState title={`Compare at most ${MAX_RUNS} runs at a time`}>This link names {ids.length}.</EmptyState>;
  const pairBy = first(params.pair_by);
  const comparison = await index.compare(ids, pairBy === 'index' || pairBy === 'task' ? pairBy : undefined);
  if (!comparison) notFound();
  const sort = first(params.tasks);
  const taskSort: TaskSort = TASK_SORTS.includes(sort as TaskSort) ? (sort as TaskSort) : 'task';
  return (
    <>
      <CompareHeader runs={ids} />
      <CompareView comparison={comparison} taskSort={taskSort} pairHref={pairHref(ids, params)} />
    </>
  );
}
