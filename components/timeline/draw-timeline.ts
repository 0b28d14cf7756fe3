// Draws the Gantt on a canvas: group bands and labels, a time axis, one bar per call coloured by model
// server, TTFT ticks, error outlines, hatched ends for truncated or incomplete streams, the hovered bar and
// the drag-to-zoom selection. Bars too thin to outline are filled with the mark's colour instead, so errors
// stay visible at any zoom.
import { scaleLinear } from 'd3-scale';
import { formatMs } from '@/lib/view/format';
import type { CallColumns } from '@/lib/api/call-schemas';
import { callMark, type TimelineLayout } from '@/lib/view/timeline';
import { canvasLabelFont, serverColor, type ThemeColors } from '@/components/charts/palette';
import type { PlacedItems } from './hit-test';

export const GUTTER = 120;
export const AXIS = 24;
const MAX_PLOT_HEIGHT = 480;

export interface TimelineGeometry {
  width: number;
  height: number;
  rowHeight: number;
  plotLeft: number;
  plotWidth: number;
}

export function timelineGeometry(width: number, rows: number, gutter = GUTTER): TimelineGeometry {
  const rowHeight = Math.max(2, Math.min(18, Math.floor(MAX_PLOT_HEIGHT / Math.max(1, rows))));
  return { width, height: AXIS + Math.max(1, rows) * rowHeight + 4, rowHeight, plotLeft: gutter, plotWidth: Math.max(10, width - gutter - 12) };
}

export const timeScale = (geo: TimelineGeometry, domain: [number, number]) => scaleLinear().domain(domain).range([geo.plotLeft, geo.plotLeft + geo.plotWidth]);

/** A diagonal-stripe fill in `color`: truncated streams here, unmeasured intervals in the trajectory. */
export function hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
  const tile = document.createElement('canvas');
  tile.width = tile.height = 6;
  const t = tile.getContext('2d');
  if (!t) return color;
  t.strokeStyle = color;
  t.lineWidth = 1.5;
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  return ctx.createPattern(tile, 'repeat') ?? color;
}

export interface DrawTimelineArgs {
  ctx: CanvasRenderingContext2D;
  geo: TimelineGeometry;
  layout: TimelineLayout;
  columns: CallColumns;
  groupOf: Int32Array;
  domain: [number, number];
  colors: ThemeColors;
}

export const rowTopOf = (geo: TimelineGeometry, r: number) => AXIS + r * geo.rowHeight;
export const barHeight = (geo: TimelineGeometry) => Math.max(1, geo.rowHeight - (geo.rowHeight > 4 ? 3 : 1));

/** The time axis: ticks labelled in time since the start, with grid lines down the plot. */
export function drawTimeAxis(ctx: CanvasRenderingContext2D, geo: TimelineGeometry, domain: [number, number], colors: ThemeColors): void {
  const x = timeScale(geo, domain);
  ctx.strokeStyle = colors.line;
  ctx.fillStyle = colors.muted;
  ctx.textAlign = 'center';
  let labelledTo = -Infinity; // a label that would overlap the one before it is left out (long spans have long labels)
  for (const t of x.ticks(Math.max(2, Math.floor(geo.plotWidth / 110)))) {
    const tx = Math.round(x(t)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(tx, AXIS - 4);
    ctx.lineTo(tx, geo.height);
    ctx.stroke();
    const label = t === 0 ? '0' : `+${formatMs(t)}`;
    const half = ctx.measureText(label).width / 2;
    const at = Math.min(Math.max(tx, geo.plotLeft + half), geo.width - half - 2);
    if (at - half < labelledTo + 8) continue;
    ctx.fillText(label, at, AXIS / 2 - 2);
    labelledTo = at + half;
  }
  ctx.textAlign = 'start';
}

/** Everything but the hover and selection: drawn once per layout, zoom, size or theme change. */
export function drawTimeline({ ctx, geo, layout, columns: c, groupOf, domain, colors }: DrawTimelineArgs): void {
  const rowTop = (r: number) => rowTopOf(geo, r);
  ctx.font = canvasLabelFont();
  ctx.textBaseline = 'middle';
  layout.groups.forEach((g, k) => {
    if (k % 2 === 1) {
      ctx.fillStyle = colors.panel;
      ctx.fillRect(0, rowTop(g.firstRow), geo.width, g.rows * geo.rowHeight);
    }
    ctx.fillStyle = colors.muted;
    const name = g.group < c.servers.length ? c.servers[g.group] : '(no server)';
    ctx.fillText(name.length > 17 ? `${name.slice(0, 16)}…` : name, 6, rowTop(g.firstRow) + Math.min(9, (g.rows * geo.rowHeight) / 2));
  });
  drawTimeAxis(ctx, geo, domain, colors);
  const [lo, hi] = domain;
  const k = geo.plotWidth / (hi - lo);
  const px = (t: number) => geo.plotLeft + (t - lo) * k; // the scale, inlined for the 30,000-bar loops
  const h = barHeight(geo);
  const warnHatch = hatch(ctx, colors.warn);
  ctx.save();
  ctx.beginPath();
  ctx.rect(geo.plotLeft, AXIS - 4, geo.plotWidth, geo.height); // zoomed bars stop at the plot's edges
  ctx.clip();
  const marks: number[] = [];
  // Whole pixels, and a bar whose pixels its row already covers is skipped: at 30,000 calls most are.
  const covered = new Float64Array(layout.rows).fill(-Infinity);
  let group = -1;
  for (const i of layout.order) {
    const r = layout.row[i];
    if (layout.x1[i] < lo || layout.x0[i] > hi) continue;
    if (groupOf[i] !== group) {
      group = groupOf[i];
      ctx.fillStyle = serverColor(group, c.servers.length);
    }
    if (c.error_category[i] >= 0 || c.ttft_ms[i] !== null) marks.push(i);
    const start = Math.floor(px(layout.x0[i]));
    const left = Math.max(start, covered[r]);
    const right = Math.max(start + 1, Math.round(px(layout.x1[i])));
    if (right <= left) continue;
    ctx.fillRect(left, rowTop(r) + 1, right - left, h);
    covered[r] = right;
  }
  for (const i of marks) {
    const left = px(layout.x0[i]);
    const w = Math.max(1, px(layout.x1[i]) - left);
    const y = rowTop(layout.row[i]) + 1;
    const mark = callMark(c.error_category[i] >= 0 ? c.strings[c.error_category[i]] : null);
    const ttft = c.ttft_ms[i];
    if (ttft !== null && w >= 6) {
      ctx.fillStyle = colors.fg;
      ctx.fillRect(Math.min(left + w - 1, px(layout.x0[i] + ttft)), y, 1.5, h);
    }
    if (mark === 'truncated') {
      const end = Math.min(w, Math.max(3, Math.min(10, w / 2)));
      ctx.fillStyle = w >= 6 ? warnHatch : colors.warn;
      ctx.fillRect(left + w - end, y, end, h);
    } else if (mark === 'error') {
      if (w >= 4 && h >= 6) {
        ctx.strokeStyle = colors.bad;
        ctx.lineWidth = 2;
        ctx.strokeRect(left + 1, y + 1, w - 2, h - 2);
      } else {
        ctx.fillStyle = colors.bad;
        ctx.fillRect(left, y, Math.max(1.5, w), h);
      }
    }
  }
  ctx.restore();
}

/** The hovered bar's outline and the drag-to-zoom selection, over a copy of the drawn chart. */
export function drawOverlay(
  ctx: CanvasRenderingContext2D,
  geo: TimelineGeometry,
  layout: PlacedItems,
  domain: [number, number],
  colors: ThemeColors,
  hover: number,
  selection: [number, number] | null,
): void {
  const x = timeScale(geo, domain);
  if (hover >= 0 && layout.row[hover] >= 0) {
    const px = x(layout.x0[hover]);
    ctx.save();
    ctx.beginPath();
    ctx.rect(geo.plotLeft - 2, AXIS - 4, geo.plotWidth + 4, geo.height);
    ctx.clip();
    ctx.strokeStyle = colors.fg;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(px - 1, rowTopOf(geo, layout.row[hover]), Math.max(1, x(layout.x1[hover]) - px) + 2, barHeight(geo) + 2);
    ctx.restore();
  }
  if (selection) {
    ctx.fillStyle = colors.accent;
    ctx.globalAlpha = 0.15;
    ctx.fillRect(Math.min(selection[0], selection[1]), AXIS, Math.abs(selection[1] - selection[0]), geo.height - AXIS);
    ctx.globalAlpha = 1;
  }
}
