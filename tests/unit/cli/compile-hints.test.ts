// The chunks pages load at start (the framework's root files and each route's entry files, from the build's
// manifests) get V8's compile hint as their first line, once; lazily loaded chunks, the legacy polyfills and
// other files are left as they are.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addCompileHints, COMPILE_HINT, startupChunks } from '../../../lib/cli/compile-hints';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

const rsc = (route: string, entries: Record<string, string[]>) =>
  `globalThis.__RSC_MANIFEST = globalThis.__RSC_MANIFEST || {};\nglobalThis.__RSC_MANIFEST[${JSON.stringify(route)}] = ${JSON.stringify({ clientModules: { x: { chunks: ['/_next/static/chunks/lazy.js'] } }, entryJSFiles: entries })};\n`;

/** A build whose root files are a.js, whose rollout route enters through page.js, and whose lazy.js loads later. */
function build(): string {
  root = mkdtempSync(path.join(os.tmpdir(), 'callscope-hints-'));
  const next = path.join(root, '.next');
  const chunks = path.join(next, 'static', 'chunks');
  const route = path.join(next, 'server', 'app', 'runs', '[run]', 'rollouts', '[rollout]');
  mkdirSync(chunks, { recursive: true });
  mkdirSync(route, { recursive: true });
  writeFileSync(path.join(next, 'build-manifest.json'), JSON.stringify({ polyfillFiles: ['static/chunks/poly.js'], rootMainFiles: ['static/chunks/a.js'] }));
  writeFileSync(path.join(route, 'page_client-reference-manifest.js'), rsc('/runs/[run]/rollouts/[rollout]/page', { '[project]/app/layout': ['static/chunks/layout.js'], '[project]/app/runs/[run]/rollouts/[rollout]/page': ['static/chunks/layout.js', 'static/chunks/page.js'] }));
  for (const name of ['a.js', 'layout.js', 'page.js', 'lazy.js', 'poly.js']) writeFileSync(path.join(chunks, name), `${name}()`);
  writeFileSync(path.join(chunks, 'c.css'), 'body{}');
  return chunks;
}

describe('addCompileHints', () => {
  it('finds the start-up chunks in the manifests', async () => {
    build();
    expect([...(await startupChunks(path.join(root, '.next')))].sort()).toEqual(['static/chunks/a.js', 'static/chunks/layout.js', 'static/chunks/page.js']);
  });

  it('puts the hint first in each start-up chunk, and nowhere else', async () => {
    const chunks = build();
    expect(await addCompileHints(root)).toBe(3);
    const read = (f: string) => readFileSync(path.join(chunks, f), 'utf8');
    for (const f of ['a.js', 'layout.js', 'page.js']) expect(read(f)).toBe(`${COMPILE_HINT}${f}()`);
    expect(read('lazy.js')).toBe('lazy.js()');
    expect(read('poly.js')).toBe('poly.js()');
    expect(read('c.css')).toBe('body{}');
    expect(COMPILE_HINT).toBe('//# allFunctionsCalledOnLoad\n');
  });

  it('marks a chunk once, however often it runs, and leaves no temporary file', async () => {
    const chunks = build();
    await addCompileHints(root);
    expect(await addCompileHints(root)).toBe(0);
    expect(readFileSync(path.join(chunks, 'a.js'), 'utf8')).toBe(`${COMPILE_HINT}a.js()`);
    expect(readdirSync(chunks).sort()).toEqual(['a.js', 'c.css', 'layout.js', 'lazy.js', 'page.js', 'poly.js']);
  });

  it('does nothing without a build', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'callscope-hints-'));
    expect(await addCompileHints(root)).toBe(0);
  });
});
