// Draws the trajectory on a canvas (the layout of lib/view/trajectory-layout.ts, the chrome of the call timeline:
// components/timeline/draw-timeline.ts): a band per lane group with its invocation's name indented by depth in the
// gutter, model calls coloured by server, tool calls by status, an unmeasured tool call hatched between its calls,
// sandbox runs as thin spans (hatched when their time is not recorded), compaction markers across their band, and
// a dashed line from each spawning tool call down to its subagent's band.
import { canvasLabelFont, serverColor, type ThemeColors } from '@/components/charts/palette';
import { AXIS, barHeight, drawTimeAxis, hatch, rowTopOf, type TimelineGeometry } from '@/components/timeline/draw-timeline';
import { groupLabel } from '@/lib/view/trajectory-describe';
import { ItemKind, type TrajectoryLayout } from '@/lib/view/trajectory-layout';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { Timing } from '@/lib/view/trajectory-timing';

export const TRAJECTORY_GUTTER = 168;
const UNMEASURED = '#94a3b8';
const SANDBOX = '#a78bfa';
const TOOL_OK = '#14b8a6';

/** The fill of a tool call by status: failures red, interruptions amber, the rest by whether it completed. */
export function toolColor(status: string, colors: ThemeColors): string {
  if (status === 'failed' || status === 'timeout') return colors.bad;
  if (status === 'cancelled' || status === 'incomplete') return colors.warn;
  return status === 'completed' ? TOOL_OK : UNMEASURED;
}

export interface DrawTrajectoryArgs {
  ctx: CanvasRenderingContext2D;
  geo: TimelineGeometry;
  parts: TrajectoryParts;
  layout: TrajectoryLayout;
  /** Server index of each model call (for its colour) and the number of servers. */
  serverOf: Int32Array;
  servers: number;
  domain: [number, number];
  colors: ThemeColors;
}

function drawBands({ ctx, geo, layout: l, colors }: DrawTrajectoryArgs): void {
  ctx.font = canvasLabelFont();
  ctx.textBaseline = 'middle';
  l.bands.forEach((b, k) => {
    const top = rowTopOf(geo, b.firstRow);
    if (k % 2 === 1) {
      ctx.fillStyle = colors.panel;
      ctx.fillRect(0, top, geo.width, b.rows * geo.rowHeight);
    }
    const g = l.groups[b.group];
    const status = g.invocation >= 0 ? null : g.kind;
    ctx.fillStyle = g.kind === 'invocation' ? colors.fg : colors.muted;
    const indent = 6 + Math.min(g.depth, 6) * 10;
    const mark = l.descendants[b.group] > 0 || b.collapsed ? (b.collapsed ? '▸ ' : '▾ ') : '';
    let label = `${mark}${groupLabel(l, b.group)}${status === 'missing' ? ' (not in the record)' : ''}`;
    const room = geo.plotLeft - indent - 6;
    while (label.length > 2 && ctx.measureText(label).width > room) label = `${label.slice(0, -2)}…`;
    ctx.fillText(label, indent, top + Math.min(9, (b.rows * geo.rowHeight) / 2));
  });
}

function drawItems({ ctx, geo, parts, layout: l, serverOf, servers, domain, colors }: DrawTrajectoryArgs): void {
  const [lo, hi] = domain;
  const k = geo.plotWidth / (hi - lo);
  const px = (t: number) => geo.plotLeft + (t - lo) * k;
  const h = barHeight(geo);
  const grey = hatch(ctx, UNMEASURED);
  const violet = hatch(ctx, SANDBOX);
  const covered = new Float64Array(l.rows).fill(-Infinity);
  const failedCalls: number[] = [];
  for (const i of l.timeOrder) {
    const r = l.row[i];
    if (r < 0 || l.x1[i] < lo || l.x0[i] > hi || l.kind[i] === ItemKind.compaction) continue;
    const y = rowTopOf(geo, r) + 1;
    const left = Math.floor(px(l.x0[i]));
    const right = Math.max(left + 1, Math.round(px(l.x1[i])));
    const j = l.src[i];
    const t = l.timing[i];
    if (l.kind[i] === ItemKind.sandbox) {
      ctx.fillStyle = t === Timing.unpositioned ? violet : SANDBOX;
      ctx.fillRect(left, y + h / 3, right - left, Math.max(1, h / 3));
      continue;
    }
    if (t === Timing.between) {
      // not measured: hatched between its calls, at least a few pixels wide so it can be seen and hovered
      const w = Math.max(4, right - left);
      ctx.fillStyle = grey;
      ctx.fillRect(left, y, w, h);
      ctx.strokeStyle = UNMEASURED;
      ctx.lineWidth = 1;
      ctx.setLineDash([2, 2]);
      ctx.strokeRect(left + 0.5, y + 0.5, w - 1, h - 1);
      ctx.setLineDash([]);
      continue;
    }
    if (l.kind[i] === ItemKind.modelCall) {
      const m = parts.modelCalls[j].response_metadata;
      if (m.error_category !== null || (m.status_code !== null && m.status_code >= 400)) failedCalls.push(i);
      ctx.fillStyle = serverColor(serverOf[j], servers);
    } else ctx.fillStyle = toolColor(parts.toolCalls[j].status, colors);
    if (t === Timing.partial) {
      // one end measured: a tick at the known instant
      ctx.fillRect(left - 1, y, 3, h);
      continue;
    }
    const from = Math.max(left, covered[r]);
    if (right <= from) continue;
    ctx.fillRect(from, y, right - from, h);
    covered[r] = right;
  }
  ctx.strokeStyle = colors.bad;
  ctx.lineWidth = 2;
  for (const i of failedCalls) {
    const left = px(l.x0[i]);
    const w = Math.max(2, px(l.x1[i]) - left);
    ctx.strokeRect(left + 1, rowTopOf(geo, l.row[i]) + 2, Math.max(1, w - 2), Math.max(1, h - 2));
  }
}

function drawMarks({ ctx, geo, layout: l, domain, colors }: DrawTrajectoryArgs): void {
  const [lo, hi] = domain;
  const k = geo.plotWidth / (hi - lo);
  const px = (t: number) => geo.plotLeft + (t - lo) * k;
  // spawn lines: from the tool call that spawned a subagent down to the subagent's band
  ctx.strokeStyle = colors.muted;
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 3]);
  l.bands.forEach((b, k) => {
    const tool = l.groups[b.group].spawnedBy;
    const item = tool >= 0 ? l.base.toolCall + tool : -1;
    // none when the spawning call is not drawn, or drawn in this very band (its parent folded into it)
    if (item < 0 || l.row[item] < 0 || l.band[item] === k || l.x0[item] < lo || l.x0[item] > hi) return;
    const x = Math.round(px(l.x0[item])) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, rowTopOf(geo, l.row[item]) + geo.rowHeight);
    ctx.lineTo(x, rowTopOf(geo, b.firstRow) + 1);
    ctx.stroke();
  });
  ctx.setLineDash([]);
  // compactions: a line across their band (a bracket when only known to lie between two calls), a diamond on top
  for (let c = 0; c < l.compactionCalls.length; c++) {
    const i = l.base.compaction + c;
    if (l.row[i] < 0 || l.x1[i] < lo || l.x0[i] > hi) continue;
    const band = l.bands[l.band[i]];
    const top = rowTopOf(geo, band.firstRow);
    const bottom = top + band.rows * geo.rowHeight;
    const [a, b] = [px(l.x0[i]), px(l.x1[i])];
    ctx.strokeStyle = colors.warn;
    ctx.lineWidth = 2;
    if (l.timing[i] !== Timing.measured) ctx.setLineDash([3, 2]);
    ctx.beginPath();
    ctx.moveTo(a, top + 2);
    ctx.lineTo(a, bottom);
    if (b - a > 1) {
      ctx.moveTo(b, top + 2);
      ctx.lineTo(b, bottom);
      ctx.moveTo(a, top + 2);
      ctx.lineTo(b, top + 2);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    const mid = (a + b) / 2;
    ctx.fillStyle = colors.warn;
    ctx.beginPath();
    ctx.moveTo(mid, top - 3);
    ctx.lineTo(mid + 4, top + 2);
    ctx.lineTo(mid, top + 7);
    ctx.lineTo(mid - 4, top + 2);
    ctx.fill();
  }
}

/** Everything but hover and selection: drawn once per layout, zoom, size or theme change. */
export function drawTrajectory(args: DrawTrajectoryArgs): void {
  const { ctx, geo, domain, colors } = args;
  drawBands(args);
  drawTimeAxis(ctx, geo, domain, colors);
  ctx.save();
  ctx.beginPath();
  ctx.rect(geo.plotLeft, AXIS - 6, geo.plotWidth, geo.height);
  ctx.clip();
  drawItems(args);
  drawMarks(args);
  ctx.restore();
}
