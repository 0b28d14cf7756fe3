'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import Link from 'next/link';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { cx } from '@/components/ui/cn';
import { SearchBox } from '@/components/ui/search-box';
import { formatCount } from '@/lib/view/format';
import { describeItem } from '@/lib/view/trajectory-describe';
import type { TrajectoryLayout } from '@/lib/view/trajectory-layout';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';

const ROW_HEIGHT = 34;
const MAX_HEIGHT = 420;
const TONE = { bad: 'bad', warn: 'warn', good: 'good' } as const;

export interface TrajectoryOutlineProps {
  parts: TrajectoryParts;
  layout: TrajectoryLayout;
  selected: number;
  select: (item: number) => void;
  hrefOf: (item: number) => string | null;
  /** Reports the items shown, in order (j / k move within them). */
  onShown: (items: Int32Array) => void;
}

/** The timeline's items as a list in time order (virtualized), searchable; the selected item kept in view. */
export function TrajectoryOutline({ parts, layout, selected, select, hrefOf, onShown }: TrajectoryOutlineProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [query, setQuery] = useState('');
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    if (!q) return layout.timeOrder;
    return layout.timeOrder.filter((i) => {
      const d = describeItem(parts, layout, i);
      return [d.kind, d.title, d.group, d.status ?? '', d.when, ...d.facts.map((f) => f[1])].some((s) => s.toLowerCase().includes(q));
    });
  }, [parts, layout, query]);
  useEffect(() => {
    onShown(shown);
  }, [shown, onShown]);
  const virtual = useVirtualizer({ count: shown.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12, initialRect: { width: 480, height: 420 } });
  const position = useMemo(() => shown.indexOf(selected), [shown, selected]);
  useEffect(() => {
    if (position >= 0) virtual.scrollToIndex(position, { align: 'auto' });
  }, [position, virtual]);
  return (
    <div className="flex min-w-0 flex-col gap-2">
      <div className="flex items-center gap-2">
        <SearchBox value={query} onChange={(q) => setQuery(q ?? '')} debounceMs={200} className="w-full" placeholder="Search: tool name, id, status, invocation" label="Search the outline" />
        <span className="shrink-0 text-xs text-muted" aria-live="polite">
          {formatCount(shown.length)} of {formatCount(layout.timeOrder.length)}
        </span>
      </div>
      <div ref={scroller} role="list" aria-label="trajectory outline" className="overflow-auto rounded-md border border-line" style={{ height: Math.max(ROW_HEIGHT * 2, Math.min(MAX_HEIGHT, shown.length * ROW_HEIGHT + 2)) }}>
        <div className="relative" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const i = shown[v.index];
            const d = describeItem(parts, layout, i);
            const href = hrefOf(i);
            return (
              <div
                key={i}
                role="listitem"
                aria-current={i === selected ? 'true' : undefined}
                aria-label={`${d.kind} ${d.title}`}
                onClick={() => select(i)}
                className={cx('absolute inset-x-0 flex cursor-pointer items-center gap-2 border-b border-line/60 px-2 text-xs hover:bg-panel', i === selected && 'bg-accent/10 hover:bg-accent/10')}
                style={{ height: ROW_HEIGHT, transform: `translateY(${v.start}px)`, paddingLeft: 8 + Math.min(layout.groups[layout.group[i]]?.depth ?? 0, 6) * 10 }}
              >
                <span className="w-20 shrink-0 text-muted">{d.kind}</span>
                <span className="min-w-0 flex-1">
                  {href ? (
                    <Link href={href} prefetch={false} onClick={(e) => e.stopPropagation()} className="block truncate font-mono text-accent hover:underline" title={`Open ${d.kind} ${d.title}`}>
                      {d.title}
                    </Link>
                  ) : (
                    <span className="block truncate font-mono">{d.title}</span>
                  )}
                  <span className="block truncate text-muted" title={d.when}>
                    {d.group} · {d.when}
                  </span>
                </span>
                {d.status ? <Badge tone={d.tone ? TONE[d.tone] : 'neutral'}>{d.status}</Badge> : null}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
