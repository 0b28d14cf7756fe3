import Link from 'next/link';
import { Card } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import type { TaskDetail } from '@/lib/api/task-schemas';
import { formatCompact, formatCount, formatMs, formatReward } from '@/lib/view/format';
import { shownTokens } from '@/lib/view/table';
import { formatPercent } from '@/lib/view/task-view';
import { RewardStrip } from './reward-strip';

type Row = TaskDetail['rollouts'][number];

const rolloutHref = (run: string, key: string) => `/runs/${encodeURIComponent(run)}/rollouts/${encodeURIComponent(key)}`;
const diffHref = (run: string, a: string, b: string) => `/diff?a=${encodeURIComponent(`${run}/${a}`)}&b=${encodeURIComponent(`${run}/${b}`)}`;
const num = 'px-2 py-1 text-right tabular-nums whitespace-nowrap';

/** An open task: its rollouts best to worst, each linked, with "diff with best"; the sidecar's failed attempts. */
export function TaskRollouts({ run, group, rollouts, failures, closeHref }: { run: string; group: TaskDetail['group']; rollouts: Row[]; failures: TaskDetail['failures']; closeHref: string }) {
  const best = rollouts[0];
  return (
    <Card
      id="open-task"
      title={`Task ${group.task_index}${group.agent ? ` · ${group.agent}` : ''}`}
      className="mb-4 border-accent/50"
      actions={
        <Link href={closeHref} scroll={false} className="text-xs text-muted hover:text-fg">
          Close
        </Link>
      }
    >
      <div className="mb-3 space-y-1 text-sm">
        {group.task ? <p className="line-clamp-3 break-words" title={group.task}>{group.task}</p> : null}
        <p className="flex flex-wrap items-center gap-x-4 gap-y-1 text-muted">
          <RewardStrip rewards={group.rewards} ids={group.rollout_ids} />
          <span>{formatCount(group.rollouts)} rollouts</span>
          <span>mean {formatReward(group.reward_mean)} · std {formatReward(group.reward_std)}</span>
          <span>
            {Object.entries(group['pass@k'])
              .map(([k, v]) => `pass@${k} ${formatPercent(v)}`)
              .join(' · ')}
          </span>
          {group.zero_variance ? <span className="text-warn">zero variance: every rollout has reward {formatReward(group.reward_min)}</span> : null}
        </p>
      </div>
      <div className="-mx-4 overflow-x-auto border-t border-line">
        <table className="w-full text-sm" aria-label={`Rollouts of task ${group.task_index}`}>
          <thead className="bg-panel text-xs text-muted">
            <tr>
              {['#', 'rollout', 'reward', 'tokens', 'calls', 'tool calls', 'TTFT p50', 'latency', ''].map((h, i) => (
                <th key={i} scope="col" className={cn('px-2 py-2 font-medium whitespace-nowrap', i < 2 ? 'text-left' : 'text-right')}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rollouts.map((r, i) => {
              const tokens = shownTokens(r, r.num_calls, 'tokens_total');
              return (
                <tr key={r.key} className="border-t border-line">
                  <td className="px-2 py-1 tabular-nums text-muted">{i + 1}</td>
                  <td className="px-2 py-1 font-mono text-xs">
                    <Link href={rolloutHref(run, r.key)} className="text-accent hover:underline">
                      {r.key}
                    </Link>
                  </td>
                  <td className={num}>{formatReward(r.reward)}</td>
                  <td className={cn(num, tokens.fromUsage && 'italic')} title={tokens.fromUsage ? "the rollout line's response.usage: no captured calls" : undefined}>
                    {tokens.value === null ? 'unknown' : formatCompact(tokens.value)}
                  </td>
                  <td className={num}>{r.source === 'none' ? <span className="text-muted" title="no capture evidence">unknown</span> : formatCount(r.num_calls)}</td>
                  {r.trajectory ? (
                    <td className={num} title="tool calls of its trajectory">
                      {formatCount(r.trajectory.tool_calls)}
                    </td>
                  ) : (
                    <td className={num} title="tool calls its captured responses asked for (the rollout has no trajectory)">
                      {r.tool_calls_requested === null ? <span className="text-muted">unknown</span> : formatCount(r.tool_calls_requested)}
                    </td>
                  )}
                  <td className={num}>{formatMs(r.ttft_p50)}</td>
                  <td className={num}>{formatMs(r.latency_sum)}</td>
                  <td className="px-2 py-1 text-right text-xs">
                    {best && r.key !== best.key ? (
                      <Link href={diffHref(run, best.key, r.key)} className="text-accent hover:underline" title={`diff ${r.key} against the best rollout, ${best.key}`}>
                        diff with best
                      </Link>
                    ) : i === 0 ? (
                      <span className="text-muted">best</span>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {failures.length ? (
        <p className="mt-3 text-sm text-muted">
          Failed attempts in the sidecar (not in the figures above):{' '}
          {failures.map((f, i) => (
            <span key={f.key}>
              {i ? ', ' : ''}
              <Link href={rolloutHref(run, f.key)} className="font-mono text-xs text-accent hover:underline">
                {f.key}
              </Link>{' '}
              ({f.failure_class ?? 'failed'})
            </span>
          ))}
        </p>
      ) : null}
    </Card>
  );
}
