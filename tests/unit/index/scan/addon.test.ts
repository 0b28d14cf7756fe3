// The native addon's loader and its slot layout. scan.cc (CALLSCOPE_SLOTS) and lib/index/scan/addon.ts
// (NATIVE_SLOT_NAMES) each declare the output slots by name; the build exports its list, and the two must agree
// name by name, so that two slots swapped on one side fail here instead of filling the index with each other's values.
// A build from other sources (an older checkout's native/build, before `npm run build:native`) is refused whole, so
// that no caller reaches an export it lacks or a different slot layout.
import { describe, expect, it } from 'vitest';
import { addonProblem, nativeAddon, nativeAddonPath, NATIVE_SLOT, NATIVE_SLOT_NAMES, NATIVE_VERSION, type NativeSlot } from '../../../../lib/index/scan/addon';

/** The built addon's own exports, loaded apart from the loader (which refuses a build whose layout differs). */
function builtExports(): { version?: unknown; slotNames?: unknown } {
  const file = nativeAddonPath();
  expect(file, 'the native addon is built (npm install)').not.toBeNull();
  const mod = { exports: {} };
  process.dlopen(mod, file!);
  return mod.exports;
}

describe('native addon loader', () => {
  it('writes the output slots this code reads, name by name and in the same places', () => {
    expect(builtExports().slotNames).toEqual([...NATIVE_SLOT_NAMES]);
  });

  it('uses the build of these sources', () => {
    const addon = nativeAddon();
    expect(addon, 'the native addon is built (npm install)').not.toBeNull();
    expect(addonProblem(addon!)).toBeNull();
  });

  it('reads each slot at its name, a string span with its end right after its start', () => {
    NATIVE_SLOT_NAMES.forEach((name, i) => expect(NATIVE_SLOT[name]).toBe(i));
    for (const end of NATIVE_SLOT_NAMES.filter((n) => n.endsWith('_END'))) {
      const base = end.slice(0, -'_END'.length);
      const start = (base in NATIVE_SLOT ? base : `${base}_START`) as NativeSlot;
      expect(NATIVE_SLOT[end], end).toBe(NATIVE_SLOT[start] + 1);
    }
  });

  it('refuses a build without the version, with another one, or with another slot layout', () => {
    const current = { version: NATIVE_VERSION, slotNames: [...NATIVE_SLOT_NAMES] };
    expect(addonProblem(current)).toBeNull();
    expect(addonProblem({ slotNames: current.slotNames })).toMatch(new RegExp(`version none, expected ${NATIVE_VERSION}\\): run npm run build:native`));
    expect(addonProblem({ ...current, version: NATIVE_VERSION + 1 })).toMatch(/run npm run build:native/);
    const swapped = [...current.slotNames];
    [swapped[21], swapped[22]] = [swapped[22], swapped[21]];
    expect(addonProblem({ ...current, slotNames: swapped })).toMatch(/slot 21 is TOKENS_OUT, expected TOKENS_IN\): run npm run build:native/);
    expect(addonProblem({ ...current, slotNames: current.slotNames.slice(0, -1) })).toMatch(/slot 30 is missing, expected TOOL_CALLS/);
    expect(addonProblem({ ...current, slotNames: [...current.slotNames, 'EXTRA'] })).toMatch(/slot 31 is EXTRA, expected none/);
    expect(addonProblem({ version: NATIVE_VERSION })).toMatch(/slot 0 is missing, expected REQ_START/);
  });
});
