'use client';

import { useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import { prepareCanvas, useElementWidth, useThemeColors } from '@/components/charts/use-canvas';
import { drawOverlay, rowTopOf, timelineGeometry } from '@/components/timeline/draw-timeline';
import { useTimelinePointer } from '@/components/timeline/use-timeline-pointer';
import { ItemKind, type TrajectoryLayout } from '@/lib/view/trajectory-layout';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { drawTrajectory, TRAJECTORY_GUTTER } from './draw-trajectory';
import { TrajectoryLegend } from './trajectory-legend';
import { TrajectoryTooltip } from './trajectory-tooltip';
import { ZoomControls } from '@/components/timeline/zoom-controls';
import { useTimelineDomain } from '@/components/timeline/use-timeline-domain';

export interface TrajectoryChartProps {
  parts: TrajectoryParts;
  layout: TrajectoryLayout;
  /** The selected item, or -1. */
  selected: number;
  /** Opens an item's page (a model call or a tool call); false when the item has none. */
  open: (item: number, newTab: boolean) => boolean;
  select: (item: number) => void;
  toggle: (group: number) => void;
}

/** The calls each overlay outlines besides the item itself: a compaction's before, after and performing calls. */
function linkedCalls(l: TrajectoryLayout, item: number): number[] {
  if (item < 0 || l.kind[item] !== ItemKind.compaction) return [];
  const c = l.compactionCalls[l.src[item]];
  return [c.before, c.after, ...c.performing].filter((i) => i >= 0).map((i) => l.base.modelCall + i);
}

/** The trajectory on a canvas: lane groups (click a name to fold it), hover, click to open, drag or wheel to zoom. */
export function TrajectoryChart({ parts, layout, selected, open, select, toggle }: TrajectoryChartProps) {
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const base = useRef<HTMLCanvasElement | null>(null);
  const width = useElementWidth(wrap);
  const colors = useThemeColors();
  const { serverOf, servers } = useMemo(() => {
    const names = new Map<string, number>();
    const of = Int32Array.from(parts.modelCalls, (c) => {
      const name = c.response_metadata.model_ref?.name;
      if (name === undefined) return -1;
      if (!names.has(name)) names.set(name, names.size);
      return names.get(name)!;
    });
    return { serverOf: of.map((g) => (g < 0 ? names.size : g)), servers: [...names.keys()] };
  }, [parts]);
  const { hits, domain, setDomain, full, view } = useTimelineDomain(layout);
  const geo = timelineGeometry(width, layout.rows, TRAJECTORY_GUTTER);
  const pointer = useTimelinePointer({
    canvas,
    geo,
    layout,
    hits,
    view,
    full,
    setDomain,
    open: (i, newTab) => {
      select(i);
      open(i, newTab);
    },
  });
  const hover = pointer.hover?.i ?? -1;
  const [lo, hi] = view;
  const [drawn, setDrawn] = useState(0);
  useEffect(() => {
    if (!colors || width === 0) return;
    const id = setTimeout(() => {
      base.current ??= document.createElement('canvas');
      const g = timelineGeometry(width, layout.rows, TRAJECTORY_GUTTER);
      const ctx = prepareCanvas(base.current, g.width, g.height);
      if (ctx) drawTrajectory({ ctx, geo: g, parts, layout, serverOf, servers: servers.length, domain: [lo, hi], colors });
      setDrawn((v) => v + 1);
    }, 0);
    return () => clearTimeout(id);
  }, [parts, layout, serverOf, servers, lo, hi, width, colors]);
  useEffect(() => {
    if (!canvas.current || !base.current || !colors || !drawn) return;
    const ctx = prepareCanvas(canvas.current, geo.width, geo.height);
    if (!ctx) return;
    ctx.drawImage(base.current, 0, 0, geo.width, geo.height);
    const accent = { ...colors, fg: colors.accent };
    for (const i of [selected, ...linkedCalls(layout, selected)]) if (i >= 0) drawOverlay(ctx, geo, layout, view, accent, i, null);
    for (const i of linkedCalls(layout, hover)) drawOverlay(ctx, geo, layout, view, colors, i, null);
    drawOverlay(ctx, geo, layout, view, colors, hover, pointer.selection);
  });

  // A click in the gutter folds or unfolds the band under it.
  const onPointerUp = (e: PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    if (e.clientX - r.left < geo.plotLeft) {
      const row = Math.floor((e.clientY - r.top - rowTopOf(geo, 0)) / geo.rowHeight);
      const band = layout.bands.find((b) => row >= b.firstRow && row < b.firstRow + b.rows);
      if (band && (layout.descendants[band.group] > 0 || band.collapsed)) toggle(band.group);
      return;
    }
    pointer.handlers.onPointerUp(e);
  };

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <TrajectoryLegend servers={servers} />
        <ZoomControls hint="click a name to fold it · drag to zoom · Ctrl+wheel zoom · Shift+wheel pan · double-click resets" zoomBy={pointer.zoomBy} zoomed={!!domain} reset={() => setDomain(null)} />
      </div>
      <div ref={wrap} className="relative w-full select-none" style={{ minHeight: geo.height }}>
        <canvas
          ref={canvas}
          role="img"
          aria-label={`Trajectory timeline: ${layout.bands.length} lane groups in ${layout.rows} rows; the outline lists the same items.`}
          className={hover >= 0 ? 'cursor-pointer' : 'cursor-crosshair'}
          {...pointer.handlers}
          onPointerUp={onPointerUp}
        />
        {pointer.hover ? <TrajectoryTooltip parts={parts} layout={layout} item={pointer.hover.i} x={pointer.hover.x} y={pointer.hover.y} width={width} /> : null}
      </div>
    </div>
  );
}
