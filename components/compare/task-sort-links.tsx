import Link from 'next/link';
import { cn } from '@/components/ui/cn';
import { TASK_SORTS, type TaskSort } from '@/lib/view/compare';

const LABELS: Record<TaskSort, string> = { task: 'by task', delta_tokens: 'by change in tokens', delta_reward: 'by change in reward' };

/** Sort orders of the paired-task table, as links (the order is part of the shareable URL). */
export function TaskSortLinks({ runs, sort }: { runs: string[]; sort: TaskSort }) {
  return (
    <nav aria-label="sort tasks" className="flex gap-1 text-xs">
      {TASK_SORTS.map((s) => (
        <Link
          key={s}
          href={`/compare?runs=${runs.map(encodeURIComponent).join(',')}${s === 'task' ? '' : `&tasks=${s}`}#tasks`}
          scroll={false}
          aria-current={s === sort ? 'true' : undefined}
          className={cn('rounded px-2 py-1 text-muted hover:bg-panel hover:text-fg', s === sort && 'bg-panel font-medium text-fg')}
        >
          {LABELS[s]}
        </Link>
      ))}
    </nav>
  );
}
