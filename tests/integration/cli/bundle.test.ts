// bin/compiled.js: `callscope proxy` runs from an esbuild bundle of lib/cli/main.ts that is rebuilt after
// any source change, and a start never fails because of it (no bundle means tsx). A scratch project stands
// in for the real one, so that editing its sources touches nothing here.
import { mkdirSync, mkdtempSync, promises as fsp, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiledMain, freshBundle } from '../../../bin/compiled.js';

let root: string;
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
const MAIN_SOURCE = `import { code } from './code';\nexport async function main(argv: string[]): Promise<number> { return argv.length + code; }\n`;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'callscope-bundle-'));
  write('lib/cli/main.ts', MAIN_SOURCE);
  write('lib/cli/code.ts', 'export const code: number = 10;\n');
});
afterEach(async () => {
  await fsp.rm(root, { recursive: true, force: true });
});

describe('the precompiled command line', () => {
  it('is built on first use and then reused while its sources are unchanged', async () => {
    expect(freshBundle(root)).toBeNull();
    const main = await compiledMain(root);
    expect(await main!(['a', 'b'])).toBe(12);
    const entry = freshBundle(root);
    expect(entry).not.toBeNull();
    await compiledMain(root);
    expect(freshBundle(root)).toBe(entry);
  }, 60_000);

  it('is rebuilt when any source it was built from changes, even one it only imports', async () => {
    await compiledMain(root);
    write('lib/cli/code.ts', 'export const code: number = 20;\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(root, 'lib/cli/code.ts'), later, later);
    expect(freshBundle(root)).toBeNull();
    const main = await compiledMain(root);
    expect(await main!([])).toBe(20);
  }, 60_000);

  it('gives null (the caller falls back to tsx) when the sources do not build', async () => {
    write('lib/cli/main.ts', 'export async function main( {\n');
    expect(await compiledMain(root)).toBeNull();
    expect(freshBundle(root)).toBeNull();
  }, 60_000);
});
