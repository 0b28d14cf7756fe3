import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { LiveRefresh } from '@/components/live/live-refresh';
import { RunHeader } from '@/components/rollouts/run-header';
import { RunTabs } from '@/components/runs/run-tabs';
import { AggregateCard } from '@/components/tasks/aggregate-card';
import { AgentTasksSection } from '@/components/tasks/agent-tasks-section';
import { TaskKeys } from '@/components/tasks/task-keys';
import { TaskRollouts } from '@/components/tasks/task-rollouts';
import { presentTaskDetail } from '@/lib/api/present';
import { RunIdSchema } from '@/lib/api/schemas';
import { loadTasksPage } from '@/lib/index/queries/tasks-page';
import { getInstance } from '@/lib/server/instance';
import { parseTaskView, TASK_PAGE, taskViewHref } from '@/lib/view/task-view';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ run: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Tasks · ${(await params).run}` };
}

export default async function TasksPage({ params, searchParams }: Props) {
  const id = (await params).run;
  if (!RunIdSchema.safeParse(id).success) notFound();
  const { view, open, ignored } = parseTaskView(await searchParams);
  const data = await loadTasksPage((await getInstance()).index, id, view, open, TASK_PAGE);
  if (!data) notFound();
  const { run, multiple, sections, openAgent, detail, aggregate, reports, rolloutsMtimeMs } = data;
  if (data.cursorIgnored) ignored.push('cursor'); // a cursor of another list: its first page
  const hrefs = sections.flatMap((s) => s.agent.tasks.map((t) => ({ task: t.task_index, href: taskViewHref(run.id, { ...view, agent: multiple ? (s.agent.agent ?? '') : view.agent }, t.task_index) })));
  return (
    <>
      <RunHeader run={run} />
      <RunTabs run={run.id} active="tasks">
        <LiveRefresh runs={[run.id]} />
      </RunTabs>
      {ignored.length ? (
        <p role="alert" className="mb-3 rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm text-warn">
          Ignored invalid query parameters: {ignored.join(', ')}
        </p>
      ) : null}
      {open !== null && !detail ? (
        <p role="alert" className="mb-3 rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm text-warn">
          Task {open} is not a task group of this run{openAgent ? ` for ${openAgent}` : ''}.
        </p>
      ) : null}
      {detail ? <TaskRollouts run={run.id} {...presentTaskDetail(detail)} closeHref={taskViewHref(run.id, view)} /> : null}
      {sections.length === 0 ? <p className="text-sm text-muted">This run has no rollout lines to group into tasks.</p> : null}
      {sections.map(({ agent, next }) => (
        <AgentTasksSection
          key={agent.agent ?? ''}
          run={run.id}
          view={view}
          agent={agent}
          open={detail && (detail.group.agent ?? '') === (agent.agent ?? '') ? open : null}
          agentParam={multiple ? (agent.agent ?? '') : view.agent}
          nextCursor={next}
          allHref={multiple && agent.matching_tasks > agent.tasks.length ? taskViewHref(run.id, { ...view, agent: agent.agent ?? '', cursor: undefined }) : null}
        />
      ))}
      {aggregate ? <AggregateCard aggregate={aggregate} reports={reports} rolloutsMtimeMs={rolloutsMtimeMs} /> : null}
      <TaskKeys items={hrefs} open={open} />
    </>
  );
}
