// Whether compared runs are over the same tasks. Task indices are only positions in an input file (spec §8.3), so
// task 3 of one run is task 3 of another only when both ran the same tasks: they are when the runs name the same
// task (the rollouts' `task` column: task_id, instance_id, problem_id, question; rollout-line.ts) at every shared
// index compared, or, when no line names its task, when they were collected from identical materialized inputs
// (`X_materialized_inputs.jsonl`, spec §8.1). Otherwise the pairing says why not, and compare pairs nothing.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { Compare } from '../../api/compare-schemas';

/** Whether the runs are over the same tasks, so that pairing them by task index means something, and why (GET /api/compare's task_relation). */
export type TaskRelation = Compare['task_relation'];

/** A compared run: its index row, and its `X_materialized_inputs.jsonl` when discovery found one. */
export interface CompareRun {
  id: string;
  no: number;
  inputsFile?: string | null;
}

/** Shared task indices whose names are compared: evenly spread over them, so a compare stays a few index seeks. */
export const TASKS_SAMPLED = 256;

const quoted = (v: string | null) => (v === null ? 'unnamed' : JSON.stringify(v.length > 80 ? v.slice(0, 79) + '…' : v));

/** The shared task indices whose names are compared (at most TASKS_SAMPLED, evenly spread). */
export function taskSample(shared: number[]): number[] {
  const step = Math.max(1, shared.length / TASKS_SAMPLED);
  return [...new Set(Array.from({ length: Math.min(shared.length, TASKS_SAMPLED) }, (_, i) => shared[Math.floor(i * step)]))];
}

/** The same-task decision (see the header): names at the shared indices first, then the inputs files. */
export function taskRelation(db: Database.Database, runs: CompareRun[], shared: number[]): TaskRelation {
  if (runs.length < 2 || shared.length === 0) return relationOf(runs, shared, [], []);
  const sample = taskSample(shared);
  const names = db.prepare(
    'SELECT task_index, MIN(task) FROM rollouts WHERE run_no = ? AND task_index IN (SELECT value FROM json_each(?)) GROUP BY task_index',
  );
  return relationOf(runs, shared, sample, runs.map((r) => new Map(names.raw().all(r.no, JSON.stringify(sample)) as [number, string | null][])));
}

/**
 * The decision from each run's task names at the sampled indices (`byRun[i]`: task index to the smallest name of
 * run i's rollouts there, null or absent when none is named), whichever index they were read from.
 */
export function relationOf(runs: CompareRun[], shared: number[], sample: number[], byRun: Map<number, string | null>[]): TaskRelation {
  if (runs.length < 2) return { same: false, basis: null, reason: 'Pairing needs two or more runs.' };
  if (shared.length === 0) return { same: false, basis: null, reason: 'These runs share no task indices.' };
  let compared = 0;
  for (const t of sample) {
    const values = byRun.map((m) => m.get(t) ?? null);
    if (values.every((v) => v === null)) continue;
    const other = values.findIndex((v) => v !== values[0]);
    if (other >= 0) {
      return {
        same: false,
        basis: 'task_names',
        reason: `Unrelated tasks: task ${t} is ${quoted(values[0])} in ${runs[0].id} but ${quoted(values[other])} in ${runs[other].id}, so equal task indices are not the same task and no task is paired.`,
      };
    }
    compared++;
  }
  const of = sample.length < shared.length ? ` (${sample.length} of the ${shared.length} shared, evenly spread)` : '';
  if (compared > 0) return { same: true, basis: 'task_names', reason: `Same tasks: the runs name the same task at each of the ${compared} shared task indices compared${of}.` };
  const digests = runs.map((r) => (r.inputsFile ? inputsDigest(r.inputsFile) : null));
  if (digests.every((d) => d !== null && d === digests[0])) {
    return { same: true, basis: 'inputs_file', reason: 'Same tasks: the runs were collected from identical materialized inputs files (their lines name no task).' };
  }
  return {
    same: false,
    basis: null,
    reason: 'Unrelated tasks: no line names its task (task_id, instance_id, problem_id or question) and the runs share no materialized inputs file, so equal task indices need not be the same task and no task is paired.',
  };
}

const digests = new Map<string, { size: number; mtimeMs: number; digest: string | null }>();

/** A SHA-256 of the file's bytes (with its size, so files of different sizes differ without reading), kept per size and mtime. */
function inputsDigest(file: string): string | null {
  let st;
  try {
    st = statSync(file);
  } catch {
    return null;
  }
  const kept = digests.get(file);
  if (kept && kept.size === st.size && kept.mtimeMs === st.mtimeMs) return kept.digest;
  let digest: string | null = null;
  try {
    const hash = createHash('sha256');
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) hash.update(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    digest = `${st.size}:${hash.digest('hex')}`;
  } catch {
    digest = null;
  }
  digests.set(file, { size: st.size, mtimeMs: st.mtimeMs, digest });
  return digest;
}

