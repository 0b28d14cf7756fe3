'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { useEffect, useRef } from 'react';
import { callHref, rolloutHref } from '@/components/calls/call-href';
import { Badge } from '@/components/ui/badge';
import { cx } from '@/components/ui/cn';
import type { Diff, DiffSideInfo } from '@/lib/api/diff-schemas';
import type { PairSummary } from '@/lib/rollouts/diff';
import { signatureText, signedCount, signedMs, STATE_TEXT } from '@/lib/view/diff';
import { formatCount, formatMs } from '@/lib/view/format';
import { toolsDiffer } from './tool-pairs';

const GRID = 'grid grid-cols-[52px_minmax(0,1fr)_150px_minmax(0,1fr)_112px] items-center gap-x-3 px-3';
const ROW_HEIGHT = 40;
const HEADER_HEIGHT = 30;
const TONE = { same: 'good', different: 'warn', unknown: 'neutral', a_only: 'bad', b_only: 'bad' } as const;

export const sideCallHref = (s: DiffSideInfo, ref: string) => (s.source === 'line' ? rolloutHref(s.run, s.rollout) : callHref(s.run, s.rollout, ref));

function Call({ side, p, which }: { side: DiffSideInfo; p: PairSummary; which: 'a' | 'b' }) {
  const call = which === 'a' ? p.a_call : p.b_call;
  const ref = which === 'a' ? p.a_ref : p.b_ref;
  if (call === null || ref === null) return <span role="cell" className="text-xs text-muted italic">no call</span>;
  const tokens = which === 'a' ? p.a_tokens : p.b_tokens;
  const latency = which === 'a' ? p.a_latency_ms : p.b_latency_ms;
  return (
    <span role="cell" className="min-w-0 text-xs leading-4">
      <span className="flex min-w-0 items-center gap-2">
        <Link href={sideCallHref(side, ref)} prefetch={false} onClick={(e) => e.stopPropagation()} className="font-mono text-accent hover:underline" aria-label={`${which} call ${call}`}>
          #{call}
        </Link>
        <span className="truncate text-muted">{p.model_server ?? '—'}</span>
        <span className="ml-auto shrink-0 tabular-nums">{formatCount(tokens)} tok · {formatMs(latency)}</span>
      </span>
      <span className="block truncate text-muted" title={which === 'a' ? p.a_signature ?? '' : p.b_signature ?? ''}>
        {signatureText(which === 'a' ? p.a_signature : p.b_signature)}
      </span>
    </span>
  );
}

/** The aligned calls in two columns, virtualized; the first divergence marked; a click opens a pair. */
export function PairList({ diff, selected, onSelect }: { diff: Diff; selected: number | null; onSelect: (pair: number) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const divergence = diff.first_divergence?.pair ?? null;
  // The rows start below the sticky header row, inside the same scroller: both offsets tell the virtualizer so.
  const virtual = useVirtualizer({
    count: diff.pairs.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    initialRect: { width: 1200, height: 420 },
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
  });
  const opened = useRef(false);
  useEffect(() => {
    if (selected === null) return;
    // On open, the selected pair (the divergence, unless the link names another) in the middle of the list.
    virtual.scrollToIndex(selected, { align: opened.current ? 'auto' : 'center' });
    opened.current = true;
  }, [selected, virtual]);
  return (
    <div ref={scroller} className="max-h-[420px] overflow-auto rounded-md border border-line" role="table" aria-label="aligned calls" aria-rowcount={diff.pairs.length + 1}>
      <div className="min-w-[900px]">
        <div role="row" className={cx(GRID, 'sticky top-0 z-10 border-b border-line bg-panel text-xs font-medium text-muted')} style={{ height: HEADER_HEIGHT }}>
          <span role="columnheader">pair</span>
          <span role="columnheader">a: {diff.a.run}/{diff.a.rollout}</span>
          <span role="columnheader">b − a</span>
          <span role="columnheader">b: {diff.b.run}/{diff.b.rollout}</span>
          <span role="columnheader">state</span>
        </div>
        <div className="relative" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const p = diff.pairs[v.index];
            const isDivergence = p.index === divergence;
            return (
              <div
                key={p.index}
                role="row"
                aria-rowindex={v.index + 2}
                aria-selected={p.index === selected}
                aria-label={`pair ${p.index}${isDivergence ? ', first divergence' : ''}`}
                data-pair={p.index}
                onClick={() => onSelect(p.index)}
                className={cx(
                  GRID,
                  'absolute inset-x-0 cursor-pointer border-b border-line/60 hover:bg-panel',
                  p.index === selected && 'bg-accent/10 hover:bg-accent/10',
                  isDivergence && 'shadow-[inset_4px_0_0_var(--color-warn)]',
                )}
                style={{ height: ROW_HEIGHT, transform: `translateY(${v.start - HEADER_HEIGHT}px)` }}
              >
                <span role="cell" className="font-mono text-xs">{p.index}</span>
                <Call side={diff.a} p={p} which="a" />
                <span role="cell" className="text-xs tabular-nums">
                  <span className="block" aria-label="tokens delta">{signedCount(p.tokens_delta)} tok</span>
                  <span className="block text-muted" aria-label="latency delta">{signedMs(p.latency_delta)}</span>
                </span>
                <Call side={diff.b} p={p} which="b" />
                <span role="cell" className="flex flex-col items-start gap-0.5">
                  <Badge tone={TONE[p.state]}>{STATE_TEXT[p.state]}</Badge>
                  {isDivergence ? <Badge tone="warn">first divergence</Badge> : toolsDiffer(p.tools) ? <Badge tone="warn">tools differ</Badge> : null}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
