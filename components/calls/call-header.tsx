import { ChevronLeft, ChevronRight } from 'lucide-react';
import Link from 'next/link';
import { LiveRefresh } from '@/components/live/live-refresh';
import { Badge } from '@/components/ui/badge';
import { LocalTime } from '@/components/ui/local-time';
import type { CallSummary } from '@/lib/api/call-schemas';
import { formatCount, formatMs } from '@/lib/view/format';
import { rolloutHref, runHref } from './call-href';
import { CopyPageLink } from './copy-page-link';

function Field({ label, children, title, wide }: { label: string; children: React.ReactNode; title?: string; wide?: boolean }) {
  return (
    <div title={title} className={wide ? 'col-span-2 min-w-0' : 'min-w-0'}>
      <dt className="text-xs text-muted">{label}</dt>
      <dd className="truncate font-medium tabular-nums">{children}</dd>
    </div>
  );
}

function cache(c: CallSummary): string {
  if (c.cache_hit === null && c.cached_tokens === null && c.cache_creation_tokens === null) return '—';
  const hit = c.cache_hit === null ? 'unknown' : c.cache_hit ? 'hit' : 'miss';
  return `${hit} · ${formatCount(c.cached_tokens)} cached · ${formatCount(c.cache_creation_tokens)} created`;
}

export interface CallHeaderProps {
  run: string;
  rollout: string;
  call: CallSummary;
  position: number;
  total: number;
  prevHref: string | null;
  nextHref: string | null;
}

/** The call's normalized record at a glance (from the index), with the way to its neighbours. */
export function CallHeader({ run, rollout, call: c, position, total, prevHref, nextHref }: CallHeaderProps) {
  const nav = 'inline-flex items-center gap-1 rounded-md border border-line px-2 py-1 text-sm no-underline hover:bg-panel';
  return (
    <header className="space-y-3">
      <nav aria-label="breadcrumb" className="text-sm text-muted">
        <Link href="/" prefetch={false} className="hover:text-fg">Runs</Link> / <Link href={runHref(run)} prefetch={false} className="hover:text-fg">{run}</Link> /{' '}
        <Link href={rolloutHref(run, rollout)} prefetch={false} className="hover:text-fg">{rollout}</Link> / <span className="text-fg">call #{c.call_index}</span>
      </nav>
      <div className="flex flex-wrap items-center gap-2">
        <h1 className="text-xl font-semibold">Call #{c.call_index}</h1>
        <code className="font-mono text-xs text-muted">{c.model_call_id ?? 'no model_call_id'}</code>
        {c.error_category ? <Badge tone="bad">{c.error_category}</Badge> : null}
        <span className="text-sm text-muted">{position + 1} of {total} in the rollout</span>
        <div className="ml-auto flex items-center gap-2">
          <LiveRefresh runs={[run]} rollout={rollout} />
          <CopyPageLink label="Copy link" />
          {prevHref ? <Link href={prevHref} prefetch={false} className={nav} aria-label="Previous call"><ChevronLeft size={14} /> prev</Link> : null}
          {nextHref ? <Link href={nextHref} prefetch={false} className={nav} aria-label="Next call">next <ChevronRight size={14} /></Link> : null}
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-2 rounded-lg border border-line bg-panel px-4 py-3 text-sm sm:grid-cols-4 lg:grid-cols-6">
        <Field label="Model" title={c.model ?? undefined}><span className="font-mono text-xs">{c.model ?? '—'}</span></Field>
        <Field label="Server">{c.model_server ?? '—'}</Field>
        <Field label="Dialect">{c.dialect ?? '—'}</Field>
        <Field label="Status"><span className={(c.status_code ?? 0) >= 400 ? 'text-bad' : undefined}>{c.status_code ?? '—'}</span></Field>
        <Field label="Error category"><span className={c.error_category ? 'text-bad' : 'text-muted'}>{c.error_category ?? 'none'}</span></Field>
        <Field label="Finish reason">{c.finish_reason ?? '—'}</Field>
        <Field label="Tokens in / out" title={`total ${formatCount(c.tokens_total)}`}>{formatCount(c.tokens_in)} / {formatCount(c.tokens_out)}</Field>
        <Field label="Reasoning / total">{formatCount(c.tokens_reasoning)} / {formatCount(c.tokens_total)}</Field>
        <Field label="Cache (hit · cached · created)" title={cache(c)} wide>{cache(c)}</Field>
        <Field label="Latency">{formatMs(c.latency_ms)}</Field>
        <Field label="TTFT">{formatMs(c.ttft_ms)}</Field>
        <Field label="Tool calls">{formatCount(c.tool_calls)}</Field>
        <Field label="Started"><LocalTime seconds={c.started_at} pattern="yyyy-MM-dd HH:mm:ss.SSS" /></Field>
        <Field label="Completed"><LocalTime seconds={c.completed_at} pattern="yyyy-MM-dd HH:mm:ss.SSS" /></Field>
      </dl>
    </header>
  );
}
