// Starts `callscope serve` as a child process in its own process group and waits for its URL.
import { spawn, type ChildProcess } from 'node:child_process';
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

/** `timeoutMs` bounds the start (incl. a dashboard build); `indexTimeoutMs` the first ingest after it. */
export function startServe(args: string[], timeoutMs = 300_000, indexTimeoutMs = 120_000): Promise<Served> {
  const child = spawn(process.execPath, ['bin/callscope.js', 'serve', '--port', '0', ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
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
    const onData = (d: Buffer) => {
      log += d.toString();
      const m = /serving .* on (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        void waitUntilIndexed(m[1], args, indexTimeoutMs).then(
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
