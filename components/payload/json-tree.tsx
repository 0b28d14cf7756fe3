'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { parsePointer, resolvePointer } from '@/lib/view/json-pointer';
import { classifyString, flattenTree, revealPointer, searchTree, type TreeOptions } from '@/lib/view/json-tree';
import { JsonTreeRow, type RowActions } from './json-tree-row';
import { TreeSearch } from './tree-search';

const flip = (set: ReadonlySet<string>, key: string) => {
  const next = new Set(set);
  if (!next.delete(key)) next.add(key);
  return next;
};

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
  const pendingScroll = useRef<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const options: TreeOptions = { basePointer, defaultDepth: depth };
  const rows = useMemo(() => flattenTree(value, { basePointer, defaultDepth: depth, toggled, expandedStrings: strings }), [value, basePointer, depth, toggled, strings]);
  const deferredQuery = useDeferredValue(query);
  const found = useMemo(() => searchTree(value, deferredQuery, basePointer), [value, deferredQuery, basePointer]);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => 21, overscan: 10 });

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
  }, [target]); // only when the URL names a new node, not on every toggle
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

  const actions: RowActions = {
    toggle: (p) => setToggled((t) => flip(t, p)),
    toggleString: (p) => setStrings((s) => flip(s, p)),
    copyValue: (p) => {
      const r = resolvePointer(value, parsePointer(p.slice(basePointer.length)));
      return r.found ? (typeof r.value === 'string' ? r.value : JSON.stringify(r.value, null, 2)) : '';
    },
  };
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <TreeSearch query={query} setQuery={setQuery} at={match} count={found.pointers.length} more={found.more} step={step} />
        <span className="ml-auto text-xs text-muted">{rows.length.toLocaleString('en-US')} rows shown</span>
        <button type="button" onClick={() => { setDepth(1); setToggled(new Set()); }} className="rounded border border-line px-2 py-0.5 text-xs hover:bg-panel">collapse all</button>
        <button type="button" onClick={() => { setDepth(5); setToggled(new Set()); setStrings(new Set()); }} className="rounded border border-line px-2 py-0.5 text-xs hover:bg-panel">reset</button>
      </div>
      <div ref={scroller} role="tree" aria-label={label} className="max-h-[65vh] overflow-auto rounded-md border border-line" style={{ height: virtual.getTotalSize() + 2 }}>
        <div className="relative w-full" style={{ height: virtual.getTotalSize() }}>
          {virtual.getVirtualItems().map((v) => {
            const row = rows[v.index];
            return (
              <div key={row.pointer} data-index={v.index} ref={virtual.measureElement} role="treeitem" aria-level={row.depth + 1} aria-expanded={row.type === 'object' || row.type === 'array' ? row.open : undefined} className="absolute inset-x-0 top-0" style={{ transform: `translateY(${v.start}px)` }}>
                <JsonTreeRow row={row} expanded={strings.has(row.pointer)} highlighted={row.pointer === focus} actions={actions} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
