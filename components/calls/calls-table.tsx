'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { useMemo, useRef, useState } from 'react';
import { Checkbox } from '@/components/ui/checkbox';
import { cx } from '@/components/ui/cn';
import { formatCount, formatMs, utcIso } from '@/lib/view/format';
import type { CallColumns } from '@/lib/api/call-schemas';
import { callRef, stringAt } from '@/lib/view/series';
import { callHref } from './call-href';

const GRID = 'grid grid-cols-[56px_84px_120px_minmax(150px,1fr)_80px_52px_124px_84px_128px_104px_84px_76px] gap-x-3 px-3';
const HEADERS = ['#', 'time', 'server', 'model', 'dialect', 'status', 'error', 'finish', 'tokens in / out', 'cache', 'latency', 'TTFT'];
const ROW_HEIGHT = 30;

function cacheText(c: CallColumns, i: number): string {
  const hit = c.cache_hit[i];
  if (hit === null) return '—';
  return hit ? `hit · ${formatCount(c.cached_tokens[i])}` : 'miss';
}

export interface CallsTableProps {
  run: string;
  rollout: string;
  columns: CallColumns;
}

/** Every call of the rollout, virtualized (30,000 rows scroll like 30); each row links to its call. */
export function CallsTable({ run, rollout, columns: c }: CallsTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [errorsOnly, setErrorsOnly] = useState(false);
  const errors = useMemo(() => c.error_category.reduce((k, e) => k + (e >= 0 ? 1 : 0), 0), [c]);
  const rows = useMemo(() => Array.from({ length: c.n }, (_, i) => i).filter((i) => !errorsOnly || c.error_category[i] >= 0), [c, errorsOnly]);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    initialRect: { width: 1200, height: 480 },
  });
  return (
    <div className="space-y-2">
      <label className="flex w-fit items-center gap-2 text-sm text-muted">
        <Checkbox checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} disabled={errors === 0} />
        errors only ({formatCount(errors)} of {formatCount(c.n)})
      </label>
      <div ref={scroller} className="max-h-[480px] overflow-auto rounded-md border border-line" role="table" aria-label="calls" aria-rowcount={rows.length + 1}>
        <div className="min-w-[1160px]">
          <div role="row" className={cx(GRID, 'sticky top-0 z-10 border-b border-line bg-panel py-1.5 text-xs font-medium text-muted')}>
            {HEADERS.map((h) => (
              <span role="columnheader" key={h} className={h === '#' || h.startsWith('tokens') || h === 'latency' || h === 'TTFT' ? 'text-right' : undefined}>
                {h}
              </span>
            ))}
          </div>
          <div className="relative" style={{ height: virtual.getTotalSize() }}>
            {virtual.getVirtualItems().map((v) => {
              const i = rows[v.index];
              const error = stringAt(c, c.error_category[i]);
              const start = c.start_ms[i];
              return (
                <Link
                  key={i}
                  role="row"
                  aria-rowindex={v.index + 2}
                  href={callHref(run, rollout, callRef(c, i))}
                  prefetch={false}
                  className={cx(GRID, 'absolute inset-x-0 items-center border-b border-line/60 text-sm text-fg no-underline hover:bg-panel', error && 'bg-bad/5')}
                  style={{ height: ROW_HEIGHT, transform: `translateY(${v.start}px)` }}
                >
                  <span role="cell" className="text-right font-mono text-accent">{c.call_index[i]}</span>
                  <span role="cell" className="tabular-nums" title={start === null || c.t0 === null ? undefined : utcIso(c.t0 + start / 1000)}>
                    {start === null ? '—' : `+${formatMs(start)}`}
                  </span>
                  <span role="cell" className="truncate">{stringAt(c, c.model_server[i]) ?? '—'}</span>
                  <span role="cell" className="truncate font-mono text-xs" title={stringAt(c, c.model[i]) ?? undefined}>{stringAt(c, c.model[i]) ?? '—'}</span>
                  <span role="cell" className="text-muted">{stringAt(c, c.dialect[i]) ?? '—'}</span>
                  <span role="cell" className={cx('tabular-nums', (c.status_code[i] ?? 0) >= 400 && 'text-bad')}>{c.status_code[i] ?? '—'}</span>
                  <span role="cell" className={cx('truncate', error ? 'text-bad' : 'text-muted')}>{error ?? ''}</span>
                  <span role="cell" className="truncate text-muted">{stringAt(c, c.finish_reason[i]) ?? '—'}</span>
                  <span role="cell" className="text-right tabular-nums" title={`reasoning: ${formatCount(c.tokens_reasoning[i])} · total: ${formatCount(c.tokens_total[i])}`}>
                    {formatCount(c.tokens_in[i])} / {formatCount(c.tokens_out[i])}
                  </span>
                  <span role="cell" className="truncate text-muted" title={`creation: ${formatCount(c.cache_creation_tokens[i])}`}>{cacheText(c, i)}</span>
                  <span role="cell" className="text-right tabular-nums">{formatMs(c.latency_ms[i])}</span>
                  <span role="cell" className="text-right tabular-nums">{formatMs(c.ttft_ms[i])}</span>
                </Link>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
