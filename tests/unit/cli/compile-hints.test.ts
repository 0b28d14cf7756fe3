// The built chunks get V8's compile hint as their first line, once; the legacy polyfills and other files
// are left as they are.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addCompileHints, COMPILE_HINT } from '../../../lib/cli/compile-hints';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function build(files: Record<string, string>): string {
  root = mkdtempSync(path.join(os.tmpdir(), 'callscope-hints-'));
  const chunks = path.join(root, '.next', 'static', 'chunks');
  mkdirSync(chunks, { recursive: true });
  writeFileSync(path.join(root, '.next', 'build-manifest.json'), JSON.stringify({ polyfillFiles: ['static/chunks/poly.js'], rootMainFiles: ['static/chunks/a.js'] }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(chunks, name), text);
  return chunks;
}

describe('addCompileHints', () => {
  it('puts the hint first in every script chunk but the polyfills, and nowhere else', async () => {
    const chunks = build({ 'a.js': '(globalThis.TURBOPACK||[]).push([1])', 'b.js': 'x()', 'poly.js': 'polyfill()', 'c.css': 'body{}' });
    expect(await addCompileHints(root)).toBe(2);
    const read = (f: string) => readFileSync(path.join(chunks, f), 'utf8');
    expect(read('a.js')).toBe(COMPILE_HINT + '(globalThis.TURBOPACK||[]).push([1])');
    expect(read('b.js')).toBe(COMPILE_HINT + 'x()');
    expect(read('poly.js')).toBe('polyfill()');
    expect(read('c.css')).toBe('body{}');
    expect(COMPILE_HINT).toBe('//# allFunctionsCalledOnLoad\n');
  });

  it('marks a chunk once, however often it runs, and leaves no temporary file', async () => {
    const chunks = build({ 'a.js': 'a()' });
    await addCompileHints(root);
    expect(await addCompileHints(root)).toBe(0);
    expect(readFileSync(path.join(chunks, 'a.js'), 'utf8')).toBe(COMPILE_HINT + 'a()');
    expect(readdirSync(chunks)).toEqual(['a.js']);
  });

  it('does nothing without a build', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'callscope-hints-'));
    expect(await addCompileHints(root)).toBe(0);
  });
});
