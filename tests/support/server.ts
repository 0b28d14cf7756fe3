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

export function startServe(args: string[], timeoutMs = 300_000): Promise<Served> {
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
        resolve({ url: m[1], child, output: () => log, stop });
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
