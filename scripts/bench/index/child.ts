// bench:index's children: what the parent hands each (`--child ROLE PARAMS`), and how it starts one.
import path from 'node:path';
import { runRole } from '../process';
import { ROOT } from '../paths';

export interface ChildParams {
  out: string;
  corpus?: string;
  indexDir?: string;
  seed?: string;
  reps?: number;
  coldReps?: number;
  huge?: HugeInfo;
  live?: { rate: number; seconds: number };
  sample?: string;
  /** The T2 corpus written from `corpus` (role trajectories). */
  dest?: string;
}

/** The I5 capture file with its huge line, and the sizes and hashes the children check what they serve against. */
export interface HugeInfo {
  root: string;
  rolloutKey: string;
  callId: string;
  lineBytes: number;
  lineSha256: string;
  requestBytes: number;
  requestSha256: string;
  responseSha256: string;
}

const ENTRY = path.join(ROOT, 'scripts', 'bench-index.ts');

/** Runs one role of bench:index in a fresh process (see scripts/bench/index/roles.ts). */
export function runChild(role: string, params: Omit<ChildParams, 'out'>, nodeFlags: string[] = []): Promise<Record<string, any>> {
  return runRole(ENTRY, role, params, nodeFlags);
}
