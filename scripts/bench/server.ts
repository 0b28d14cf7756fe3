// `callscope serve` as the benchmarks start it: a direct child in its own process group (stopped by signalling
// the group: `next start` children would otherwise keep the port), on a free port, timed from the spawn to the
// lines it prints and to its first answers. The dashboard build (.next) is shared with whoever else works in
// the checkout, so a start that meets a concurrent build waits and starts again.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { ROOT } from './paths';
import { now, sleep } from './time';

export interface Served {
  url: string;
  child: ChildProcess;
  log: () => string;
  stop: () => Promise<void>;
}

export type StartedServe = Served & { spawnedAt: number; timing: { listen_ms: number; ready_line_ms: number } };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Spawns `serve PATHS --index-dir DIR` and records when it printed that it listens and that its index is ready. */
export async function startServe(paths: string[], indexDir: string): Promise<StartedServe> {
  const port = await freePort();
  const spawnedAt = now();
  const child = spawn(process.execPath, ['bin/callscope.js', 'serve', ...paths, '--port', String(port), '--index-dir', indexDir], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const timing = { listen_ms: NaN, ready_line_ms: NaN };
  const onData = (d: Buffer) => {
    log += d;
    if (Number.isNaN(timing.listen_ms) && /serving .* on http/.test(log)) timing.listen_ms = now() - spawnedAt;
    if (Number.isNaN(timing.ready_line_ms) && /index ready in/.test(log)) timing.ready_line_ms = now() - spawnedAt;
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }, 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        resolve();
      }
    });
  return { url: `http://127.0.0.1:${port}`, child, log: () => log, stop, spawnedAt, timing };
}

export class ServeFailed extends Error {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
  }
}

/** Retries `start` while it fails because of another `next build` of this checkout (`when`), `waitMs` apart. */
export async function whileAnotherBuild<T>(start: () => Promise<T>, retry: { attempts: number; waitMs: number; when: (err: unknown) => boolean; note: () => void }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= retry.attempts || !retry.when(err)) throw err;
      retry.note();
      await sleep(retry.waitMs);
    }
  }
}

/** Starts `serve` and waits for its first 200 of /api/runs (`built`: that start built the dashboard). */
export async function startServeReady(paths: string[], indexDir: string) {
  let attempt = 0;
  return whileAnotherBuild(
    async () => {
      attempt++;
      const served = await startServe(paths, indexDir);
      try {
        const first = await firstOk(served, '/api/runs', served.spawnedAt, 600_000);
        return { served, first, attempt, built: /building the dashboard/.test(served.log()) };
      } catch (err) {
        await served.stop();
        throw err;
      }
    },
    {
      attempts: 6,
      waitMs: 30_000,
      when: (err) => err instanceof ServeFailed && /Another next build process|next build failed/.test(err.log),
      note: () => process.stderr.write(`bench: serve could not start (a concurrent dashboard build); retrying in 30 s\n`),
    },
  );
}

/** Polls a URL until it answers 200; the time of the first 200 since `since`. */
export async function firstOk(served: Served, route: string, since: number, timeoutMs: number): Promise<{ ms: number; body: any }> {
  const deadline = now() + timeoutMs;
  while (now() < deadline) {
    if (served.child.exitCode !== null || served.child.signalCode !== null) throw new ServeFailed(`serve exited:\n${served.log()}`, served.log());
    // `serve` reports a failed start (e.g. a failed dashboard build) but its watcher keeps the process alive.
    if (/callscope serve: Error/.test(served.log())) throw new ServeFailed(`serve failed to start:\n${served.log()}`, served.log());
    try {
      const res = await fetch(served.url + route);
      if (res.status === 200) {
        const body = await res.json();
        return { ms: now() - since, body };
      }
      await res.arrayBuffer();
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  throw new Error(`${route} did not answer 200 within ${timeoutMs} ms:\n${served.log().slice(-2000)}`);
}

/** Polls /api/runs until every run is indexed (ready or failed); its last answer. */
export async function waitReady(served: Served, timeoutMs: number): Promise<any> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const res = await fetch(served.url + '/api/runs');
    const body = (await res.json()) as { runs: { progress: { state: string } }[] };
    if (body.runs.length && body.runs.every((r) => r.progress.state === 'ready' || r.progress.state === 'error')) return body;
    if (now() > deadline) throw new Error('the server did not finish indexing in time');
    await sleep(100);
  }
}
