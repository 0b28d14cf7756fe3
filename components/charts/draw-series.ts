// Draws a per-call chart on a canvas, for rollouts with more calls than an SVG chart handles: stacked bars
// (a null part is skipped, never drawn as 0) and dots, with a y axis and call-index ticks. Positions are
// evenly spaced by call order, like the SVG chart's category axis.
import { scaleLinear } from 'd3-scale';
import { formatAxis } from './series-tooltip';
import { seriesMax, type ChartSeries } from '@/lib/view/series';
import { canvasLabelFont, type ThemeColors } from './palette';

export const MARGIN = { left: 52, right: 8, top: 8, bottom: 20 };

export interface SeriesGeometry {
  width: number;
  height: number;
  plotWidth: number;
  plotHeight: number;
}

export const seriesGeometry = (width: number, height: number): SeriesGeometry => ({
  width,
  height,
  plotWidth: Math.max(10, width - MARGIN.left - MARGIN.right),
  plotHeight: Math.max(10, height - MARGIN.top - MARGIN.bottom),
});

/** Left edge and width of position i's column. */
export function column(geo: SeriesGeometry, n: number, i: number): [number, number] {
  const step = geo.plotWidth / Math.max(1, n);
  return [MARGIN.left + i * step, step];
}

export function positionAt(geo: SeriesGeometry, n: number, px: number): number {
  const i = Math.floor(((px - MARGIN.left) / geo.plotWidth) * n);
  return i >= 0 && i < n ? i : -1;
}

export function drawSeries(ctx: CanvasRenderingContext2D, geo: SeriesGeometry, s: ChartSeries, colorOf: (key: string) => string, colors: ThemeColors): void {
  const n = s.x.length;
  const axis = scaleLinear().domain([0, Math.max(1, seriesMax(s))]).nice().range([MARGIN.top + geo.plotHeight, MARGIN.top]);
  const yMax = axis.domain()[1];
  const y = (v: number) => MARGIN.top + geo.plotHeight * (1 - v / yMax); // the scale, inlined for the hot loops
  ctx.font = canvasLabelFont();
  ctx.fillStyle = colors.muted;
  ctx.strokeStyle = colors.line;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (const t of axis.ticks(4)) {
    const py = Math.round(y(t)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(MARGIN.left, py);
    ctx.lineTo(MARGIN.left + geo.plotWidth, py);
    ctx.stroke();
    ctx.fillText(formatAxis(s.unit, t), MARGIN.left - 4, py);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(geo.plotWidth / 80))));
  for (let i = 0; i < n; i += every) {
    const [left, w] = column(geo, n, i);
    ctx.fillText(String(s.x[i]), left + w / 2, MARGIN.top + geo.plotHeight + 4);
  }
  const bars = s.layers.filter((l) => l.kind === 'bar');
  const dots = s.layers.filter((l) => l.kind === 'dot');
  const bins = Math.max(1, Math.floor(geo.plotWidth));
  const step = geo.plotWidth / Math.max(1, n);
  // With more calls than pixels, each pixel column draws the tallest stack among its calls (whole pixels, no
  // anti-aliasing): the same envelope, at a few thousand rectangles instead of a hundred thousand.
  const perPixel = n > bins;
  const columns = perPixel ? bins : n;
  const pick = new Int32Array(columns);
  for (let b = 0; b < columns; b++) {
    if (!perPixel) {
      pick[b] = b;
      continue;
    }
    let best = -1;
    let bestTotal = -1;
    for (let i = Math.floor((b * n) / bins); i < Math.floor(((b + 1) * n) / bins); i++) {
      let total = -1;
      for (const l of bars) if (l.values[i] !== null) total = Math.max(total, 0) + (l.values[i] as number);
      if (total > bestTotal) {
        bestTotal = total;
        best = i;
      }
    }
    pick[b] = best;
  }
  const stack = new Float64Array(columns);
  for (const l of bars) {
    ctx.fillStyle = colorOf(l.key);
    for (let b = 0; b < columns; b++) {
      const i = pick[b];
      const v = i < 0 ? null : l.values[i];
      if (v === null || v === 0) continue;
      const left = perPixel ? MARGIN.left + b : Math.round(MARGIN.left + i * step);
      const width = perPixel ? 1 : Math.max(1, Math.round(MARGIN.left + (i + 1) * step) - left - (step > 3 ? 1 : 0));
      const top = Math.round(y(stack[b] + v));
      ctx.fillRect(left, top, width, Math.round(y(stack[b])) - top);
      stack[b] += v;
    }
  }
  // Dots: one square per distinct pixel, however many calls land on it.
  const seen = new Uint8Array((bins + 2) * (Math.ceil(geo.plotHeight) + MARGIN.top + 4));
  const rowWidth = bins + 2;
  const size = perPixel ? 2 : 3; // whole-pixel squares: no anti-aliasing on tens of thousands of dots
  for (const l of dots) {
    ctx.fillStyle = colorOf(l.key);
    seen.fill(0);
    for (let i = 0; i < n; i++) {
      const v = l.values[i];
      if (v === null) continue;
      const px = Math.floor(((i + 0.5) * geo.plotWidth) / n);
      const py = Math.round(y(v));
      const k = py * rowWidth + px;
      if (seen[k]) continue;
      seen[k] = 1;
      ctx.fillRect(MARGIN.left + px - 1, py - 1, size, size);
    }
  }
}
