import Link from 'next/link';
import { cn } from '@/components/ui/cn';
import type { TaskPage, TaskSortKey } from '@/lib/api/task-schemas';
import type { Spread } from '@/lib/rollouts/task-groups';
import { formatCompact, formatCount, formatMs, formatReward } from '@/lib/view/format';
import { formatPercent, taskViewHref, type TaskView } from '@/lib/view/task-view';
import { RewardStrip } from './reward-strip';

type Agent = TaskPage['agents'][number];

function SortHeader({ run, view, sort, children, title }: { run: string; view: TaskView; sort: TaskSortKey; children: string; title?: string }) {
  const on = view.sort === sort;
  const order = on && view.order === 'asc' ? 'desc' : on ? 'asc' : sort === 'task' ? 'asc' : 'desc';
  return (
    <th scope="col" aria-sort={on ? (view.order === 'asc' ? 'ascending' : 'descending') : undefined} className="px-2 py-2 text-right font-medium whitespace-nowrap first:text-left">
      <Link href={taskViewHref(run, { ...view, sort, order, cursor: undefined })} scroll={false} title={title} className={cn('hover:text-fg', on && 'text-fg')}>
        {children}
        {on ? (view.order === 'asc' ? ' ▲' : ' ▼') : ''}
      </Link>
    </th>
  );
}

const num = 'px-2 py-1 text-right tabular-nums whitespace-nowrap';

function SpreadCell({ spread, format, unit }: { spread: Spread; format: (n: number) => string; unit: string }) {
  if (spread.mean === null) return <td className={cn(num, 'text-muted')} title="unknown: no captured calls and no usage on the lines">unknown</td>;
  const range = spread.min === spread.max ? '' : ` (${format(spread.min!)}–${format(spread.max!)})`;
  const unknown = spread.unknown ? `; ${spread.unknown} rollouts unknown` : '';
  return (
    <td className={num} title={`mean ${spread.mean}${unit}, min ${spread.min}, max ${spread.max}${unknown}`}>
      {format(spread.mean)}
      <span className="text-muted">{range}</span>
      {spread.unknown ? <span className="text-warn"> +{spread.unknown}?</span> : null}
    </td>
  );
}

/** One agent's page of tasks; a task's index opens it (in the URL) without leaving the list. */
export function TasksTable({ run, view, agent, open, agentParam }: { run: string; view: TaskView; agent: Agent; open: number | null; agentParam: string | undefined }) {
  const k = agent.max_k;
  const prefix = agent.task_prefix;
  return (
    <div className="-mx-4 overflow-x-auto border-y border-line">
      <table className="w-full text-sm" aria-label={`Tasks${agent.agent ? ` of ${agent.agent}` : ''}`}>
        <thead className="bg-panel text-xs text-muted">
          <tr>
            <SortHeader run={run} view={view} sort="task">task</SortHeader>
            <th scope="col" className="px-2 py-2 text-left font-medium">name</th>
            <th scope="col" className="px-2 py-2 text-left font-medium" title="one mark per rollout, in rollout-index order">rewards</th>
            <SortHeader run={run} view={view} sort="rollouts">n</SortHeader>
            <SortHeader run={run} view={view} sort="reward_mean">mean</SortHeader>
            <SortHeader run={run} view={view} sort="reward_std" title="sample standard deviation (n − 1), 0 for one rollout">std</SortHeader>
            <SortHeader run={run} view={view} sort="reward_min">min</SortHeader>
            <SortHeader run={run} view={view} sort="reward_max">max</SortHeader>
            <SortHeader run={run} view={view} sort="pass@1">pass@1</SortHeader>
            {k > 1 ? <SortHeader run={run} view={view} sort="pass@k" title={`pass@${k}; empty for tasks with fewer rollouts`}>{`pass@${k}`}</SortHeader> : null}
            <SortHeader run={run} view={view} sort="tokens" title="total tokens per rollout: mean (min–max)">tokens</SortHeader>
            <SortHeader run={run} view={view} sort="latency" title="the sum of its calls' latencies per rollout: mean (min–max)">latency</SortHeader>
            <SortHeader run={run} view={view} sort="failed" title="failure rows in the _failures sidecar">failed</SortHeader>
          </tr>
        </thead>
        <tbody>
          {agent.tasks.map((t) => {
            const href = taskViewHref(run, { ...view, agent: agentParam }, t.task_index);
            return (
              <tr key={t.task_index} data-task={t.task_index} aria-selected={open === t.task_index} className={cn('border-t border-line', open === t.task_index && 'bg-accent/10')}>
                <td className="px-2 py-1 tabular-nums">
                  <Link href={href} scroll={false} className="text-accent hover:underline" title={`open task ${t.task_index}`}>
                    {t.task_index}
                  </Link>
                  {t.zero_variance ? <span className="ml-1 text-[10px] text-warn" title="zero variance: one reward value">ZV</span> : null}
                </td>
                <td className="max-w-[22rem] truncate px-2 py-1" title={t.task ?? undefined}>
                  {t.task === null ? <span className="text-muted">—</span> : prefix && t.task.length > prefix.length ? `…${t.task.slice(prefix.length)}` : t.task}
                </td>
                <td className="px-2 py-1">
                  <RewardStrip rewards={t.rewards} ids={t.rollout_ids} />
                </td>
                <td className={cn(num, t.partial && 'text-warn')} title={t.partial ? `partial: ${t.rollouts} of the largest group's ${k}` : undefined}>
                  {t.rollouts}
                </td>
                <td className={num} title={String(t.reward_mean)}>{formatReward(t.reward_mean)}</td>
                <td className={num} title={String(t.reward_std)}>{formatReward(t.reward_std)}</td>
                <td className={num}>{formatReward(t.reward_min)}</td>
                <td className={num}>{formatReward(t.reward_max)}</td>
                <td className={num} title={String(t['pass@k']['1'])}>{formatPercent(t['pass@k']['1'])}</td>
                {k > 1 ? <td className={cn(num, !(String(k) in t['pass@k']) && 'text-muted')}>{formatPercent(t['pass@k'][String(k)])}</td> : null}
                <SpreadCell spread={t.tokens} format={(n) => formatCompact(Math.round(n))} unit=" tokens" />
                <SpreadCell spread={t.latency_ms} format={formatMs} unit=" ms" />
                <td className={cn(num, t.failed_attempts ? 'text-bad' : 'text-muted')}>{formatCount(t.failed_attempts)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
