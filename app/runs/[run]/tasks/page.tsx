import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { LiveRefresh } from '@/components/live/live-refresh';
import { RunHeader } from '@/components/rollouts/run-header';
import { RunTabs } from '@/components/runs/run-tabs';
import { promises as fsp } from 'node:fs';
import { AggregateCard } from '@/components/tasks/aggregate-card';
import { AgentTasksSection } from '@/components/tasks/agent-tasks-section';
import { TaskKeys } from '@/components/tasks/task-keys';
import { TaskRollouts } from '@/components/tasks/task-rollouts';
import { presentRollout } from '@/lib/api/present';
import { RunIdSchema } from '@/lib/api/schemas';
import { agreement, readAggregateMetrics } from '@/lib/rollouts/aggregate-metrics';
import { getInstance } from '@/lib/server/instance';
import { parseTaskView, TASK_PAGE, taskViewHref } from '@/lib/view/task-view';

export const dynamic = 'force-dynamic';

/** Tasks shown per agent when a file mixes agents (each links to all of its tasks). */
const MULTI_AGENT_PAGE = 20;

type Props = { params: Promise<{ run: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Tasks · ${(await params).run}` };
}

export default async function TasksPage({ params, searchParams }: Props) {
  const id = (await params).run;
  if (!RunIdSchema.safeParse(id).success) notFound();
  const { index } = await getInstance();
  const run = index.listRuns().find((r) => r.id === id);
  if (!run) notFound();
  const { view, open, ignored } = parseTaskView(await searchParams);
  // One agent (or one chosen): its tasks page by page. Several: each agent's first tasks, and a link to all of them.
  const agents = index.taskGroups(run.id) ?? [];
  const multiple = agents.length > 1 && view.agent === undefined;
  const pageOf = (q: typeof view, limit: number) => {
    try {
      return index.tasks(run.id, { ...q, limit });
    } catch {
      ignored.push('cursor'); // a cursor of another list: its first page
      return index.tasks(run.id, { ...q, cursor: undefined, limit });
    }
  };
  const sections = multiple
    ? agents.map((a) => ({ agent: pageOf({ ...view, agent: a.agent ?? '', cursor: undefined }, MULTI_AGENT_PAGE)!.agents[0], next: null }))
    : (() => {
        const page = pageOf(view, TASK_PAGE)!;
        return page.agents.map((agent) => ({ agent, next: page.next_cursor }));
      })();
  const aggregate = run.aggregate_metrics_file ? await readAggregateMetrics(run.aggregate_metrics_file) : null;
  const reports = aggregate?.ok ? aggregate.agents.map((a) => agreement(a, agents.find((g) => g.agent === a.agent))) : [];
  const rolloutsMtimeMs = run.rollouts_file ? ((await fsp.stat(run.rollouts_file).catch(() => null))?.mtimeMs ?? null) : null;
  const openAgent = view.agent ?? agents[0]?.agent ?? '';
  const detail = open !== null ? index.task(run.id, openAgent, open) : null;
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
      {detail ? (
        <TaskRollouts
          run={run.id}
          group={detail.group}
          rollouts={detail.rollouts.map((r) => ({ ...presentRollout(r), tool_calls_requested: r.tool_calls_requested }))}
          failures={detail.failures}
          closeHref={taskViewHref(run.id, view)}
        />
      ) : null}
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
