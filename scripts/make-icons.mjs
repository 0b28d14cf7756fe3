// Writes the dashboard's icons into public/ from one drawing: a ring with a dot in it (a scope's reticle) in the
// accent colour, on a transparent ground. public/icon.svg is the drawing itself; public/favicon.ico holds it
// rasterized at 16 and 32 px (PNG entries, each pixel sampled 8×8 times), for browsers that ask for
// /favicon.ico whatever a page links. The outputs are committed; run `node scripts/make-icons.mjs` after
// changing the drawing. No dependency: PNG is zlib plus CRC-32, ICO a 6-byte header and a directory.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

const ROOT = path.resolve(import.meta.dirname, '..');
const VIEW = 32; // the drawing's units: a 32 × 32 box
const RING = { cx: 16, cy: 16, r: 11, width: 4 };
const DOT = { cx: 16, cy: 16, r: 4 };
const COLOUR = [0x2f, 0x6f, 0xdf]; // --accent of the light theme (app/globals.css)
const HEX = '#' + COLOUR.map((c) => c.toString(16).padStart(2, '0')).join('');

const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${VIEW} ${VIEW}">
<circle cx="${RING.cx}" cy="${RING.cy}" r="${RING.r}" fill="none" stroke="${HEX}" stroke-width="${RING.width}"/>
<circle cx="${DOT.cx}" cy="${DOT.cy}" r="${DOT.r}" fill="${HEX}"/>
</svg>
`;

/** Whether a point of the drawing (in its units) is inked. */
function inked(x, y) {
  const d = Math.hypot(x - RING.cx, y - RING.cy);
  return Math.abs(d - RING.r) <= RING.width / 2 || Math.hypot(x - DOT.cx, y - DOT.cy) <= DOT.r;
}

/** RGBA rows of the drawing at `size` px, coverage from 8 × 8 samples per pixel. */
function rasterize(size) {
  const n = 8;
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(size * 4);
    for (let px = 0; px < size; px++) {
      let hits = 0;
      for (let sy = 0; sy < n; sy++) for (let sx = 0; sx < n; sx++) if (inked(((px + (sx + 0.5) / n) * VIEW) / size, ((py + (sy + 0.5) / n) * VIEW) / size)) hits++;
      row.set([...COLOUR, Math.round((255 * hits) / (n * n))], px * 4);
    }
    rows.push(row);
  }
  return rows;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function png(size) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, no filter method, no interlace
  const scanlines = Buffer.concat(rasterize(size).map((row) => Buffer.concat([Buffer.from([0]), row])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(scanlines, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function ico(sizes) {
  const images = sizes.map(png);
  const header = Buffer.alloc(6);
  header.writeUInt16LE(1, 2); // type 1: icon
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map((image, i) => {
    const e = Buffer.alloc(16);
    e.writeUInt8(sizes[i] % 256, 0);
    e.writeUInt8(sizes[i] % 256, 1);
    e.writeUInt16LE(1, 4); // colour planes
    e.writeUInt16LE(32, 6); // bits per pixel
    e.writeUInt32LE(image.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += image.length;
    return e;
  });
  return Buffer.concat([header, ...entries, ...images]);
}

writeFileSync(path.join(ROOT, 'public', 'icon.svg'), svg);
writeFileSync(path.join(ROOT, 'public', 'favicon.ico'), ico([16, 32]));
console.log('wrote public/icon.svg and public/favicon.ico');
