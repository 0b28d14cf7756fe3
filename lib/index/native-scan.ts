// The native capture-line scan (native/scan.cc), built by `npm install` (scripts/build-native.mjs): a capture
// line to the values the index stores for it, in one pass in C++, for the lines it reads exactly as the
// lossless path does; for any other line it declines and the caller runs the JavaScript scan (scan.ts), which
// stays the reference (tests/unit/index/scan-fast.property.test.ts holds the two equal). Without the addon
// (not built, or CALLSCOPE_NATIVE_SCAN=0), `nativeCallValues` always declines.
import { isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripAscii } from '../capture/bytes';

interface Addon {
  setOutput(out: Float64Array): void;
  scanCapture(line: Uint8Array): boolean;
  slots: number;
}

// The output slots of scan.cc (enum Slot).
const S = {
  REQ_START: 0, REQ_END: 1, RESP_START: 2, RESP_END: 3,
  CALL_ID: 4, REF_NAME: 6, MODEL: 8, DIALECT: 10, STATUS: 12, FINISH: 14, ERROR_CATEGORY: 16,
  STATUS_CODE: 18, STARTED_AT: 19, COMPLETED_AT: 20, TOKENS_IN: 21, TOKENS_OUT: 22, TOKENS_REASONING: 23, TOKENS_TOTAL: 24,
  CACHED_TOKENS: 25, CACHE_CREATION_TOKENS: 26, CACHE_HIT: 27, LATENCY_MS: 28, TTFT_MS: 29, TOOL_CALLS: 30, SLOTS: 31,
} as const;

const ADDON_PATH = path.join('native', 'build', 'Release', 'callscope_scan.node');

/** The built addon, found by walking up from this module (also from inside Next's or esbuild's bundles). */
export function nativeAddonPath(): string | null {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, ADDON_PATH);
    if (existsSync(file)) return file;
    if (path.dirname(dir) === dir) return null;
  }
}

let addon: Addon | null | undefined;
let out: Float64Array;
let loadError: string | null = null;

function load(): Addon | null {
  if (addon !== undefined) return addon;
  addon = null;
  if (process.env.CALLSCOPE_NATIVE_SCAN === '0') {
    loadError = 'disabled by CALLSCOPE_NATIVE_SCAN=0';
    return null;
  }
  const file = nativeAddonPath();
  if (!file) {
    loadError = `${ADDON_PATH} is not built (npm install builds it; see scripts/build-native.mjs)`;
    return null;
  }
  try {
    const mod = { exports: {} as Addon };
    // process.dlopen rather than require: bundlers leave it alone, and the path is found at run time.
    process.dlopen(mod, file);
    if (mod.exports.slots !== S.SLOTS) throw new Error(`slot count ${mod.exports.slots}, expected ${S.SLOTS}`);
    out = new Float64Array(S.SLOTS);
    mod.exports.setOutput(out);
    addon = mod.exports;
  } catch (err) {
    loadError = `${file}: ${(err as Error).message}`;
  }
  return addon;
}

let off = false;

/** Turns the native scan off (every line to the JavaScript scan) or back on; for tests that compare the two. */
export function setNativeScan(on: boolean): void {
  off = !on;
}

/** Whether the native scan is in use, and why not. */
export function nativeScanStatus(): { loaded: boolean; error: string | null } {
  return { loaded: load() !== null, error: loadError };
}

/**
 * The `callValues` row of one capture line (rollout pk and file id left 0, as `readCaptureFile` leaves them),
 * or null when the native scan is not in use or declines the line (then scan.ts decides, blank lines included).
 */
export function nativeCallValues(line: Buffer, lineOffset: number, callIndex: number): unknown[] | null {
  const a = addon === undefined ? load() : addon;
  if (!a || off) return null;
  const stripped = stripAscii(line);
  if (stripped.length === 0 || !isUtf8(stripped) || !a.scanCapture(stripped)) return null;
  const shift = stripped.byteOffset - line.byteOffset;
  const o = out;
  const b = stripped as SliceBuffer;
  const hasRequest = o[S.REQ_START] >= 0;
  const hasResponse = o[S.RESP_START] >= 0;
  return [
    0, callIndex, text(b, o, S.CALL_ID), 0, lineOffset, line.length,
    hasRequest ? o[S.REQ_START] + shift : null, hasRequest ? o[S.REQ_END] - o[S.REQ_START] : null,
    hasResponse ? o[S.RESP_START] + shift : null, hasResponse ? o[S.RESP_END] - o[S.RESP_START] : null,
    text(b, o, S.REF_NAME), text(b, o, S.MODEL), text(b, o, S.DIALECT), numeric(o, S.STATUS_CODE), text(b, o, S.STATUS),
    text(b, o, S.FINISH), text(b, o, S.ERROR_CATEGORY), numeric(o, S.STARTED_AT), numeric(o, S.COMPLETED_AT), numeric(o, S.TOKENS_IN),
    numeric(o, S.TOKENS_OUT), numeric(o, S.TOKENS_REASONING), numeric(o, S.TOKENS_TOTAL), numeric(o, S.CACHED_TOKENS),
    numeric(o, S.CACHE_CREATION_TOKENS), numeric(o, S.CACHE_HIT), numeric(o, S.LATENCY_MS), numeric(o, S.TTFT_MS), o[S.TOOL_CALLS],
  ];
}

// Node's unchecked slice decoder (Buffer#toString without its argument handling).
type SliceBuffer = Buffer & { utf8Slice(start: number, end: number): string };

/** The string whose span is at `slot` (its bytes are its value: the scan declines escapes), or null. */
function text(b: SliceBuffer, o: Float64Array, slot: number): string | null {
  return o[slot] < 0 ? null : b.utf8Slice(o[slot], o[slot + 1]);
}

function numeric(o: Float64Array, slot: number): number | null {
  const v = o[slot];
  return v === v ? v : null; // NaN: null
}
