import { Card } from '@/components/ui/card';
import { cx } from '@/components/ui/cn';
import type { TaskProfile } from '@/lib/rollouts/reward-profile';
import { formatCount } from '@/lib/view/format';

const ROWS_SHOWN = 200;

/** A figure of the file as it is: whole numbers whole, others to 3 places, the exact value in the title. */
function Figure({ value }: { value: number | null }) {
  return (
    <td className={cx('px-3 py-1.5 text-right whitespace-nowrap tabular-nums', value === null && 'text-muted')} title={value === null ? undefined : String(value)}>
      {value === null ? '—' : Number.isInteger(value) ? String(value) : value.toFixed(3)}
    </td>
  );
}

/** `gym eval profile`'s per-task profile of the run (X_reward_profiling.jsonl), its figures as the file has them. */
export function TaskProfileCard({ profile }: { profile: TaskProfile }) {
  const passKeys = [...new Set(profile.rows.flatMap((r) => r.pass_at.map((p) => p.key)))];
  const rows = profile.rows.slice(0, ROWS_SHOWN);
  const rollouts = profile.rows.reduce((n, r) => n + (r.rollouts ?? 0), 0);
  const expected = profile.rows.reduce((n, r) => n + (r.expected_rollouts ?? 0), 0);
  const name = profile.file.split(/[\\/]/).pop();
  const headers = ['task', 'name', 'rollouts', 'mean reward', 'std', 'min', 'max', ...passKeys];
  return (
    <Card title="Task profile" id="task-profile" className="mt-5" actions={<code className="truncate font-mono text-xs text-muted" title={profile.file}>{name}</code>}>
      <p className="mb-3 text-sm text-muted">
        From <code className="font-mono">gym eval profile</code>: {formatCount(profile.tasks)} tasks
        {profile.rows.length === profile.tasks ? `, ${formatCount(rollouts)} rollouts of ${formatCount(expected)} expected` : ''}; reward per task over its rollouts (std is the sample standard deviation).
        {profile.problems.length ? ` ${formatCount(profile.problems.length)} lines are not JSON objects (line ${profile.problems.slice(0, 5).map((p) => p.line).join(', ')}${profile.problems.length > 5 ? ', …' : ''}).` : ''}
      </p>
      {rows.length === 0 ? (
        <p className="text-sm text-muted">The profile has no task lines.</p>
      ) : (
        <div className="-mx-4 -mb-4 overflow-x-auto border-t border-line">
          <table className="w-full text-sm" aria-label="Task profile">
            <thead className="bg-panel text-xs text-muted">
              <tr>
                {headers.map((h, i) => (
                  <th key={h} scope="col" className={cx('px-3 py-2 font-medium whitespace-nowrap', i === 1 ? 'text-left' : 'text-right')}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.line} className="border-t border-line">
                  <Figure value={r.task_index} />
                  <td className="max-w-[28rem] truncate px-3 py-1.5 text-left" title={r.task ?? undefined}>
                    {r.task ?? <span className="text-muted">—</span>}
                  </td>
                  <Figure value={r.rollouts} />
                  <Figure value={r.reward.mean} />
                  <Figure value={r.reward.std} />
                  <Figure value={r.reward.min} />
                  <Figure value={r.reward.max} />
                  {passKeys.map((k) => (
                    <Figure key={k} value={r.pass_at.find((p) => p.key === k)?.value ?? null} />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length < profile.tasks ? (
            <p className="border-t border-line px-3 py-2 text-xs text-muted">
              Showing {rows.length} of {formatCount(profile.tasks)} tasks.
            </p>
          ) : null}
        </div>
      )}
    </Card>
  );
}
