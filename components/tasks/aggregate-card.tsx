import { Card } from '@/components/ui/card';
import { cn } from '@/components/ui/cn';
import { LocalTime } from '@/components/ui/local-time';
import type { AgreementReport, AggregateFile } from '@/lib/rollouts/aggregate-metrics';
import { formatCount, formatReward } from '@/lib/view/format';

const show = (v: number | string | boolean | null) => (typeof v === 'number' ? String(v) : v === null ? 'null' : String(v));

function TaskDifferences({ report }: { report: AgreementReport }) {
  const { file, callscope, differing } = report.tasks;
  if (!differing.length) return <p className="text-sm text-muted">Per task: {formatCount(file)} tasks in the file, {formatCount(callscope)} here; every task&apos;s rollout count and mean reward agree.</p>;
  return (
    <div className="text-sm">
      <p>
        Per task: {formatCount(file)} tasks in the file, {formatCount(callscope)} here; <span className="text-warn">{formatCount(differing.length)} differ</span> in rollout count or mean reward:
      </p>
      <ul className="mt-1 list-disc pl-5 text-muted">
        {differing.slice(0, 8).map((d) => (
          <li key={d.task_index}>
            task {d.task_index}: file {d.file ? `${d.file.num_rollouts ?? '?'} rollouts, mean ${formatReward(d.file.mean_reward)}` : 'has no such task'}; here{' '}
            {d.callscope ? `${d.callscope.rollouts} rollouts, mean ${formatReward(d.callscope.mean_reward)}` : 'no such task group'}
          </li>
        ))}
        {differing.length > 8 ? <li>and {formatCount(differing.length - 8)} more</li> : null}
      </ul>
    </div>
  );
}

/** NeMo Gym's aggregate metrics file beside callscope's figures for the same keys. */
export function AggregateCard({ aggregate, reports, rolloutsMtimeMs }: { aggregate: AggregateFile; reports: AgreementReport[]; rolloutsMtimeMs: number | null }) {
  const name = aggregate.file.split(/[\\/]/).pop();
  if (!aggregate.ok) {
    return (
      <Card title="NeMo Gym's aggregate metrics" className="mb-5">
        <p role="alert" className="text-sm text-warn">{aggregate.problem}</p>
      </Card>
    );
  }
  const stale = rolloutsMtimeMs !== null && rolloutsMtimeMs > aggregate.mtimeMs + 1000;
  return (
    <Card title="NeMo Gym's aggregate metrics" className="mb-5" actions={<code className="truncate font-mono text-xs text-muted" title={aggregate.file}>{name}</code>}>
      <p className="mb-3 text-sm text-muted">
        What the collector wrote at the end of the run (<LocalTime seconds={aggregate.mtimeMs / 1000} />), beside callscope&apos;s figures for the same keys over the rollouts file as it is now.
        {stale ? <span className="text-warn"> The rollouts file changed after it was written: where they differ, the file predates rollouts appended since.</span> : null}
      </p>
      <div className="space-y-5">
        {reports.map((r) => (
          <section key={r.agent ?? ''} aria-label={`aggregate metrics of ${r.agent ?? 'no agent'}`} className="space-y-2">
            {reports.length > 1 ? <h3 className="text-sm font-semibold">{r.agent ?? '(no agent_ref)'}</h3> : null}
            {r.figures.length ? (
              <table className="text-sm tabular-nums" aria-label="key metrics">
                <thead className="text-xs text-muted">
                  <tr>
                    <th className="px-2 py-1 text-left font-medium">metric</th>
                    <th className="px-2 py-1 text-right font-medium">in the file</th>
                    <th className="px-2 py-1 text-right font-medium">callscope</th>
                    <th className="px-2 py-1 text-left font-medium" />
                  </tr>
                </thead>
                <tbody>
                  {r.figures.map((f) => (
                    <tr key={f.key} className="border-t border-line">
                      <td className="px-2 py-0.5 font-mono text-xs">{f.key}</td>
                      <td className="px-2 py-0.5 text-right">{show(f.file)}</td>
                      <td className="px-2 py-0.5 text-right">{f.callscope === null ? <span className="text-muted">not computed</span> : String(f.callscope)}</td>
                      <td className={cn('px-2 py-0.5 text-xs', f.agrees === false ? 'text-bad' : 'text-good')}>{f.agrees === null ? '' : f.agrees ? 'agrees' : 'differs'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="text-sm text-muted">The file has no key metrics for this agent.</p>
            )}
            <TaskDifferences report={r} />
          </section>
        ))}
      </div>
    </Card>
  );
}
