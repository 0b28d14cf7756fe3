// A precompiled copy of the command line (lib/cli/main.ts bundled by esbuild, packages left external), for
// the long-running `callscope proxy`: running TypeScript through tsx costs about 35 MB of resident memory
// for the loader alone (targets.md P6). The bundle lives in dist/cli/<hash>/ and is rebuilt, in a child
// process, on the first start after any of its sources changed; `dist/cli/current.json` names it along with
// the size and mtime of every source it was built from. Nothing here may fail a start: any problem (no
// esbuild, a read-only checkout) leaves the caller on tsx.
//
// `node bin/compiled.js --build [ROOT]` builds (used by the child, by `npm run build:cli`, and by tests).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const PROJECT_ROOT = path.resolve(path.dirname(SELF), '..');
// Bump when the build options change, so that older bundles count as stale.
const FORMAT = 1;
const ENTRY = 'lib/cli/main.ts';

const manifestPath = (root) => path.join(root, 'dist', 'cli', 'current.json');

/** The bundle's entry file if it is fresh (built by this FORMAT from the sources as they are now), else null. */
export function freshBundle(root = PROJECT_ROOT) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(root), 'utf8'));
  } catch {
    return null;
  }
  if (manifest?.format !== FORMAT || typeof manifest.dir !== 'string' || typeof manifest.inputs !== 'object') return null;
  for (const [file, [size, mtimeMs]] of Object.entries(manifest.inputs)) {
    let st;
    try {
      st = statSync(path.join(root, file));
    } catch {
      return null;
    }
    if (st.size !== size || st.mtimeMs !== mtimeMs) return null;
  }
  const entry = path.join(root, 'dist', 'cli', manifest.dir, 'main.js');
  try {
    statSync(entry);
  } catch {
    return null;
  }
  return entry;
}

/** Builds the bundle into a new directory, then points current.json at it (atomic rename). */
export async function build(root = PROJECT_ROOT) {
  const esbuild = await import('esbuild');
  const outBase = path.join(root, 'dist', 'cli');
  const tmp = path.join(outBase, `tmp-${process.pid}-${Date.now()}`);
  // Sources are stat'ed before the build: a source edited during the build makes the bundle stale, not wrong.
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [ENTRY],
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'error',
  });
  const inputs = {};
  for (const file of Object.keys(result.metafile.inputs).sort()) {
    const st = statSync(path.join(root, file));
    inputs[file] = [st.size, st.mtimeMs];
  }
  const hash = createHash('sha256').update(JSON.stringify({ FORMAT, inputs, esbuild: esbuild.version })).digest('hex').slice(0, 16);
  const dir = `${hash}-${process.pid}`;
  renameSync(tmp, path.join(outBase, dir));
  const manifestTmp = `${manifestPath(root)}.${process.pid}`;
  writeFileSync(manifestTmp, JSON.stringify({ format: FORMAT, dir, esbuild: esbuild.version, inputs }, null, 1) + '\n');
  renameSync(manifestTmp, manifestPath(root));
  // Older bundles go, except any built in the last minute (another process may be starting from it).
  for (const name of readdirSync(outBase)) {
    if (name === dir || name === 'current.json') continue;
    const p = path.join(outBase, name);
    try {
      if (Date.now() - statSync(p).mtimeMs > 60_000) rmSync(p, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
  return path.join(outBase, dir, 'main.js');
}

/** The bundled `main` of lib/cli/main.ts, built first if needed; null when no bundle can be had. */
export async function compiledMain(root = PROJECT_ROOT) {
  let entry = freshBundle(root);
  if (!entry) {
    // A child process, so that esbuild's service never lives in (and never adds memory to) this process.
    const child = spawnSync(process.execPath, [SELF, '--build', root], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    entry = child.status === 0 ? freshBundle(root) : null;
  }
  if (!entry) return null;
  try {
    return (await import(pathToFileURL(entry).href)).main ?? null;
  } catch {
    return null;
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--build') {
  const root = path.resolve(process.argv[3] ?? PROJECT_ROOT);
  mkdirSync(path.join(root, 'dist', 'cli'), { recursive: true });
  try {
    console.log(path.relative(root, await build(root)));
  } catch (error) {
    process.stderr.write(`callscope: could not build the bundle: ${error?.message ?? error}\n`);
    process.exit(1);
  }
}
