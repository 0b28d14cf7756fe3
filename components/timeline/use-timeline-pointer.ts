'use client';

// Pointer handling of the timeline canvas: hover (hit-tested), click to open a call (with Ctrl/⌘ in a new
// tab), drag to zoom into a time range, Ctrl/⌘+wheel to zoom around the pointer, Shift+wheel (or a
// horizontal wheel) to pan, double-click to reset.
import { useEffect, useState, type PointerEvent, type RefObject } from 'react';
import { AXIS, timeScale, type TimelineGeometry } from './draw-timeline';
import { hitTest, type HitIndex, type PlacedItems } from './hit-test';

export interface PointerState {
  hover: { i: number; x: number; y: number } | null;
  selection: [number, number] | null;
}

export function useTimelinePointer(opts: {
  canvas: RefObject<HTMLCanvasElement | null>;
  geo: TimelineGeometry;
  layout: PlacedItems;
  hits: () => HitIndex;
  view: [number, number];
  full: [number, number];
  setDomain: (d: [number, number] | null) => void;
  open: (i: number, newTab: boolean) => void;
}) {
  const { canvas, geo, layout, hits, view, full, setDomain, open } = opts;
  const [state, setState] = useState<PointerState>({ hover: null, selection: null });
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const x = timeScale(geo, view);
  const clampPx = (px: number) => Math.min(geo.plotLeft + geo.plotWidth, Math.max(geo.plotLeft, px));
  const local = (e: { clientX: number; clientY: number }) => {
    const r = canvas.current!.getBoundingClientRect();
    return { px: e.clientX - r.left, py: e.clientY - r.top };
  };
  const zoomTo = (lo: number, hi: number) => {
    const span = Math.max(1, hi - lo);
    const mid = (lo + hi) / 2;
    setDomain(span >= full[1] - full[0] ? null : [mid - span / 2, mid + span / 2]);
  };

  const onPointerMove = (e: PointerEvent<HTMLCanvasElement>) => {
    const { px, py } = local(e);
    if (dragFrom !== null) return setState({ hover: null, selection: [dragFrom, clampPx(px)] });
    const row = Math.floor((py - AXIS) / geo.rowHeight);
    const i = px < geo.plotLeft ? -1 : hitTest(hits(), layout, x.invert(px), row, (4 * (view[1] - view[0])) / geo.plotWidth);
    setState({ hover: i >= 0 ? { i, x: px, y: py } : null, selection: null });
  };
  const onPointerDown = (e: PointerEvent<HTMLCanvasElement>) => {
    if (e.button !== 0) return;
    const { px } = local(e);
    if (px < geo.plotLeft) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    setDragFrom(clampPx(px));
  };
  const onPointerUp = (e: PointerEvent<HTMLCanvasElement>) => {
    const from = dragFrom;
    setDragFrom(null);
    setState((s) => ({ ...s, selection: null }));
    const { px } = local(e);
    if (from !== null && Math.abs(clampPx(px) - from) > 5) zoomTo(x.invert(Math.min(from, clampPx(px))), x.invert(Math.max(from, clampPx(px))));
    else if (state.hover) open(state.hover.i, e.ctrlKey || e.metaKey);
  };
  const onPointerLeave = () => {
    setDragFrom(null);
    setState({ hover: null, selection: null });
  };

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      const r = el.getBoundingClientRect();
      const at = x.invert(clampPx(e.clientX - r.left));
      const span = view[1] - view[0];
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault();
        const k = e.deltaY > 0 ? 1.25 : 0.8;
        zoomTo(at - (at - view[0]) * k, at + (view[1] - at) * k);
      } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        e.preventDefault();
        const shift = ((e.shiftKey ? e.deltaY : e.deltaX) / geo.plotWidth) * span;
        zoomTo(view[0] + shift, view[1] + shift);
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  });

  const zoomBy = (k: number) => {
    const mid = (view[0] + view[1]) / 2;
    zoomTo(mid - ((view[1] - view[0]) * k) / 2, mid + ((view[1] - view[0]) * k) / 2);
  };
  return { ...state, handlers: { onPointerMove, onPointerDown, onPointerUp, onPointerLeave, onDoubleClick: () => setDomain(null) }, zoomBy };
}
