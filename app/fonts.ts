// The dashboard's two typefaces, Geist and Geist Mono (npm `geist`, SIL OFL 1.1), served from our own
// origin by next/font/local and preloaded with the page.
//
// Why not the system stack it had: on Linux every family name and every size/weight of a system font costs
// Chromium's renderer a synchronous round trip to the browser process (family match, then render style per
// strike): 22 such calls in a trace of a rollout page's load, 1–5 with these (for glyphs they lack). When
// the browser process is busy, the page's first layout waits on them: in traces 230–340 ms of a rollout
// page's first task were these calls, and bench:ui on a loaded 2-core machine saw first tasks of 115–271 ms
// with the system stack (U1: 4 of 10 loads over 200 ms) against a longest task of 149 ms with these.
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
