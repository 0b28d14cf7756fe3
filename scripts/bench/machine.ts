// The facts every report records beside its figures, so that a figure can be compared with another run's: the
// machine, Node, the commit and what in the checkout differed from it, the load when the run started.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { ROOT } from './paths';
import { round } from './stats';

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null; // not a git checkout
  }
}

export const gitCommit = (): string | null => git(['rev-parse', 'HEAD'])?.trim() ?? null;

/** `git status --porcelain` lines (of `paths` only, when given); null outside a git checkout. */
export function gitDirtyPaths(paths: string[] = []): string[] | null {
  const out = git(['status', '--porcelain', ...(paths.length ? ['--', ...paths] : [])]);
  return out === null ? null : out.split('\n').filter(Boolean);
}

/** The load averages (1, 5, 15 min), to `digits` decimals when given. */
export const loadAverage = (digits?: number): number[] => os.loadavg().map((x) => (digits === undefined ? x : round(x, digits)));

export const cpuModel = (): string | null => os.cpus()[0]?.model ?? null;

/**
 * The machine block of bench:index, bench:ui and test:soak. `dirtyPaths` limits the dirty check to the code the
 * figures depend on; `loadDigits` rounds the load averages.
 */
export function machine(opts: { dirtyPaths?: string[]; loadDigits?: number } = {}) {
  return {
    cpu_model: cpuModel(),
    cpus: os.cpus().length,
    total_memory_bytes: os.totalmem(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    commit: gitCommit(),
    dirty_paths: gitDirtyPaths(opts.dirtyPaths) ?? [],
    load_average_start: loadAverage(opts.loadDigits),
  };
}

export type Machine = ReturnType<typeof machine>;
