'use client';

// Draws a scatter layout on <canvas> (tens of thousands of points) and finds the point under the pointer
// with a Flatbush index. Colors come from the theme's CSS variables and are re-read when the theme changes.
import Flatbush from 'flatbush';
import { useEffect, useMemo, useRef, useState } from 'react';
import { canvasLabelFont } from '@/components/charts/palette';
import { type ScatterLayout } from '@/lib/view/compare';

const HOVER_PX = 8;

function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function draw(canvas: HTMLCanvasElement, layout: ScatterLayout, width: number, height: number, colors: string[], fmtX: (v: number) => string) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const { plot } = layout;
  ctx.font = canvasLabelFont();
  ctx.strokeStyle = themeColor('--line');
  ctx.fillStyle = themeColor('--muted');
  ctx.lineWidth = 1;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of layout.xTicks) {
    ctx.beginPath();
    ctx.moveTo(t.px, plot.top);
    ctx.lineTo(t.px, plot.bottom);
    ctx.stroke();
    ctx.fillText(fmtX(t.label), t.px, plot.bottom + 4);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of layout.yTicks) {
    ctx.beginPath();
    ctx.moveTo(plot.left, t.px);
    ctx.lineTo(plot.right, t.px);
    ctx.stroke();
    ctx.fillText(String(t.label), plot.left - 6, t.px);
  }
  ctx.textAlign = 'center';
  ctx.fillText('tokens total per rollout', (plot.left + plot.right) / 2, height - 8);
  ctx.globalAlpha = 0.6;
  for (let i = 0; i < layout.keys.length; i++) {
    ctx.fillStyle = colors[layout.run[i]] ?? '#888';
    ctx.beginPath();
    ctx.arc(layout.xs[i], layout.ys[i], 2.5, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
}

export function ScatterCanvas({ layout, width, height, colors, fmtX, onHover, onPick }: {
  layout: ScatterLayout;
  width: number;
  height: number;
  colors: string[];
  fmtX: (v: number) => string;
  onHover: (index: number | null) => void;
  onPick: (index: number) => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [theme, setTheme] = useState(0);
  const index = useMemo(() => {
    if (!layout.keys.length) return null;
    const fb = new Flatbush(layout.keys.length);
    for (let i = 0; i < layout.keys.length; i++) fb.add(layout.xs[i], layout.ys[i], layout.xs[i], layout.ys[i]);
    fb.finish();
    return fb;
  }, [layout]);

  useEffect(() => {
    const observer = new MutationObserver(() => setTheme((t) => t + 1));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    if (canvas.current) draw(canvas.current, layout, width, height, colors, fmtX);
  }, [layout, width, height, colors, fmtX, theme]);

  const nearest = (e: React.MouseEvent<HTMLCanvasElement>): number | null => {
    if (!index) return null;
    const rect = e.currentTarget.getBoundingClientRect();
    const found = index.neighbors(e.clientX - rect.left, e.clientY - rect.top, 1, HOVER_PX);
    return found.length ? found[0] : null;
  };

  return (
    <canvas
      ref={canvas}
      style={{ width, height }}
      className="block cursor-crosshair"
      role="img"
      aria-label={`Reward against tokens per rollout, ${layout.keys.length} points`}
      onMouseMove={(e) => onHover(nearest(e))}
      onMouseLeave={() => onHover(null)}
      onClick={(e) => {
        const i = nearest(e);
        if (i !== null) onPick(i);
      }}
    />
  );
}
