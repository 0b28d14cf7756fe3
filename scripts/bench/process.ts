// Child processes of the benchmarks. A measurement that needs a clean process (its own heap, its own RSS, its own
// event loop) runs as a role of a script started again with `--child ROLE PARAMS`; the child writes its result as
// JSON into the file named by `params.out`. Long-running targets are started and found by the first line they
// print (their URL).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './paths';

/** Runs `script --child role` under tsx (with `nodeFlags`), and resolves with the result it wrote. */
export function runRole<R>(script: string, role: string, params: object, nodeFlags: string[] = []): Promise<R> {
  const out = path.join(os.tmpdir(), `callscope-bench-${process.pid}-${role}-${Date.now()}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script, '--child', role, JSON.stringify({ ...params, out })], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`child ${role} exited with ${code ?? signal}`));
      try {
        const result = JSON.parse(readFileSync(out, 'utf8'));
        unlinkSync(out);
        resolve(result);
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * A benchmark script's entry: as a child (`--child ROLE PARAMS`) it answers that role; otherwise it runs `main`.
 * Either way an error is printed and the process exits 1.
 */
export function runBenchScript<P extends { out: string }>(roles: Record<string, (p: P) => Promise<unknown>>, main: () => Promise<void>): void {
  const childAt = process.argv.indexOf('--child');
  const run = childAt >= 0 ? answerRole(roles, process.argv[childAt + 1], process.argv[childAt + 2]).then(() => process.exit(0)) : main();
  run.catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** The child's side of runRole: runs `role` with the params it was given and writes its result. */
export async function answerRole<P extends { out: string }>(roles: Record<string, (p: P) => Promise<unknown>>, role: string, paramsJson: string): Promise<void> {
  const p = JSON.parse(paramsJson) as P;
  const result = await roles[role](p);
  writeFileSync(p.out, JSON.stringify(result));
}

export interface Started {
  proc: ChildProcess;
  url: string;
}

/** Starts `node args...` and resolves once the first line it prints gives `urlOf` a URL. */
export function startChild(args: string[], urlOf: (line: string) => string | null): Promise<Started> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        const url = urlOf(line);
        if (url) resolve({ proc, url });
      }
    });
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/** `callscope demo --out dir` of this size (and seed), its output on ours. */
export function generateDemo(dir: string, size: { rollouts: number; calls: number; seed?: string }): Promise<void> {
  const args = ['bin/callscope.js', 'demo', '--out', dir, '--rollouts', String(size.rollouts), '--calls', String(size.calls)];
  if (size.seed !== undefined) args.push('--seed', size.seed);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`callscope demo exited with ${code}`))));
  });
}
