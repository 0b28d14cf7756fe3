// Run discovery (architecture.md "Runs"): from the PATHs given to `serve`, find rollouts files (with the files
// NeMo Gym writes beside them, spec §8.1: `_failures`, `_materialized_inputs`, and `gym eval profile`'s
// `_reward_profiling`) and capture dirs, pair each rollouts file with the capture dir that holds its rollout ids
// (pairing.ts), and give every run a stable URL-safe id: a slug of its path relative to the PATH it was found
// under. Symlinks are not followed, so nothing outside a root is ever reached.
import { promises as fsp, type Dirent } from 'node:fs';
import path from 'node:path';
import { CAPTURE_SUFFIX, INCOMPLETE_SUFFIX, exists } from '../../capture/store';
import { pairCaptureDirs } from './pairing';

export interface RunSource {
  id: string;
  /** The PATH this run was found under (every file of the run lies inside it). */
  root: string;
  rolloutsFile: string | null;
  failuresFile: string | null;
  captureDir: string | null;
  /** `X_reward_profiling.jsonl` beside `X.jsonl`: `gym eval profile`'s per-task figures (spec §5.6). */
  rewardProfileFile?: string | null;
  /** `X_aggregate_metrics.json` beside `X.jsonl`: the collector's per-agent metrics (spec §5.6, §8.1). */
  aggregateMetricsFile?: string | null;
  /** `X_materialized_inputs.jsonl` beside `X.jsonl`: the tasks dispatched (spec §8.1). */
  inputsFile?: string | null;
  /** Why this run has, or has not, the capture dir beside it when another rollouts file also claims it. */
  captureDirNote?: string | null;
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

export const REWARD_PROFILE_SUFFIX = '_reward_profiling.jsonl';
const INPUTS_SUFFIX = '_materialized_inputs.jsonl';

/**
 * A rollouts file: a `.jsonl` that is not a capture, token-capture, failures, materialized-inputs or reward-profile
 * file. (`X_aggregate_metrics.json` and `X_agent_metrics.json`, the other files NeMo Gym writes beside `X.jsonl`, are
 * not `.jsonl`.)
 */
export function isRolloutsFileName(name: string): boolean {
  return (
    name.endsWith('.jsonl') &&
    !name.endsWith(CAPTURE_SUFFIX) &&
    !name.endsWith('.tokens.jsonl') &&
    !name.endsWith('_failures.jsonl') &&
    !name.endsWith(INPUTS_SUFFIX) &&
    !name.endsWith(REWARD_PROFILE_SUFFIX)
  );
}

export function failuresSibling(rolloutsFile: string): string {
  return rolloutsFile.replace(/\.jsonl$/, '_failures.jsonl');
}

/** `gym eval profile --rollouts X.jsonl` writes `X_reward_profiling.jsonl` (reward_profile.py, write_to_disk). */
export function rewardProfileSibling(rolloutsFile: string): string {
  return rolloutsFile.replace(/\.jsonl$/, REWARD_PROFILE_SUFFIX);
}

/** `gym eval run --output X.jsonl` writes `X_materialized_inputs.jsonl` (rollout_collection.py). */
export function inputsSibling(rolloutsFile: string): string {
  return rolloutsFile.replace(/\.jsonl$/, INPUTS_SUFFIX);
}

/** `gym eval run --output X.jsonl` (and `gym eval aggregate`) write `X_aggregate_metrics.json` (rollout_collection.py). */
export function aggregateMetricsSibling(rolloutsFile: string): string {
  return rolloutsFile.replace(/\.jsonl$/, '_aggregate_metrics.json');
}

/** The files NeMo Gym writes beside a rollouts file that belong to its run, those present. */
async function siblingsOf(file: string): Promise<Pick<RunSource, 'failuresFile' | 'rewardProfileFile' | 'inputsFile' | 'aggregateMetricsFile'>> {
  const present = async (p: string) => ((await exists(p)) ? p : null);
  return {
    failuresFile: await present(failuresSibling(file)),
    rewardProfileFile: await present(rewardProfileSibling(file)),
    inputsFile: await present(inputsSibling(file)),
    aggregateMetricsFile: await present(aggregateMetricsSibling(file)),
  };
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
function skipReason(name: string, names: Set<string>): string | null {
  if (name.endsWith(INPUTS_SUFFIX)) return "NeMo Gym's materialized inputs (the tasks sent to the agents), not rollouts";
  if (name.endsWith('.tokens.jsonl')) return 'a training token-id capture file, not model calls';
  if (name.endsWith(REWARD_PROFILE_SUFFIX)) {
    const rollouts = name.slice(0, -REWARD_PROFILE_SUFFIX.length) + '.jsonl';
    // Beside its rollouts file it is that run's task profile, not skipped.
    return names.has(rollouts) ? null : `NeMo Gym's reward profile (gym eval profile's per-task figures), not rollouts; its rollouts file ${rollouts} is not here`;
  }
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
  const names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isFile() && isRolloutsFileName(e.name)) found.rolloutsFiles.push(path.join(dir, e.name));
    else if (e.isFile() && skipReason(e.name, names)) found.skipped.push({ path: path.join(dir, e.name), reason: skipReason(e.name, names)! });
    else if (e.isFile() && e.name.endsWith('_failures.jsonl') && !entries.some((f) => f.isFile() && path.join(dir, f.name) !== path.join(dir, e.name) && failuresSibling(f.name) === e.name)) {
      found.skipped.push({ path: path.join(dir, e.name), reason: `a failures file without its rollouts file ${e.name.replace(/_failures\.jsonl$/, '.jsonl')}` });
    }
    else if (e.isDirectory() && depth < MAX_DEPTH && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) {
      await walk(path.join(dir, e.name), depth + 1, found);
    }
  }
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

/**
 * The runs under the PATHs, the `.jsonl` files found there that are not served, with the reason, and notes on the
 * pairing (a capture dir that two rollouts files claim).
 */
export async function discoverRunsReport(specs: PathSpec[]): Promise<{ runs: RunSource[]; skipped: SkippedFile[]; notes: string[] }> {
  const runs: RunSource[] = [];
  const skipped: SkippedFile[] = [];
  const notes: string[] = [];
  const taken = new Set<string>();
  for (const spec of specs) {
    const target = path.resolve(spec.path);
    const st = await fsp.lstat(target).catch(() => null);
    if (!st) continue;
    if (st.isFile()) {
      const root = path.dirname(target);
      const captureDir = spec.captureDir ? path.resolve(spec.captureDir) : null;
      runs.push({
        id: uniqueId(runIdFor(root, target, true), taken),
        root: captureDir ? commonRoot(root, captureDir) : root,
        rolloutsFile: target,
        ...(await siblingsOf(target)),
        captureDir,
      });
      continue;
    }
    if (!st.isDirectory()) continue;
    const found: Found = { rolloutsFiles: [], captureDirs: [], skipped };
    await walk(target, 0, found);
    const ids = new Map(found.rolloutsFiles.map((file) => [file, uniqueId(runIdFor(target, file, true), taken)]));
    const pairing = await pairCaptureDirs(target, found.rolloutsFiles, found.captureDirs, ids);
    notes.push(...pairing.notes);
    for (const file of found.rolloutsFiles) {
      const { captureDir, note } = pairing.of.get(file)!;
      runs.push({ id: ids.get(file)!, root: target, rolloutsFile: file, ...(await siblingsOf(file)), captureDir, captureDirNote: note });
    }
    const paired = new Set([...pairing.of.values()].map((p) => p.captureDir).filter((d): d is string => d !== null));
    for (const dir of found.captureDirs) {
      if (paired.has(dir)) continue;
      runs.push({ id: uniqueId(runIdFor(target, dir, false), taken), root: target, rolloutsFile: null, failuresFile: null, captureDir: dir });
    }
  }
  return { runs, skipped, notes };
}

function commonRoot(a: string, b: string): string {
  const pa = a.split(path.sep);
  const pb = b.split(path.sep);
  let k = 0;
  while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
  return pa.slice(0, k).join(path.sep) || path.sep;
}
