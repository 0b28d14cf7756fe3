import type { TaskPage } from '@/lib/api/task-schemas';
import { formatCount } from '@/lib/view/format';
import { formatPercent, headline } from '@/lib/view/task-view';

function Figure({ label, value, title }: { label: string; value: string; title?: string }) {
  return (
    <div title={title}>
      <dt className="text-xs text-muted">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums">{value}</dd>
    </div>
  );
}

/** The agent's pass@k as NeMo Gym reports it (its metric keys in the titles), then every k in a table that folds. */
export function TaskHeadline({ agent }: { agent: TaskPage['agents'][number] }) {
  const h = headline(agent);
  const exact = (key: string) => (key in agent.metrics ? `${key} = ${agent.metrics[key]}` : `${key}: none`);
  return (
    <div className="space-y-2">
      <dl className="flex flex-wrap gap-x-8 gap-y-2">
        <Figure label="pass@1" value={formatPercent(h.passAt1)} title={exact('pass@1/accuracy')} />
        {h.k > 1 ? <Figure label={`pass@${h.k}`} value={formatPercent(h.passAtK)} title={exact(`pass@${h.k}/accuracy`)} /> : null}
        <Figure
          label={`pass@1[avg-of-${h.k}]`}
          value={`${formatPercent(h.avgOfK)}${h.stdErr !== null ? ` ± ${h.stdErr.toFixed(2)}` : ''}`}
          title={`${exact(`pass@1[avg-of-${h.k}]/accuracy`)}${h.stdErr !== null ? `; ± std_err_across_runs ${h.stdErr}, std_dev_across_runs ${h.stdDev}` : ''}`}
        />
        <Figure label="tasks" value={formatCount(agent.total_tasks)} />
        <Figure label="rollouts in groups" value={formatCount(agent.counts.rollouts)} />
      </dl>
      {h.k > 1 ? (
        <details className="text-sm">
          <summary className="cursor-pointer text-muted hover:text-fg">Every k (1 … {h.k})</summary>
          <table className="mt-2 text-sm tabular-nums" aria-label="pass@k by k">
            <thead className="text-xs text-muted">
              <tr>
                <th className="px-2 py-1 text-right font-medium">k</th>
                <th className="px-2 py-1 text-right font-medium">pass@k</th>
                <th className="px-2 py-1 text-right font-medium">pass@1[avg-of-k]</th>
              </tr>
            </thead>
            <tbody>
              {h.byK.map((r) => (
                <tr key={r.k} className="border-t border-line">
                  <td className="px-2 py-0.5 text-right">{r.k}</td>
                  <td className="px-2 py-0.5 text-right" title={String(r.passAtK)}>{formatPercent(r.passAtK)}</td>
                  <td className="px-2 py-0.5 text-right" title={String(r.avgOfK)}>{formatPercent(r.avgOfK)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </div>
  );
}
