import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import { Checkbox } from '@/components/ui/checkbox';
import { cx } from '@/components/ui/cn';
import type { Run } from '@/lib/api/schemas';
import { formatCompact, formatCount, formatReward } from '@/lib/view/format';
import { capturedCount, type SharedFacts } from '@/lib/view/runs';
import { shownTokens, TOKEN_FIELDS } from '@/lib/view/table';
import { RunProgress } from './run-progress';

const num = 'px-2 py-1.5 text-right tabular-nums whitespace-nowrap';

/** A run's token total; `usage`: the sum of its rollout lines' response.usage (it has no captured calls), in italics. */
function Tokens({ n, usage }: { n: number | null; usage: Run['totals']['response_usage'] }) {
  const note = usage ? ` (the response.usage of ${formatCount(usage.rollouts)} rollout lines: no captured calls)` : '';
  return (
    <td className={num} title={n === null ? `unknown${note}` : `${formatCount(n)} tokens${note}`}>
      {n === null ? <span className="text-muted">{formatCompact(n)}</span> : <span className={usage ? 'italic' : undefined}>{formatCompact(n)}</span>}
    </td>
  );
}

/** Calls or errors: "unknown" when no rollout has capture evidence, with how many rollouts are unknown when some have none. */
function Captured({ n, run, what, tone }: { n: number; run: Run; what: 'calls' | 'errors'; tone?: string }) {
  const c = capturedCount(n, run, what);
  return (
    <td className={cx(num, c.unknown ? 'text-muted' : tone)} title={c.title}>
      {c.text}
    </td>
  );
}

function Chips({ names }: { names: string[] }) {
  return (
    <td className="px-2 py-1.5">
      <div className="flex flex-wrap gap-1">
        {names.map((s) => (
          <Badge key={s} title={s}>{s}</Badge>
        ))}
      </div>
    </td>
  );
}

/** One run: its full name (breaking after a separator when it must), its totals, indexing progress while not ready, and whether changes are arriving. */
export function RunRow({ run, shared, selected, onSelect, live }: { run: Run; shared: SharedFacts; selected: boolean; onSelect: (checked: boolean) => void; live: boolean }) {
  const t = run.totals;
  const source = [run.rollouts_file, run.failures_file, run.capture_dir].filter(Boolean).join('\n');
  const rest = run.id.slice(shared.id_prefix.length);
  return (
    <tr aria-label={`run ${run.id}`} className={cx('border-t border-line align-top hover:bg-panel/60', selected && 'bg-accent/5')}>
      <td className="px-2 py-1.5">
        <Checkbox checked={selected} onChange={(e) => onSelect(e.target.checked)} aria-label={`select ${run.id} to compare`} />
      </td>
      <td className="min-w-64 px-2 py-1.5">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
          <Link href={`/runs/${encodeURIComponent(run.id)}`} title={source} className="font-medium [overflow-wrap:anywhere] text-accent hover:underline">
            {shared.id_prefix ? <span className="font-normal opacity-60">{shared.id_prefix}</span> : null}
            {rest.split(/(?<=[-_.])/).map((part, i) => (
              <span key={i}>
                {i > 0 ? <wbr /> : null}
                {part}
              </span>
            ))}
          </Link>
          {live ? <Badge tone="good" title="This run received changes in the last seconds">live</Badge> : null}
          {!run.capture_dir && !shared.rollouts_only ? <Badge title="No capture dir: calls come from the rollout lines' attachments">rollouts only</Badge> : null}
          {run.capture_dir && shared.rollouts_only ? <Badge tone="accent" title={`Capture dir: ${run.capture_dir}`}>captured</Badge> : null}
          {!run.rollouts_file && !shared.capture_only ? <Badge title="No rollouts file: no rewards or task indices">capture only</Badge> : null}
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
      <Captured n={t.calls} run={run} what="calls" />
      {TOKEN_FIELDS.map((f) => {
        const shown = shownTokens(t, t.calls, f);
        return <Tokens key={f} n={shown.value} usage={shown.fromUsage ? t.response_usage : null} />;
      })}
      <Captured n={t.errors} run={run} what="errors" tone={t.errors > 0 ? 'text-bad' : undefined} />
      <td className={cx(num, t.gaps > 0 && 'text-warn')}>{formatCount(t.gaps)}</td>
      <td className={num}>{formatReward(t.mean_reward)}</td>
      {shared.agents === null ? <Chips names={t.agents} /> : null}
      {shared.model_servers === null ? <Chips names={t.model_servers} /> : null}
    </tr>
  );
}
