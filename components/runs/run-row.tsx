import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import { Checkbox } from '@/components/ui/checkbox';
import { cx } from '@/components/ui/cn';
import type { RunInfo } from '@/lib/index/index';
import type { ResponseUsageTotals } from '@/lib/index/queries';
import { formatCompact, formatCount, formatReward } from '@/lib/view/format';
import { shownTokens, TOKEN_FIELDS } from '@/lib/view/table';
import { RunProgress } from './run-progress';

const num = 'px-3 py-2 text-right tabular-nums';

/** A run's token total; `usage`: the sum of its rollout lines' response.usage (it has no captured calls), in italics. */
function Tokens({ n, usage }: { n: number | null; usage: ResponseUsageTotals | null }) {
  const note = usage ? ` (the response.usage of ${formatCount(usage.rollouts)} rollout lines: no captured calls)` : '';
  return (
    <td className={num} title={n === null ? `unknown${note}` : `${formatCount(n)} tokens${note}`}>
      {n === null ? <span className="text-muted">{formatCompact(n)}</span> : <span className={usage ? 'italic' : undefined}>{formatCompact(n)}</span>}
    </td>
  );
}

/** One run: its totals, indexing progress while not ready, and whether changes are arriving. */
export function RunRow({ run, selected, onSelect, live }: { run: RunInfo; selected: boolean; onSelect: (checked: boolean) => void; live: boolean }) {
  const t = run.totals;
  const source = [run.rollouts_file, run.failures_file, run.capture_dir].filter(Boolean).join('\n');
  return (
    <tr aria-label={`run ${run.id}`} className={cx('border-t border-line align-top hover:bg-panel/60', selected && 'bg-accent/5')}>
      <td className="px-3 py-2">
        <Checkbox checked={selected} onChange={(e) => onSelect(e.target.checked)} aria-label={`select ${run.id} to compare`} />
      </td>
      <td className="max-w-72 px-3 py-2">
        <div className="flex items-center gap-2">
          <Link href={`/runs/${encodeURIComponent(run.id)}`} title={source} className="truncate font-medium text-accent hover:underline">
            {run.id}
          </Link>
          {live ? <Badge tone="good" title="This run received changes in the last seconds">live</Badge> : null}
          {!run.capture_dir ? <Badge className="shrink-0 whitespace-nowrap" title="No capture dir: calls come from the rollout lines' attachments">rollouts only</Badge> : null}
          {!run.rollouts_file ? <Badge className="shrink-0 whitespace-nowrap" title="No rollouts file: no rewards or task indices">capture only</Badge> : null}
        </div>
        {run.progress.state !== 'ready' ? <RunProgress progress={run.progress} /> : null}
      </td>
      <td className={num}>
        {formatCount(t.rollouts)}
        {t.failed ? (
          <span className="ml-1 text-bad" title={`of which ${formatCount(t.failed)} failed (from the failures file)`}>
            ({formatCount(t.failed)} failed)
          </span>
        ) : null}
        {t.line_problems ? (
          <Link
            href={`/runs/${encodeURIComponent(run.id)}?line_problem=true`}
            className="ml-1 text-bad hover:underline"
            title={`${formatCount(t.line_problems)} lines of the rollouts files could not be read (listed by line number): show them`}
          >
            ({formatCount(t.line_problems)} unreadable)
          </Link>
        ) : null}
      </td>
      <td className={num}>{formatCount(t.calls)}</td>
      {TOKEN_FIELDS.map((f) => {
        const shown = shownTokens(t, t.calls, f);
        return <Tokens key={f} n={shown.value} usage={shown.fromUsage ? t.response_usage : null} />;
      })}
      <td className={cx(num, t.errors > 0 && 'text-bad')}>{formatCount(t.errors)}</td>
      <td className={cx(num, t.gaps > 0 && 'text-warn')}>{formatCount(t.gaps)}</td>
      <td className={num}>{formatReward(t.mean_reward)}</td>
      <td className="px-3 py-2">
        <div className="flex flex-wrap gap-1">
          {t.model_servers.map((s) => (
            <Badge key={s}>{s}</Badge>
          ))}
        </div>
      </td>
    </tr>
  );
}
