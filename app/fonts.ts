// The dashboard's two typefaces, Geist and Geist Mono (npm `geist`, SIL OFL 1.1), served from our own
// origin by next/font/local and preloaded with the page.
//
// Why not the system stack it had: on Linux every family name and every size/weight of a system font
// costs Chromium's renderer a synchronous round trip to the browser process (family match, then render
// style per strike), about 20 of them on a rollout page. On a loaded 2-core machine they added up to a
// 230–340 ms first layout, the page's longest task (bench:ui U1). A web font needs none of them
// (.callscope/prof/fontipc.mts counted 0 such calls, against 22 with the system stack).
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
