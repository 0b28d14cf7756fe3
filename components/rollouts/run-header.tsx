import Link from 'next/link';
import { RunProgress } from '@/components/runs/run-progress';
import type { Run } from '@/lib/api/schemas';
import { formatCompact, formatCount, formatMs, formatReward } from '@/lib/view/format';
import { capturedCount } from '@/lib/view/runs';
import { shownTokens, usageShown, type TokenField } from '@/lib/view/table';

function Stat({ label, value, title, italic = false }: { label: string; value: string; title?: string; italic?: boolean }) {
  return (
    <div title={title}>
      <dt className="text-xs text-muted">{label}</dt>
      <dd className={`font-semibold tabular-nums${italic ? ' italic' : ''}`}>{value}</dd>
    </div>
  );
}

/** The run's name, where its files are, and its totals. */
export function RunHeader({ run }: { run: Run }) {
  const calls = capturedCount(run.totals.calls, run, 'calls');
  const errors = capturedCount(run.totals.errors, run, 'errors');
  const t = run.totals;
  const files = [run.rollouts_file, run.failures_file, run.capture_dir].filter((f): f is string => f !== null);
  const tokens = (n: number | null) => (n === null ? '—' : `${formatCompact(n)} tok`);
  // Without captured calls, the token figures are the sums of the rollout lines' own response.usage (said so).
  const shown = (f: TokenField) => shownTokens(t, t.calls, f).value;
  const usage = usageShown(t, t.calls);
  const usageNote = usage ? ` — the sum of ${formatCount(usage.rollouts)} rollout lines' response.usage: no captured calls` : '';
  return (
    <header className="mb-4 space-y-3">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" className="hover:text-fg">
          Runs
        </Link>{' '}
        / <span className="text-fg">{run.id}</span>
      </nav>
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <h1 className="text-xl font-semibold break-all">{run.id}</h1>
        {files.map((f) => (
          <code key={f} className="truncate font-mono text-xs text-muted" title={f}>
            {f}
          </code>
        ))}
      </div>
      {run.progress.state !== 'ready' ? <RunProgress progress={run.progress} /> : null}
      <dl className="flex flex-wrap gap-x-8 gap-y-2 rounded-lg border border-line bg-panel px-4 py-3 text-sm">
        <Stat label="Rollouts" value={`${formatCount(t.rollouts)}${t.failed ? ` (${formatCount(t.failed)} failed)` : ''}${t.line_problems ? ` (${formatCount(t.line_problems)} unreadable lines)` : ''}`} />
        <Stat label="Calls" value={calls.text} title={calls.title} />
        <Stat label="Tokens in" italic={usage !== null} value={tokens(shown('tokens_in'))} title={`${formatCount(shown('tokens_in'))} (${formatCount(shown('cached_tokens'))} cached)${usageNote}`} />
        <Stat label="Tokens out" italic={usage !== null} value={tokens(shown('tokens_out'))} title={`${formatCount(shown('tokens_out'))}${usageNote}`} />
        <Stat label="Reasoning" italic={usage !== null} value={tokens(shown('tokens_reasoning'))} title={`${formatCount(shown('tokens_reasoning'))}${usageNote}`} />
        <Stat label="Total" italic={usage !== null} value={tokens(shown('tokens_total'))} title={`${formatCount(shown('tokens_total'))}${usageNote}`} />
        <Stat label="Latency sum" value={formatMs(t.latency_sum)} />
        <Stat label="Errors" value={errors.text} title={errors.title} />
        <Stat label="Gaps" value={formatCount(t.gaps)} />
        <Stat label="Mean reward" value={formatReward(t.mean_reward)} />
      </dl>
      {usage ? (
        <p className="text-sm text-muted">
          Token figures in <span className="italic">italics</span> are the sums of {formatCount(usage.rollouts)} rollout lines&apos; own{' '}
          <code>response.usage</code>: this run has no captured calls.
        </p>
      ) : null}
    </header>
  );
}
