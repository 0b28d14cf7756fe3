'use client';

import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { formatCount } from '@/lib/view/format';
import { parsePointer, resolvePointer } from '@/lib/view/json-pointer';
import { numberText, stringifyKeepingNumbers } from '@/lib/view/json-source';
import { classifyString, flattenTree, revealPointer, searchTree, type TreeOptions } from '@/lib/view/json-tree';
import { estimateRowHeight } from '@/lib/view/json-tree-layout';
import { JsonTreeRow, type RowActions } from './json-tree-row';
import { TreeSearch } from './tree-search';

const flip = (set: ReadonlySet<string>, key: string) => {
  const next = new Set(set);
  if (!next.delete(key)) next.add(key);
  return next;
};

/** Until its size is known (its first layout), the tree is assumed this wide and as tall as its max-height. */
const DEFAULT_WIDTH_PX = 1000;
const MAX_HEIGHT_VH = 65;
const initialRect = () => ({ width: DEFAULT_WIDTH_PX, height: typeof window === 'undefined' ? 600 : Math.round((window.innerHeight * MAX_HEIGHT_VH) / 100) });

/**
 * A row's size from the ResizeObserver entry when there is one; when the row is just mounting, the size
 * already known (or estimated) for it, instead of reading `offsetHeight`: that read forced a layout inside the
 * commit and re-rendered the tree before its first paint. The observer reports the real size after layout.
 */
function observedSize(element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize?.[0];
  if (box) return Math.round(box.blockSize);
  const index = instance.indexFromElement(element);
  return instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index);
}

/**
 * A JSON payload as a virtualized tree (only visible rows are built and mounted, so a 10 MB request opens as
 * fast as a small one). `target` is a pointer from the URL: its ancestors open, it scrolls into view and is
 * highlighted. Search steps through matching keys and values the same way.
 */
export function JsonTree({ value, basePointer, target, label }: { value: unknown; basePointer: string; target: string | null; label: string }) {
  const [depth, setDepth] = useState(5);
  const [toggled, setToggled] = useState<ReadonlySet<string>>(() => new Set());
  const [strings, setStrings] = useState<ReadonlySet<string>>(() => new Set());
  const [focus, setFocus] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [match, setMatch] = useState(0);
  // The rows' copy buttons (hidden until hover or focus) mount in the task after the first paint, which then
  // shows the payload sooner: they were half of the DOM that first render built.
  const [copyable, setCopyable] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setCopyable(true), 0)));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  const pendingScroll = useRef<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const options: TreeOptions = { basePointer, defaultDepth: depth };
  const rows = useMemo(() => flattenTree(value, { basePointer, defaultDepth: depth, toggled, expandedStrings: strings }), [value, basePointer, depth, toggled, strings]);
  const deferredQuery = useDeferredValue(query);
  const found = useMemo(() => searchTree(value, deferredQuery, basePointer), [value, deferredQuery, basePointer]);
  // With a size to start from, the first render mounts the rows that will show; the virtualizer's own
  // measurement of the scroller (in a layout effect) then changes nothing and costs no second render.
  const width = useRef(DEFAULT_WIDTH_PX);
  const [firstRect] = useState(initialRect);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    initialRect: firstRect,
    getItemKey: useCallback((i: number) => rows[i].pointer, [rows]),
    estimateSize: useCallback((i: number) => estimateRowHeight(rows[i], width.current), [rows]),
    measureElement: observedSize,
    overscan: 4,
  });
  width.current = virtual.scrollRect?.width || DEFAULT_WIDTH_PX;

  const reveal = (pointer: string, openString = false) => {
    const next = revealPointer(value, pointer, toggled, options);
    if (!next) return false;
    setToggled(next);
    const node = resolvePointer(value, parsePointer(pointer.slice(basePointer.length)));
    if (openString && node.found && typeof node.value === 'string' && classifyString(node.value)) setStrings((s) => new Set(s).add(pointer));
    setFocus(pointer);
    pendingScroll.current = pointer;
    return true;
  };
  useEffect(() => {
    if (target) reveal(target, true);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the URL names a new node, not on every toggle (`reveal` is new each render)
  }, [target]);
  useEffect(() => {
    if (!pendingScroll.current) return;
    // The rows that hold the target arrive a render after the reveal; wait for them.
    const k = rows.findIndex((r) => r.pointer === pendingScroll.current);
    if (k < 0) return;
    pendingScroll.current = null;
    virtual.scrollToIndex(k, { align: 'center' });
    scroller.current?.scrollIntoView({ block: 'nearest' });
  }, [rows, virtual]);
  useEffect(() => setMatch(0), [deferredQuery]);
  const step = (d: 1 | -1) => {
    const n = found.pointers.length;
    if (!n) return;
    const k = (match + d + n) % n;
    setMatch(k);
    reveal(found.pointers[k]);
  };

  const actions = useMemo<RowActions>(
    () => ({
      toggle: (p) => setToggled((t) => flip(t, p)),
      toggleString: (p) => setStrings((s) => flip(s, p)),
      copyValue: (p) => {
        const tokens = parsePointer(p.slice(basePointer.length));
        const r = resolvePointer(value, tokens);
        if (!r.found) return '';
        if (typeof r.value === 'string') return r.value;
        // A number as its payload wrote it: looked up in its holder.
        if (typeof r.value === 'number' && tokens.length) {
          const holder = resolvePointer(value, tokens.slice(0, -1));
          return numberText(holder.found ? holder.value : null, tokens[tokens.length - 1], r.value);
        }
        return stringifyKeepingNumbers(r.value);
      },
    }),
    [value, basePointer],
  );
  const items = virtual.getVirtualItems();
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <TreeSearch query={query} setQuery={setQuery} at={match} count={found.pointers.length} more={found.more} step={step} />
        <span className="ml-auto text-xs text-muted">{formatCount(rows.length)} rows shown</span>
        <button type="button" onClick={() => { setDepth(1); setToggled(new Set()); }} className="rounded border border-line px-2 py-0.5 text-xs hover:bg-panel">collapse all</button>
        <button type="button" onClick={() => { setDepth(5); setToggled(new Set()); setStrings(new Set()); }} className="rounded border border-line px-2 py-0.5 text-xs hover:bg-panel">reset</button>
      </div>
      <div ref={scroller} role="tree" aria-label={label} className="max-h-[65vh] overflow-auto rounded-md border border-line" style={{ height: virtual.getTotalSize() + 2 }}>
        <div className="relative w-full" style={{ height: virtual.getTotalSize() }}>
          {/* Rows flow one under the other from the first one's offset: an estimated height never overlaps them. */}
          <div className="absolute inset-x-0 top-0" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
            {items.map((v) => {
              const row = rows[v.index];
              return (
                <div key={row.pointer} data-index={v.index} ref={virtual.measureElement} role="treeitem" aria-level={row.depth + 1} aria-expanded={row.type === 'object' || row.type === 'array' ? row.open : undefined}>
                  <JsonTreeRow row={row} expanded={strings.has(row.pointer)} highlighted={row.pointer === focus} copyable={copyable} actions={actions} />
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
