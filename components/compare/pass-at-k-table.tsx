import { Card } from '@/components/ui/card';
import type { Compare } from '@/lib/api/compare-schemas';
import { formatPercent } from '@/lib/view/task-view';

/** Each run's NeMo Gym pass@k metrics side by side (one column per run, or per run and agent). */
export function PassAtKTable({ runs }: { runs: Compare['pass_at_k'] }) {
  const pending = runs.filter((r) => r.pending).map((r) => r.run);
  if (pending.length) {
    return (
      <Card title="pass@k (NeMo Gym's metrics)" id="pass-at-k">
        <p role="status" className="text-sm text-muted">
          The task groups of {pending.join(', ')} are being built (a large run, just indexed): pass@k and the tasks that changed appear when this page is
          loaded again in a moment.
        </p>
      </Card>
    );
  }
  const columns = runs.flatMap((r) => r.agents.map((a) => ({ label: r.agents.length > 1 ? `${r.run} · ${a.agent ?? '(no agent)'}` : r.run, ...a })));
  if (!columns.some((c) => c.tasks > 0)) return null;
  const keys = [...new Set(columns.flatMap((c) => Object.keys(c.metrics)))].filter((k) => !k.endsWith('_across_runs'));
  return (
    <Card title="pass@k (NeMo Gym's metrics)" id="pass-at-k">
      <div className="-m-4 overflow-x-auto">
        <table className="w-full text-sm tabular-nums" aria-label="pass@k by run">
          <thead className="bg-panel text-xs text-muted">
            <tr>
              <th scope="col" className="px-3 py-2 text-left font-medium">metric</th>
              {columns.map((c) => (
                <th key={c.label} scope="col" className="max-w-[16rem] truncate px-3 py-2 text-right font-medium" title={c.label}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr className="border-t border-line">
              <td className="px-3 py-1 text-muted">tasks · largest group</td>
              {columns.map((c) => (
                <td key={c.label} className="px-3 py-1 text-right">
                  {c.tasks} · {c.max_k}
                </td>
              ))}
            </tr>
            {keys.map((k) => (
              <tr key={k} className="border-t border-line">
                <td className="px-3 py-1 font-mono text-xs">{k}</td>
                {columns.map((c) => {
                  const se = c.metrics[`${k}/std_err_across_runs`];
                  return (
                    <td key={c.label} className="px-3 py-1 text-right" title={k in c.metrics ? String(c.metrics[k]) : 'no such k in this run'}>
                      {formatPercent(c.metrics[k])}
                      {se !== undefined ? <span className="text-muted"> ± {se.toFixed(2)}</span> : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
