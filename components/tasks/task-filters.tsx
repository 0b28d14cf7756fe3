import Link from 'next/link';
import { cn } from '@/components/ui/cn';
import type { TaskPage } from '@/lib/api/task-schemas';
import type { Solved } from '@/lib/rollouts/task-groups';
import { formatCount } from '@/lib/view/format';
import { taskViewHref, type TaskView } from '@/lib/view/task-view';

type Agent = TaskPage['agents'][number];

const SOLVED_LABELS: Record<Solved, string> = { never: 'never solved', some: 'sometimes solved', always: 'always solved' };

function Chip({ href, on, count, children, title }: { href: string; on: boolean; count: number; children: string; title: string }) {
  return (
    <Link
      href={href}
      scroll={false}
      title={title}
      aria-pressed={on}
      className={cn('rounded-full border px-2.5 py-0.5 text-xs tabular-nums hover:border-accent', on ? 'border-accent bg-accent/10 text-fg' : 'border-line text-muted')}
    >
      {children} <span className="text-muted">{formatCount(count)}</span>
    </Link>
  );
}

/** The task kinds as toggles (counts over all the agent's tasks) and a search over what names the task. */
export function TaskFilters({ run, view, agent }: { run: string; view: TaskView; agent: Agent }) {
  const base: TaskView = { ...view, cursor: undefined };
  const toggle = (patch: Partial<TaskView>, on: boolean) => taskViewHref(run, on ? { ...base, ...Object.fromEntries(Object.keys(patch).map((k) => [k, undefined])) } : { ...base, ...patch });
  const c = agent.counts;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Chip href={toggle({ zero_variance: true }, view.zero_variance === true)} on={view.zero_variance === true} count={c.zero_variance} title="Two or more rollouts, one reward value: no learning signal for GRPO">
        zero variance
      </Chip>
      {(['never', 'some', 'always'] as const).map((s) => (
        <Chip key={s} href={toggle({ solved: s }, view.solved === s)} on={view.solved === s} count={c[s]} title={s === 'never' ? 'No rollout has a reward above 0' : s === 'always' ? 'Every rollout has a reward of 1 or more' : 'Some rewards above 0, not all 1'}>
          {SOLVED_LABELS[s]}
        </Chip>
      ))}
      <Chip href={toggle({ partial: true }, view.partial === true)} on={view.partial === true} count={c.partial} title={`Fewer than ${agent.max_k} rollouts (the largest group)`}>
        partial groups
      </Chip>
      <Chip href={toggle({ failed: true }, view.failed === true)} on={view.failed === true} count={c.failed} title="Tasks with failure rows in the _failures sidecar (not counted in the figures)">
        failed attempts
      </Chip>
      <form action={`/runs/${encodeURIComponent(run)}/tasks`} className="ml-auto flex items-center gap-1" role="search">
        {Object.entries(base)
          .filter(([k, v]) => k !== 'q' && v !== undefined && !(k === 'sort' && v === 'task') && !(k === 'order' && v === 'asc'))
          .map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={String(v)} />
          ))}
        <input
          type="search"
          name="q"
          defaultValue={view.q ?? ''}
          placeholder="Search tasks"
          aria-label="Search tasks"
          className="w-56 rounded-md border border-line bg-bg px-2 py-1 text-sm"
        />
      </form>
    </div>
  );
}
