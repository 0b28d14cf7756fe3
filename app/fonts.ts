// The dashboard's two typefaces, Geist and Geist Mono (npm `geist`, SIL OFL 1.1), served from our own
// origin by next/font/local and preloaded with the page.
//
// Why not the system stack it had: on Linux every family name and every size/weight of a system font costs
// Chromium's renderer a synchronous round trip to the browser process (family match, then render style per
// strike): many such calls in a trace of a rollout page's load, none with these. When the browser process is
// busy, the page's first layout waits on them; in traces that was most of the rollout page's longest task
// (see the README's browser figures). A glyph these fonts lack costs the same lookup, so the pages' own text
// uses none (an e2e test checks: tests/e2e/browser/pages.test.ts).
//
// `display: 'block'`: text waits for the font (a 70 KB file from the same server, preloaded) instead of
// first laying out in a system fallback, which would pay those round trips anyway and shift the layout.
import localFont from 'next/font/local';

export const geistSans = localFont({
  src: '../node_modules/geist/dist/fonts/geist-sans/Geist-Variable.woff2',
  variable: '--font-geist-sans',
  weight: '100 900',
  display: 'block',
  adjustFontFallback: false,
  fallback: ['system-ui', 'sans-serif'],
});

export const geistMono = localFont({
  src: '../node_modules/geist/dist/fonts/geist-mono/GeistMono-Variable.woff2',
  variable: '--font-geist-mono',
  weight: '100 900',
  display: 'block',
  adjustFontFallback: false,
  fallback: ['ui-monospace', 'Menlo', 'Consolas', 'monospace'],
});
