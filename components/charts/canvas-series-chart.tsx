'use client';

import { useEffect, useRef, useState } from 'react';
import type { ChartSeries } from '@/lib/view/series';
import { column, drawSeries, MARGIN, positionAt, seriesGeometry } from './draw-series';
import { SeriesTooltipBody } from './series-tooltip';
import { prepareCanvas, useElementWidth, useThemeColors } from './use-canvas';

/** A per-call chart on a canvas (thousands of calls); the bars are drawn once, hovering only overlays. */
export function CanvasSeriesChart({ series, height, label, colorOf, onOpen }: { series: ChartSeries; height: number; label: string; colorOf: (key: string) => string; onOpen: (i: number, newTab: boolean) => void }) {
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const base = useRef<HTMLCanvasElement | null>(null);
  const width = useElementWidth(wrap);
  const colors = useThemeColors();
  const [hover, setHover] = useState<{ i: number; x: number; y: number } | null>(null);
  const geo = seriesGeometry(width, height);
  const n = series.x.length;

  const [drawn, setDrawn] = useState(0);
  // Drawn in a task of its own, so several charts do not add up to one long task.
  useEffect(() => {
    if (!colors || width === 0) return;
    const id = setTimeout(() => {
      base.current ??= document.createElement('canvas');
      const ctx = prepareCanvas(base.current, width, height);
      if (ctx) drawSeries(ctx, seriesGeometry(width, height), series, colorOf, colors);
      setDrawn((v) => v + 1);
    }, 0);
    return () => clearTimeout(id);
  }, [series, width, height, colors, colorOf]);
  useEffect(() => {
    if (!canvas.current || !base.current || !colors || !drawn) return;
    const ctx = prepareCanvas(canvas.current, width, height);
    if (!ctx) return;
    ctx.drawImage(base.current, 0, 0, width, height);
    if (hover) {
      const [left, step] = column(geo, n, hover.i);
      ctx.fillStyle = colors.fg;
      ctx.globalAlpha = 0.12;
      ctx.fillRect(left + step / 2 - Math.max(2, step / 2), MARGIN.top, Math.max(4, step), geo.plotHeight);
      ctx.globalAlpha = 1;
    }
  });

  const at = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { i: positionAt(geo, n, e.clientX - r.left), x: e.clientX - r.left, y: e.clientY - r.top };
  };
  return (
    <div ref={wrap} className="relative w-full" style={{ height }}>
      <canvas
        ref={canvas}
        role="img"
        aria-label={label}
        className={hover ? 'cursor-pointer' : undefined}
        onPointerMove={(e) => {
          const p = at(e);
          setHover(p.i >= 0 ? p : null);
        }}
        onPointerLeave={() => setHover(null)}
        onClick={(e) => {
          const p = at(e);
          if (p.i >= 0) onOpen(p.i, e.ctrlKey || e.metaKey);
        }}
      />
      {hover ? (
        <div className="pointer-events-none absolute z-10 w-56" style={{ left: hover.x + 240 > width ? hover.x - 236 : hover.x + 12, top: Math.max(0, hover.y - 40) }}>
          <SeriesTooltipBody series={series} i={hover.i} colorOf={colorOf} />
        </div>
      ) : null}
    </div>
  );
}
