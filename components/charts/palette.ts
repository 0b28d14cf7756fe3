// Colours of the rollout views. Model servers get fixed hues in order of first appearance, the same in the
// timeline and every chart; token and latency layers have their own. Theme colours (text, lines, errors)
// are read from the CSS variables of app/globals.css so canvases follow dark mode.

const SERVER_COLORS = ['#3b82f6', '#a855f7', '#14b8a6', '#f59e0b', '#ec4899', '#84cc16', '#6366f1', '#06b6d4'];
const NO_SERVER = '#94a3b8';

/** The colour of server group g; `count` is the number of named servers (group `count` has none). */
export function serverColor(g: number, count: number): string {
  return g >= count ? NO_SERVER : SERVER_COLORS[g % SERVER_COLORS.length];
}

export const LAYER_COLORS: Record<string, string> = {
  in_uncached: '#3b82f6',
  in_cached: '#93c5fd',
  out: '#10b981',
  reasoning: '#a855f7',
  latency: '#64748b',
  ttft: '#f59e0b',
};

export interface ThemeColors {
  fg: string;
  muted: string;
  line: string;
  bg: string;
  panel: string;
  bad: string;
  warn: string;
  accent: string;
}

export function readThemeColors(): ThemeColors {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--fg', '#1b1f24'),
    muted: v('--muted', '#5b6470'),
    line: v('--line', '#dde2e8'),
    bg: v('--bg', '#ffffff'),
    panel: v('--panel', '#f5f7fa'),
    bad: v('--bad', '#c4320a'),
    warn: v('--warn', '#b54708'),
    accent: v('--accent', '#2f6fdf'),
  };
}

let labelFont: string | undefined;

/**
 * The 11 px font of canvas labels: the page's own typeface (app/fonts.ts), whose family name next/font
 * generates, so it is read from the CSS variable. A system family here would cost the renderer the font
 * lookups the web font avoids.
 */
export function canvasLabelFont(): string {
  labelFont ??= `11px ${getComputedStyle(document.documentElement).getPropertyValue('--font-geist-sans').trim() || 'sans-serif'}`;
  return labelFont;
}

/** The colour of a chart layer: per-server layers like the timeline, the others by their key. */
export function layerColor(layer: { key: string; group?: number }, serverCount: number): string {
  return layer.group !== undefined ? serverColor(layer.group, serverCount) : (LAYER_COLORS[layer.key] ?? '#64748b');
}
