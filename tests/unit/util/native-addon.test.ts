// The native addon's loader: a build from other sources (an older checkout's native/build, before
// `npm run build:native`) is refused whole, so that no caller reaches an export it lacks or a different slot layout.
import { describe, expect, it } from 'vitest';
import { addonProblem, nativeAddon, NATIVE_SLOTS, NATIVE_VERSION } from '../../../lib/util/native-addon';

describe('native addon loader', () => {
  it('uses the build of these sources', () => {
    const addon = nativeAddon();
    expect(addon, 'the native addon is built (npm install)').not.toBeNull();
    expect(addonProblem(addon!)).toBeNull();
  });

  it('refuses a build without the version or with another one or another slot layout', () => {
    const current = { version: NATIVE_VERSION, slots: NATIVE_SLOTS };
    expect(addonProblem(current)).toBeNull();
    expect(addonProblem({ slots: NATIVE_SLOTS })).toMatch(/version none, expected 1\): run npm run build:native/);
    expect(addonProblem({ ...current, version: NATIVE_VERSION + 1 })).toMatch(/run npm run build:native/);
    expect(addonProblem({ ...current, slots: NATIVE_SLOTS - 1 })).toMatch(/run npm run build:native/);
  });
});
