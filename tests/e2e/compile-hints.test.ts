// V8's compile hint over the real build (this file sits with the end-to-end tests because their global setup runs
// `next build` first). The start-up chunks are what Next.js itself reads from the build's manifests, with its own
// manifest loader: build-manifest.json's root main files, and the entry files of each app route's client reference
// manifest, run as Next.js runs it when it serves the route. Those chunks get the hint as their first line, once;
// lazily loaded chunks, the polyfills and the other files stay byte for byte. The hints go onto a copy of the build:
// the real one is served by other tests at the same time.
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { evalManifest, loadManifest } from 'next/dist/server/load-manifest.external';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCompileHints, COMPILE_HINT, startupChunks } from '../../lib/cli/compile-hints';
import { ROOT } from '../support/server';

const NEXT_DIR = path.join(ROOT, '.next');
const ROLLOUT_PAGE = '/runs/[run]/rollouts/[rollout]/page';

type BuildManifest = { rootMainFiles: string[]; polyfillFiles: string[] };
type ClientReferenceContext = { __RSC_MANIFEST: Record<string, { entryJSFiles: Record<string, string[]> }> };

const buildManifest = () => loadManifest<BuildManifest>(path.join(NEXT_DIR, 'build-manifest.json'), false);

/** Each app route's entry JS files, read as Next.js reads them (load-components.ts: loadClientReferenceManifestForPage). */
function routeEntryFiles(): Map<string, string[]> {
  const routes = Object.keys(loadManifest<Record<string, string>>(path.join(NEXT_DIR, 'app-path-routes-manifest.json'), false));
  return new Map(
    routes.map((route) => {
      const context = evalManifest<ClientReferenceContext>(path.join(NEXT_DIR, 'server', 'app', `${route}_client-reference-manifest.js`), false);
      return [route, Object.values(context.__RSC_MANIFEST[route].entryJSFiles).flat()];
    }),
  );
}

let tmp: string;
let nextStartup: Set<string>;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-hints-'));
  nextStartup = new Set([...buildManifest().rootMainFiles, ...[...routeEntryFiles().values()].flat()]);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of the build's manifests and chunks under `root`/.next, without hints (`serve` may have marked the real one). */
function copyBuild(root: string): Map<string, string> {
  const next = path.join(root, '.next');
  cpSync(path.join(NEXT_DIR, 'build-manifest.json'), path.join(next, 'build-manifest.json'));
  cpSync(path.join(NEXT_DIR, 'server', 'app'), path.join(next, 'server', 'app'), {
    recursive: true,
    filter: (src) => statSync(src).isDirectory() || src.endsWith('_client-reference-manifest.js'),
  });
  // (a chunk a serving process is marking right now is renamed into place: its temporary file is left behind)
  cpSync(path.join(NEXT_DIR, 'static', 'chunks'), path.join(next, 'static', 'chunks'), { recursive: true, filter: (src) => !src.endsWith('.tmp') });
  const chunks = new Map<string, string>();
  for (const name of readdirSync(path.join(next, 'static', 'chunks'))) {
    const file = path.join(next, 'static', 'chunks', name);
    if (!statSync(file).isFile()) continue;
    const text = readFileSync(file, 'utf8');
    const bare = text.startsWith(COMPILE_HINT) ? text.slice(COMPILE_HINT.length) : text;
    writeFileSync(file, bare);
    chunks.set(`static/chunks/${name}`, bare);
  }
  return chunks;
}

describe('compile hints on the real build', () => {
  it('finds the start-up chunks Next.js names in the manifests, every one of them', async () => {
    // Not vacuous: the framework's root files and the rollout page's own entry chunks are among them, and exist.
    expect(buildManifest().rootMainFiles.length).toBeGreaterThan(0);
    expect(routeEntryFiles().get(ROLLOUT_PAGE)?.length).toBeGreaterThan(1);
    for (const chunk of nextStartup) expect(existsSync(path.join(NEXT_DIR, chunk)), chunk).toBe(true);
    expect([...(await startupChunks(NEXT_DIR))].sort()).toEqual([...nextStartup].sort());
  });

  it('puts the hint first in each start-up chunk of a copy, once, and leaves every other file as it was', async () => {
    const root = path.join(tmp, 'build');
    const before = copyBuild(root);
    const later = [...before.keys()].filter((f) => f.endsWith('.js') && !nextStartup.has(f));
    // Chunks that load later exist (the polyfills, and chunks a view imports lazily), so leaving them alone is tested.
    expect(later).toEqual(expect.arrayContaining(buildManifest().polyfillFiles));
    expect(later.length).toBeGreaterThan(buildManifest().polyfillFiles.length);

    expect(await addCompileHints(root)).toBe(nextStartup.size);
    const after = (f: string) => readFileSync(path.join(root, '.next', f), 'utf8');
    for (const [f, text] of before) expect(after(f), f).toBe(nextStartup.has(f) ? COMPILE_HINT + text : text);
    expect(COMPILE_HINT).toBe('//# allFunctionsCalledOnLoad\n');

    expect(await addCompileHints(root)).toBe(0);
    for (const f of nextStartup) expect(after(f).startsWith(COMPILE_HINT + COMPILE_HINT), f).toBe(false);
    expect(readdirSync(path.join(root, '.next', 'static', 'chunks')).sort()).toEqual([...before.keys()].map((f) => path.basename(f)).sort());
  });

  it('does nothing without a build', async () => {
    const root = path.join(tmp, 'empty');
    expect(await addCompileHints(root)).toBe(0);
  });
});
