// Run discovery (architecture.md "Runs"): from the PATHs given to `serve`, find rollouts files (with their
// `_failures` siblings) and capture dirs, pair each rollouts file with the capture dir that holds its
// rollout ids, and give every run a stable URL-safe id: a slug of its path relative to the PATH it was
// found under. Symlinks are not followed, so nothing outside a root is ever reached.
import { promises as fsp, type Dirent } from 'node:fs';
import path from 'node:path';
import { rolloutIdOfLine } from '../capture/ids';
import { isJsonObject, parsePython } from '../capture/json';
import { CAPTURE_SUFFIX, INCOMPLETE_SUFFIX, exists, readLines, stripAscii } from '../capture/store';

export interface RunSource {
  id: string;
  /** The PATH this run was found under (every file of the run lies inside it). */
  root: string;
  rolloutsFile: string | null;
  failuresFile: string | null;
  captureDir: string | null;
}

export interface PathSpec {
  path: string;
  /** `ROLLOUTS.jsonl=CAPTURE_DIR`: an explicit pairing. */
  captureDir?: string;
}

const MAX_DEPTH = 4;
const SKIP_DIRS = new Set(['node_modules', '.git', '.next', '.callscope']);
const GENERIC_STEMS = new Set(['rollouts', 'rollout', 'results', 'output', 'captures', 'capture']);

export function parsePathSpec(arg: string): PathSpec {
  const eq = arg.indexOf('=');
  if (eq > 0 && arg.slice(0, eq).endsWith('.jsonl')) return { path: arg.slice(0, eq), captureDir: arg.slice(eq + 1) };
  return { path: arg };
}

/** A rollouts file: a `.jsonl` that is not a capture, token-capture, failures or materialized-inputs file. */
export function isRolloutsFileName(name: string): boolean {
  return (
    name.endsWith('.jsonl') &&
    !name.endsWith(CAPTURE_SUFFIX) &&
    !name.endsWith('.tokens.jsonl') &&
    !name.endsWith('_failures.jsonl') &&
    !name.endsWith('_materialized_inputs.jsonl')
  );
}

export function failuresSibling(rolloutsFile: string): string {
  return rolloutsFile.replace(/\.jsonl$/, '_failures.jsonl');
}

export function isCaptureFileName(name: string): boolean {
  return (name.endsWith(CAPTURE_SUFFIX) && name.length > CAPTURE_SUFFIX.length) || name.endsWith(INCOMPLETE_SUFFIX);
}

/** A URL-safe slug: lowercase letters, digits, `.`, `_` and `-`. */
export function slugify(text: string): string {
  const slug = text
    .replace(/[\\/]+/g, '-')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  return slug || 'run';
}

/** The run id: the target's path relative to the PATH it was found under, without a generic last name. */
function runIdFor(base: string, target: string, isFile: boolean): string {
  let rel = path.relative(base, target);
  if (isFile) rel = rel.replace(/\.jsonl$/, '');
  const parts = rel.split(path.sep).filter((p) => p && p !== '..');
  if (parts.length > 0 && GENERIC_STEMS.has(parts[parts.length - 1])) parts.pop();
  if (parts.length === 0) {
    const own = isFile ? path.dirname(target) : target;
    parts.push(GENERIC_STEMS.has(path.basename(own)) ? path.basename(path.dirname(own)) : path.basename(own) || 'run');
  }
  return slugify(parts.join('-'));
}

interface Found {
  rolloutsFiles: string[];
  captureDirs: string[];
  skipped: SkippedFile[];
}

/** A `.jsonl` file found under a PATH that is not served as a run, and why. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** Why a `.jsonl` file that is not a rollouts file is left out, or null for a capture or failures file (part of a run). */
function skipReason(name: string): string | null {
  if (name.endsWith('_materialized_inputs.jsonl')) return "NeMo Gym's materialized inputs (the tasks sent to the agents), not rollouts";
  if (name.endsWith('.tokens.jsonl')) return 'a training token-id capture file, not model calls';
  return null;
}

async function walk(dir: string, depth: number, found: Found): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (entries.some((e) => e.isFile() && isCaptureFileName(e.name))) found.captureDirs.push(dir);
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isFile() && isRolloutsFileName(e.name)) found.rolloutsFiles.push(path.join(dir, e.name));
    else if (e.isFile() && skipReason(e.name)) found.skipped.push({ path: path.join(dir, e.name), reason: skipReason(e.name)! });
    else if (e.isFile() && e.name.endsWith('_failures.jsonl') && !entries.some((f) => f.isFile() && path.join(dir, f.name) !== path.join(dir, e.name) && failuresSibling(f.name) === e.name)) {
      found.skipped.push({ path: path.join(dir, e.name), reason: `a failures file without its rollouts file ${e.name.replace(/_failures\.jsonl$/, '.jsonl')}` });
    }
    else if (e.isDirectory() && depth < MAX_DEPTH && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) {
      await walk(path.join(dir, e.name), depth + 1, found);
    }
  }
}

/** Up to `limit` rollout ids from the first lines of a rollouts file. */
async function sampleRolloutIds(file: string, limit = 16): Promise<string[]> {
  const ids: string[] = [];
  const handle = await fsp.open(file, 'r').catch(() => null);
  if (!handle) return ids;
  try {
    for await (const line of readLines(handle)) {
      if (ids.length >= limit || line.lineNumber > limit * 4) break;
      if (stripAscii(line.bytes).length === 0) continue;
      try {
        const row = parsePython(line.bytes);
        const id = isJsonObject(row) ? rolloutIdOfLine(row) : null;
        if (id && /^[A-Za-z0-9._-]+$/.test(id)) ids.push(id);
      } catch {
        // a line that does not parse says nothing about pairing
      }
    }
  } finally {
    await handle.close();
  }
  return ids;
}

/** The capture dir that holds the most of the file's rollout ids, preferring the closest one on ties. */
async function pairCaptureDir(file: string, candidates: string[]): Promise<string | null> {
  const near = candidates.filter((d) => path.dirname(d) === path.dirname(file) || d === path.dirname(file));
  if (near.length === 0) return null;
  const ids = await sampleRolloutIds(file);
  let best: string | null = null;
  let bestHits = 0;
  for (const dir of near) {
    let hits = 0;
    for (const id of ids) {
      if ((await exists(path.join(dir, id + CAPTURE_SUFFIX))) || (await exists(path.join(dir, id + INCOMPLETE_SUFFIX)))) hits++;
    }
    if (hits > bestHits) {
      best = dir;
      bestHits = hits;
    }
  }
  if (best) return best;
  // Nothing captured yet (a run just starting): a lone capture dir beside the file is its own.
  return near.length === 1 ? near[0] : null;
}

function uniqueId(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}-${n}`;
  taken.add(candidate);
  return candidate;
}

export async function discoverRuns(specs: PathSpec[]): Promise<RunSource[]> {
  return (await discoverRunsReport(specs)).runs;
}

/** The runs under the PATHs, and the `.jsonl` files found there that are not served, with the reason. */
export async function discoverRunsReport(specs: PathSpec[]): Promise<{ runs: RunSource[]; skipped: SkippedFile[] }> {
  const runs: RunSource[] = [];
  const skipped: SkippedFile[] = [];
  const taken = new Set<string>();
  for (const spec of specs) {
    const target = path.resolve(spec.path);
    const st = await fsp.lstat(target).catch(() => null);
    if (!st) continue;
    if (st.isFile()) {
      const root = path.dirname(target);
      const failures = failuresSibling(target);
      const captureDir = spec.captureDir ? path.resolve(spec.captureDir) : null;
      runs.push({
        id: uniqueId(runIdFor(root, target, true), taken),
        root: captureDir ? commonRoot(root, captureDir) : root,
        rolloutsFile: target,
        failuresFile: (await exists(failures)) ? failures : null,
        captureDir,
      });
      continue;
    }
    if (!st.isDirectory()) continue;
    const found: Found = { rolloutsFiles: [], captureDirs: [], skipped };
    await walk(target, 0, found);
    const paired = new Set<string>();
    for (const file of found.rolloutsFiles) {
      const captureDir = await pairCaptureDir(file, found.captureDirs.filter((d) => !paired.has(d)));
      if (captureDir) paired.add(captureDir);
      const failures = failuresSibling(file);
      runs.push({
        id: uniqueId(runIdFor(target, file, true), taken),
        root: target,
        rolloutsFile: file,
        failuresFile: (await exists(failures)) ? failures : null,
        captureDir,
      });
    }
    for (const dir of found.captureDirs) {
      if (paired.has(dir)) continue;
      runs.push({ id: uniqueId(runIdFor(target, dir, false), taken), root: target, rolloutsFile: null, failuresFile: null, captureDir: dir });
    }
  }
  return { runs, skipped };
}

function commonRoot(a: string, b: string): string {
  const pa = a.split(path.sep);
  const pb = b.split(path.sep);
  let k = 0;
  while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
  return pa.slice(0, k).join(path.sep) || path.sep;
}
