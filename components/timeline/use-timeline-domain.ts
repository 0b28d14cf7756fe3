'use client';

import { useMemo, useRef, useState } from 'react';
import { buildHitIndex, type HitIndex, type PlacedItems } from './hit-test';

/**
 * The zoom state of a canvas timeline (the call timeline's and the trajectory's): the full extent padded by 1%, the
 * zoomed domain, the shown view, and the hover index, built on the first hover rather than while the page loads.
 */
export function useTimelineDomain(layout: PlacedItems & { extent: [number, number] | null }) {
  const hitCache = useRef<{ layout: PlacedItems; index: HitIndex } | null>(null);
  const hits = () => {
    if (hitCache.current?.layout !== layout) hitCache.current = { layout, index: buildHitIndex(layout) };
    return hitCache.current.index;
  };
  const [domain, setDomain] = useState<[number, number] | null>(null);
  const full: [number, number] = useMemo(() => {
    const [lo, hi] = layout.extent ?? [0, 1];
    const pad = Math.max(1, (hi - lo) * 0.01);
    return [lo - pad, hi + pad];
  }, [layout]);
  return { hits, domain, setDomain, full, view: domain ?? full };
}
