// The native line scans (native/scan.cc), built by `npm install` (scripts/build-native.mjs). A capture line to the
// values the index stores for it, in one pass in C++, for the lines it reads exactly as the lossless path does; for
// any other line it declines and the caller runs the JavaScript scans (capture-line.ts), which stay the reference
// (tests/unit/index/scan/fast-scan.property.test.ts holds the two equal). And a rollout line's shallow scan, the port of
// fast-scan.ts's scanShallowFastJs (tests/unit/rollouts/rollout-line.property.test.ts). Without the addon (not built,
// or CALLSCOPE_NATIVE_SCAN=0), `nativeCallValues` always declines and `scanShallowFastNative` answers undefined.
import { isUtf8 } from 'node:buffer';
import { stripAscii } from '../../capture/bytes';
import type { FastShallowScan, SliceBuffer } from '../../capture/json-parse';
import type { JsonObject } from '../../capture/json-value';
import { NATIVE_SLOT, NATIVE_SLOTS, nativeAddon, nativeAddonStatus, type NativeAddon } from './addon';

// The output slots of scan.cc by name (NATIVE_SLOT_NAMES, which the loader checks against the build name by name).
const S = NATIVE_SLOT;

const out = new Float64Array(NATIVE_SLOTS);
let outFor: NativeAddon | null = null;

/** The addon with its output set, or null. */
function scanner(): NativeAddon | null {
  const a = nativeAddon();
  if (a && a !== outFor) {
    a.setOutput(out);
    outFor = a;
  }
  return a;
}

/** Whether the native scan is in use, and why not. */
export const nativeScanStatus = nativeAddonStatus;

/**
 * The call row of one capture line (lib/index/call-row.ts; rollout pk and file id left 0, as `readFileForIngest` leaves them),
 * or null when the native scan is not in use or declines the line (then scan.ts decides, blank lines included).
 */
export function nativeCallValues(line: Buffer, lineOffset: number, callIndex: number): unknown[] | null {
  const row: unknown[] = [];
  return nativeScanInto(line, lineOffset, callIndex, row) ? row : null;
}

/** nativeCallValues, its row pushed onto `into` (no array of its own); false when declined (nothing pushed). */
export function nativeScanInto(line: Buffer, lineOffset: number, callIndex: number, into: unknown[]): boolean {
  const a = scanner();
  if (!a) return false;
  const stripped = stripAscii(line);
  if (stripped.length === 0 || !isUtf8(stripped) || !a.scanCapture(stripped)) return false;
  const shift = stripped.byteOffset - line.byteOffset;
  const o = out;
  const b = stripped as SliceBuffer;
  const hasRequest = o[S.REQ_START] >= 0;
  const hasResponse = o[S.RESP_START] >= 0;
  // The row's values in its order, pushed at once (this runs for every line of a cold ingest): the same row as
  // callValues, which places each value by its column's name (tests/unit/index/scan/fast-scan.property.test.ts).
  into.push(
    0, callIndex, text(b, o, S.CALL_ID), 0, lineOffset, line.length,
    hasRequest ? o[S.REQ_START] + shift : null, hasRequest ? o[S.REQ_END] - o[S.REQ_START] : null,
    hasResponse ? o[S.RESP_START] + shift : null, hasResponse ? o[S.RESP_END] - o[S.RESP_START] : null,
    text(b, o, S.REF_NAME), text(b, o, S.MODEL), text(b, o, S.DIALECT), numeric(o, S.STATUS_CODE), text(b, o, S.STATUS),
    text(b, o, S.FINISH), text(b, o, S.ERROR_CATEGORY), numeric(o, S.STARTED_AT), numeric(o, S.COMPLETED_AT), numeric(o, S.TOKENS_IN),
    numeric(o, S.TOKENS_OUT), numeric(o, S.TOKENS_REASONING), numeric(o, S.TOKENS_TOTAL), numeric(o, S.CACHED_TOKENS),
    numeric(o, S.CACHE_CREATION_TOKENS), numeric(o, S.CACHE_HIT), numeric(o, S.LATENCY_MS), numeric(o, S.TTFT_MS), o[S.TOOL_CALLS],
  );
  return true;
}

/** The string whose span is at `slot` (its bytes are its value: the scan declines escapes), or null. */
function text(b: SliceBuffer, o: Float64Array, slot: number): string | null {
  return o[slot] < 0 ? null : b.utf8Slice(o[slot], o[slot + 1]);
}

function numeric(o: Float64Array, slot: number): number | null {
  const v = o[slot];
  return v === v ? v : null; // NaN: null
}

// The native port of scanShallowFastJs (native/scan.cc, struct Shallow): the same reduced text, written into a
// buffer of this thread's, then the same JSON.parse; it declines where the JavaScript walk does.
const shallowIds = new WeakMap<object, Map<string | null, number>>();
let shallowText = Buffer.alloc(0);
const shallowMeta = new Float64Array(1);

/** The native scan's answer; null when it declines, undefined without the addon. Exported for the equivalence tests. */
export function scanShallowFastNative(b: Buffer, shallow: Record<string, readonly string[]>, count: string | null): FastShallowScan | null | undefined {
  const native = nativeAddon();
  if (!native) return undefined;
  let ids = shallowIds.get(shallow);
  if (!ids) shallowIds.set(shallow, (ids = new Map()));
  let id = ids.get(count);
  if (id === undefined) {
    const spec = [count ?? '', ...Object.entries(shallow).map(([k, keep]) => `${k}\t${keep.join(',')}`)].join('\n');
    ids.set(count, (id = native.shallowConfig(spec)));
  }
  if (shallowText.length < b.length) shallowText = Buffer.allocUnsafe(Math.max(b.length, 2 * shallowText.length, 1 << 16));
  const len = native.scanShallow(b, id, shallowText, shallowMeta);
  if (len < 0) return null;
  let value: unknown;
  try {
    value = JSON.parse((shallowText as SliceBuffer).utf8Slice(0, len));
  } catch {
    return null;
  }
  return { value: value as JsonObject, counted: shallowMeta[0] < 0 ? null : shallowMeta[0] };
}
