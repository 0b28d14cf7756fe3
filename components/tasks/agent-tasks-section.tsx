import Link from 'next/link';
import { Card } from '@/components/ui/card';
import type { TaskPage } from '@/lib/api/task-schemas';
import { formatCount } from '@/lib/view/format';
import { taskViewHref, type TaskView } from '@/lib/view/task-view';
import { TaskFilters } from './task-filters';
import { TaskHeadline } from './task-headline';
import { TasksTable } from './tasks-table';

type Agent = TaskPage['agents'][number];

/** Why some lines are in no group, in NeMo Gym's terms. */
function LeftOut({ agent }: { agent: Agent }) {
  const { no_reward, no_index } = agent.left_out;
  if (!no_reward && !no_index) return null;
  const parts = [
    no_index ? `${formatCount(no_index)} lines without _ng_task_index or _ng_rollout_index` : null,
    no_reward ? `${formatCount(no_reward)} lines without a numeric reward` : null,
  ].filter(Boolean);
  return (
    <p role="note" className="rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm">
      Not in any group: {parts.join(' and ')}. NeMo Gym&apos;s aggregation cannot take such lines (its collector stamps the indices and its verifiers
      the reward), so they count in no pass@k here either.
    </p>
  );
}

/** One agent's headline, filters, page of tasks and pager. */
export function AgentTasksSection({ run, view, agent, open, agentParam, nextCursor, allHref }: { run: string; view: TaskView; agent: Agent; open: number | null; agentParam: string | undefined; nextCursor: string | null; allHref: string | null }) {
  const title = agent.agent === null ? 'Tasks (lines without agent_ref)' : `Tasks of ${agent.agent}`;
  return (
    <Card title={title} className="mb-5">
      <div className="space-y-4">
        {agent.agent === null ? (
          <p className="text-sm text-muted">These lines name no agent (agent_ref.name): NeMo Gym&apos;s aggregation skips them; their groups are shown as the rest are.</p>
        ) : null}
        <LeftOut agent={agent} />
        {agent.total_tasks > 0 ? (
          <>
            <TaskHeadline agent={agent} />
            <TaskFilters run={run} view={view} agent={agent} />
            {agent.task_prefix ? (
              <p className="text-xs text-muted">
                Every task&apos;s name starts with <q className="text-fg">{agent.task_prefix.trim()}</q>; the names below leave it out (…).
              </p>
            ) : null}
            {agent.tasks.length ? (
              <TasksTable run={run} view={view} agent={agent} open={open} agentParam={agentParam} />
            ) : (
              <p className="text-sm text-muted">{agent.matching_tasks === 0 ? 'No task matches these filters.' : 'No more tasks on this page.'}</p>
            )}
            <nav aria-label="task pages" className="flex items-center gap-3 text-sm text-muted">
              <span>
                {formatCount(agent.matching_tasks)} of {formatCount(agent.total_tasks)} tasks match
              </span>
              {view.cursor ? (
                <Link href={taskViewHref(run, { ...view, cursor: undefined })} scroll={false} className="text-accent hover:underline">
                  First page
                </Link>
              ) : null}
              {allHref ? (
                <Link href={allHref} className="text-accent hover:underline">
                  All {formatCount(agent.matching_tasks)} tasks of {agent.agent ?? 'the lines without agent_ref'}
                </Link>
              ) : null}
              {nextCursor ? (
                <Link href={taskViewHref(run, { ...view, cursor: nextCursor })} scroll={false} className="text-accent hover:underline" rel="next">
                  Next page
                </Link>
              ) : null}
            </nav>
          </>
        ) : (
          <p className="text-sm text-muted">No task groups: no line of this agent has a task index, a rollout index and a numeric reward.</p>
        )}
      </div>
    </Card>
  );
}
