// Starts `callscope serve` as a child process in its own process group and waits for its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Served {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Polls /api/runs until every run's first ingest is done. */
async function waitUntilIndexed(url: string, args: string[], timeoutMs = 120_000): Promise<void> {
  const i = args.indexOf('--token');
  const headers: Record<string, string> = i >= 0 ? { authorization: `Bearer ${args[i + 1]}` } : {};
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(url + '/api/runs', { headers }).catch(() => null);
    if (res?.ok) {
      const { runs } = (await res.json()) as { runs: { progress: { state: string } }[] };
      if (runs.every((r) => r.progress.state === 'ready' || r.progress.state === 'error')) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the index did not finish its first pass in time');
}

/** Polls /api/health until the dashboard answers it (serve answers 503 while it builds the dashboard). */
async function waitForDashboard(url: string, args: string[], timeoutMs: number): Promise<void> {
  const i = args.indexOf('--token');
  const headers: Record<string, string> = i >= 0 ? { authorization: `Bearer ${args[i + 1]}` } : {};
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(url + '/api/health', { headers }).catch(() => null);
    await res?.body?.cancel();
    if (res && res.status !== 503) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the dashboard was not ready in time');
}

export interface ServeOptions {
  /** Extra environment of the serve process. */
  env?: Record<string, string>;
  /** Resolve once the index is ready, without waiting for the dashboard (default: wait for both). */
  indexOnly?: boolean;
}

/**
 * The index backend the suites run against: SQLite (the default), or with CALLSCOPE_TEST_BACKEND=clickhouse the
 * ClickHouse backend on the embedded engine, each `serve` with a database of its own (scripts/test.mjs runs the API
 * and browser suites both ways).
 */
export const TEST_BACKEND = process.env.CALLSCOPE_TEST_BACKEND === 'clickhouse' ? 'clickhouse' : 'sqlite';

/** `timeoutMs` bounds the start (incl. a dashboard build); `indexTimeoutMs` the first ingest after it. */
export function startServe(args: string[], timeoutMs = 300_000, indexTimeoutMs = 120_000, options: ServeOptions = {}): Promise<Served> {
  const env = options.env ? { ...process.env, ...options.env } : process.env;
  let database: string | null = null;
  if (TEST_BACKEND === 'clickhouse' && !args.includes('--clickhouse')) {
    database = mkdtempSync(path.join(os.tmpdir(), 'callscope-chdb-'));
    args = [...args, '--clickhouse', `chdb:${database}`];
  }
  const child = spawn(process.execPath, ['bin/callscope.js', 'serve', '--port', '0', ...args], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const started = Date.now();
  let log = '';
  const removeDatabase = () => {
    if (database) rmSync(database, { recursive: true, force: true });
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) {
        removeDatabase();
        return resolve();
      }
      child.once('exit', () => {
        removeDatabase();
        resolve();
      });
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        resolve();
      }
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`serve did not start in time:\n${log}`));
    }, timeoutMs);
    let matched = false;
    const onData = (d: Buffer) => {
      log += d.toString(); // kept after the URL too: output() holds what serve printed later (build, index)
      const m = matched ? null : /serving .* on (http:\/\/\S+)/.exec(log);
      if (m) {
        matched = true;
        clearTimeout(timer);
        void waitUntilIndexed(m[1], args, indexTimeoutMs)
          .then(() => (options.indexOnly ? undefined : waitForDashboard(m[1], args, Math.max(timeoutMs - (Date.now() - started), indexTimeoutMs))))
          .then(
            () => resolve({ url: m[1], child, output: () => log, stop }),
            (err) => {
              void stop();
              reject(err);
            },
          );
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${log}`));
    });
  });
}
