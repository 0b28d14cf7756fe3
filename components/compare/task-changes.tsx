import Link from 'next/link';
import { RewardStrip } from '@/components/tasks/reward-strip';
import { Card } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import type { Compare } from '@/lib/api/compare-schemas';
import type { PairBy, TaskChange } from '@/lib/rollouts/task-changes';
import { formatCount } from '@/lib/view/format';
import { formatPercent, taskViewHref } from '@/lib/view/task-view';

const SHOWN = 200;
const KIND: Record<TaskChange['kind'], { label: string; tone: string }> = {
  newly_unsolved: { label: 'solved → unsolved', tone: 'text-bad' },
  fell: { label: 'fell', tone: 'text-bad' },
  rose: { label: 'rose', tone: 'text-good' },
  newly_solved: { label: 'unsolved → solved', tone: 'text-good' },
};

const diffHref = (a: string, ka: string, b: string, kb: string) => `/diff?a=${encodeURIComponent(`${a}/${ka}`)}&b=${encodeURIComponent(`${b}/${kb}`)}`;

/** The tasks whose pass@1 changed from the first run to the second, largest fall first. */
export function TaskChangesCard({ changes, runs, pairHref }: { changes: NonNullable<Compare['task_changes']>; runs: [string, string]; pairHref: (by: PairBy) => string }) {
  const [a, b] = runs;
  const count = (k: TaskChange['kind']) => changes.changes.filter((c) => c.kind === k).length;
  const fell = count('fell') + count('newly_unsolved');
  const rose = count('rose') + count('newly_solved');
  return (
    <Card
      title={`Tasks whose pass@1 changed: ${a} → ${b}`}
      id="task-changes"
      actions={
        <nav aria-label="pair tasks by" className="flex gap-1 text-xs">
          {(['index', 'task'] as const).map((by) => (
            <Link key={by} href={pairHref(by)} scroll={false} aria-current={changes.pair_by === by ? 'true' : undefined} className={cn('rounded px-2 py-1 text-muted hover:bg-panel hover:text-fg', changes.pair_by === by && 'bg-panel font-medium text-fg')}>
              {by === 'index' ? 'by task index' : 'by task name'}
            </Link>
          ))}
        </nav>
      }
    >
      <p className="mb-3 text-sm">
        {formatCount(changes.paired)} tasks paired {changes.pair_by === 'index' ? 'by _ng_task_index' : 'by what names the task'}: <span className="text-bad">{formatCount(fell)} fell</span> ({formatCount(count('newly_unsolved'))} solved → unsolved),{' '}
        <span className="text-good">{formatCount(rose)} rose</span> ({formatCount(count('newly_solved'))} unsolved → solved), {formatCount(changes.unchanged)} unchanged.
        {changes.only_a || changes.only_b ? ` Only in ${a}: ${formatCount(changes.only_a)}; only in ${b}: ${formatCount(changes.only_b)}.` : ''}
        {changes.unpairable ? ` ${formatCount(changes.unpairable)} tasks could not be paired (no name, or a name several tasks share).` : ''}
      </p>
      {changes.changes.length ? (
        <div className="-mx-4 -mb-4 overflow-x-auto border-t border-line">
          <table className="w-full text-sm" aria-label="tasks that changed">
            <thead className="bg-panel text-xs text-muted">
              <tr>
                {['task', 'name', a, 'pass@1', b, 'pass@1', 'Δ pass@1', '', ''].map((h, i) => (
                  <th key={i} scope="col" className={cn('max-w-[12rem] truncate px-2 py-2 font-medium', [3, 5, 6].includes(i) ? 'text-right' : 'text-left')} title={h}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {changes.changes.slice(0, SHOWN).map((c) => (
                <tr key={`${c.a.task_index}-${c.b.task_index}`} className="border-t border-line">
                  <td className="px-2 py-1 tabular-nums whitespace-nowrap">
                    <Link href={taskViewHref(a, { agent: changes.agent_a ?? undefined }, c.a.task_index)} className="text-accent hover:underline">
                      {c.a.task_index}
                    </Link>
                    {c.b.task_index !== c.a.task_index ? (
                      <>
                        {' / '}
                        <Link href={taskViewHref(b, { agent: changes.agent_b ?? undefined }, c.b.task_index)} className="text-accent hover:underline">
                          {c.b.task_index}
                        </Link>
                      </>
                    ) : null}
                  </td>
                  <td className="max-w-[20rem] truncate px-2 py-1" title={c.task ?? undefined}>{c.task ?? <span className="text-muted">—</span>}</td>
                  <td className="px-2 py-1"><RewardStrip rewards={c.a.rewards} ids={c.a.rewards.map((_, i) => `${a} #${i}`)} /></td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatPercent(c.a.pass_at_1)}</td>
                  <td className="px-2 py-1"><RewardStrip rewards={c.b.rewards} ids={c.b.rewards.map((_, i) => `${b} #${i}`)} /></td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatPercent(c.b.pass_at_1)}</td>
                  <td className={cn('px-2 py-1 text-right tabular-nums', c.delta < 0 ? 'text-bad' : 'text-good')}>{`${c.delta > 0 ? '+' : ''}${c.delta.toFixed(2)}`}</td>
                  <td className={cn('px-2 py-1 text-xs whitespace-nowrap', KIND[c.kind].tone)}>{KIND[c.kind].label}</td>
                  <td className="px-2 py-1 text-xs whitespace-nowrap">
                    <Link href={diffHref(a, c.a.best, b, c.b.best)} className="text-accent hover:underline" title={`diff the best rollout of each: ${c.a.best} and ${c.b.best}`}>
                      diff best pair
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {changes.changes.length > SHOWN ? <p className="border-t border-line px-3 py-2 text-xs text-muted">Showing the first {SHOWN} of {formatCount(changes.changes.length)}.</p> : null}
        </div>
      ) : (
        <p className="text-sm text-muted">No paired task&apos;s pass@1 changed.</p>
      )}
    </Card>
  );
}
