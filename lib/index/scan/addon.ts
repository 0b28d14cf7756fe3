// The native addon (native/scan.cc), built by `npm install` (scripts/build-native.mjs), loaded once per thread.
// Its functions are fast paths of JavaScript ones that stay the reference: without the addon (not built, or
// CALLSCOPE_NATIVE_SCAN=0) every caller runs the JavaScript path.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_SLOT_NAMES, type NativeSlot } from '../call-row';

export interface NativeAddon {
  /** Where scanCapture writes (a Float64Array of `slots` values), held for the life of the thread. */
  setOutput(out: Float64Array): void;
  /** One stripped, valid-UTF-8 capture line: true with the output filled, false when declined. */
  scanCapture(line: Uint8Array): boolean;
  /** skippedContainerEnd (lib/index/scan/fast-scan.ts) of the container opening at `i`: its end, or -1. */
  skipContainer(bytes: Uint8Array, i: number, depth: number): number;
  /** An id for scanShallow: the count key ("parent.key" or "") on the first line, then one `key\tkept,keys` per line. */
  shallowConfig(spec: string): number;
  /** scanShallowFast's reduced text into `dst` (at least the line's length): its length (meta[0]: counted, -1 null), or -1. */
  scanShallow(line: Uint8Array, config: number, dst: Uint8Array, meta: Float64Array): number;
  /** The names of the output slots in the order scanCapture writes them (scan.cc's CALLSCOPE_SLOTS). */
  slotNames: string[];
  /**
   * A capture file never read, read whole (lib/index/ingest/native-read.ts): a status (0 absent, 1 unopenable, 2 declined),
   * or its three tag lists with `meta` filled and its calls appended to the thread's columns.
   */
  readCaptureFile(path: string, meta: Float64Array): number | (string | null)[];
  /** The calls appended since the last take: their count and their columns (encodeColumns' layout). */
  takeCalls(): [number, ArrayBuffer];
  /** The calls appended since the last take, dropped. */
  dropCalls(): void;
  /** readCaptureFile's columns, in order, as `name:kind` (I64, NI64, NF64, STR). */
  callColumns: string[];
  /** The length of readCaptureFile's meta. */
  metaCount: number;
  version: number;
}

/** The addon version this code expects (scan.cc's `version`): a build from older sources is not used. */
export const NATIVE_VERSION = 3;

/**
 * The output slots scanCapture writes, in order, as this code reads them (by name: NATIVE_SLOT): derived from the
 * call row's columns (lib/index/call-row.ts). A string's span is NAME and NAME_END; the slots from STATUS_CODE on
 * are numbers. scan.cc declares the same list (CALLSCOPE_SLOTS) and exports it: a build whose list differs in any
 * name or place is not used.
 */
export { NATIVE_SLOT_NAMES, type NativeSlot };
export const NATIVE_SLOTS = NATIVE_SLOT_NAMES.length;
/** Each slot's index by name, resolved once here (the scan's hot path reads plain numbers). */
export const NATIVE_SLOT = Object.fromEntries(NATIVE_SLOT_NAMES.map((name, i) => [name, i])) as Readonly<Record<NativeSlot, number>>;

/** Why these exports cannot be used (a build from other sources: `npm run build:native`), or null. */
export function addonProblem(exports: { version?: unknown; slotNames?: unknown }): string | null {
  if (exports.version !== NATIVE_VERSION) {
    return `built from other sources (version ${exports.version ?? 'none'}, expected ${NATIVE_VERSION}): run npm run build:native`;
  }
  const names = Array.isArray(exports.slotNames) ? (exports.slotNames as unknown[]) : [];
  const at = NATIVE_SLOT_NAMES.findIndex((name, i) => names[i] !== name);
  if (at >= 0 || names.length !== NATIVE_SLOTS) {
    const slot = at >= 0 ? at : NATIVE_SLOTS;
    return `built with another slot layout (slot ${slot} is ${String(names[slot] ?? 'missing')}, expected ${NATIVE_SLOT_NAMES[slot] ?? 'none'}): run npm run build:native`;
  }
  return null;
}

const ADDON_PATH = path.join('native', 'build', 'Release', 'callscope_scan.node');

/** The built addon, found by walking up from this module (also from inside Next's or esbuild's bundles). */
export function nativeAddonPath(): string | null {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, ADDON_PATH);
    if (existsSync(file)) return file;
    if (path.dirname(dir) === dir) return null;
  }
}

let addon: NativeAddon | null | undefined;
let loadError: string | null = null;
let off = false;

function load(): NativeAddon | null {
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
    const mod = { exports: {} as NativeAddon };
    // process.dlopen rather than require: bundlers leave it alone, and the path is found at run time.
    process.dlopen(mod, file);
    const problem = addonProblem(mod.exports);
    if (problem) loadError = `${file}: ${problem}`;
    else addon = mod.exports;
  } catch (err) {
    loadError = `${file}: ${(err as Error).message}`;
  }
  return addon;
}

/** The addon, or null when it is not in use in this thread. */
export function nativeAddon(): NativeAddon | null {
  return off ? null : (addon === undefined ? load() : addon);
}

/** Turns the addon off (every caller to its JavaScript path) or back on; for tests that compare the two. */
export function setNativeAddon(on: boolean): void {
  off = !on;
}

/** Whether the addon is in use, and why not. */
export function nativeAddonStatus(): { loaded: boolean; error: string | null } {
  const a = addon === undefined ? load() : addon;
  return { loaded: a !== null && !off, error: a ? (off ? 'turned off (setNativeAddon)' : null) : loadError };
}
