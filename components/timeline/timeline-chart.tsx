'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { prepareCanvas, useElementWidth, useThemeColors } from '@/components/charts/use-canvas';
import type { CallColumns } from '@/lib/api/call-schemas';
import { callRef } from '@/lib/view/series';
import { callHref } from '@/components/calls/call-href';
import { drawOverlay, drawTimeline, timelineGeometry } from './draw-timeline';
import { timelineData } from './timeline-data';
import { TimelineLegend } from './timeline-legend';
import { TimelineTooltip } from './timeline-tooltip';
import { useTimelinePointer } from './use-timeline-pointer';
import { ZoomControls } from './zoom-controls';
import { useTimelineDomain } from './use-timeline-domain';

export interface TimelineChartProps {
  run: string;
  rollout: string;
  columns: CallColumns;
}

/** The rollout's calls as a Gantt chart on a canvas: rows packed by lib/view/timeline, hover, zoom, click. */
export function TimelineChart({ run, rollout, columns: c }: TimelineChartProps) {
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const base = useRef<HTMLCanvasElement | null>(null);
  const width = useElementWidth(wrap);
  const colors = useThemeColors();
  const router = useRouter();
  const { groupOf, layout } = timelineData(c);
  const { hits, domain, setDomain, full, view } = useTimelineDomain(layout);
  const geo = timelineGeometry(width, layout.rows);
  const open = (i: number, newTab: boolean) => {
    const href = callHref(run, rollout, callRef(c, i));
    if (newTab) window.open(href, '_blank', 'noopener');
    else router.push(href);
  };
  const pointer = useTimelinePointer({ canvas, geo, layout, hits, view, full, setDomain, open });
  const hover = pointer.hover?.i ?? -1;

  const [lo, hi] = view;
  const [drawn, setDrawn] = useState(0);
  // The bars are drawn into an offscreen canvas in a task of their own (not with the commit's other effects);
  // hovering then only copies that canvas and draws the outline.
  useEffect(() => {
    if (!colors || width === 0) return;
    const id = setTimeout(() => {
      base.current ??= document.createElement('canvas');
      const g = timelineGeometry(width, layout.rows);
      const ctx = prepareCanvas(base.current, g.width, g.height);
      if (ctx) drawTimeline({ ctx, geo: g, layout, columns: c, groupOf, domain: [lo, hi], colors });
      setDrawn((v) => v + 1);
    }, 0);
    return () => clearTimeout(id);
  }, [c, groupOf, layout, lo, hi, width, colors]);
  useEffect(() => {
    if (!canvas.current || !base.current || !colors || !drawn) return;
    const ctx = prepareCanvas(canvas.current, geo.width, geo.height);
    if (!ctx) return;
    ctx.drawImage(base.current, 0, 0, geo.width, geo.height);
    drawOverlay(ctx, geo, layout, view, colors, hover, pointer.selection);
  });

  const unnamed = groupOf.some((g) => g === c.servers.length);
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <TimelineLegend servers={c.servers} hasUnnamed={unnamed} />
        <ZoomControls hint="drag to zoom · Ctrl+wheel zoom · Shift+wheel pan · double-click resets" zoomBy={pointer.zoomBy} zoomed={!!domain} reset={() => setDomain(null)} />
      </div>
      <div ref={wrap} className="relative w-full select-none" style={{ minHeight: geo.height }}>
        <canvas
          ref={canvas}
          role="img"
          aria-label={`Timeline of ${c.n} calls in ${layout.rows} rows; the calls table below lists the same calls.`}
          className={hover >= 0 ? 'cursor-pointer' : 'cursor-crosshair'}
          {...pointer.handlers}
        />
        {pointer.hover ? <TimelineTooltip c={c} i={pointer.hover.i} x={pointer.hover.x} y={pointer.hover.y} width={width} /> : null}
      </div>
      {layout.unplaced > 0 ? <p className="text-xs text-muted">{layout.unplaced} calls have no start time and are not drawn (they are in the table).</p> : null}
    </div>
  );
}
