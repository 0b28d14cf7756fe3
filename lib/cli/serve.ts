// `callscope serve`: serves the dashboard on a loopback address over the runs found in the given PATHs (the
// bundled demo data without PATHs), and builds it first when its build is missing or older than its sources.
// It listens as soon as its input checks pass and the index is open: /api/runs and a call's record and raw line
// are answered from node:http (lib/server/direct-routes.ts) at once; while `next build` runs, pages get a
// self-reloading "building" page and other API paths a JSON 503 (lib/server/building.ts); while Next.js then
// loads, their requests wait for it. The guard and the request-shape check stand in front of all of it.
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { addCompileHints } from './compile-hints';
import { isLoopbackHost } from './hosts';
import { UsageError, type CliIO } from './io';
import { assertPortFree, checkServePaths, portInUse } from './serve-inputs';
import { answerWithoutDashboard, type DashboardState } from '../server/building';
import { makeDirectRoutes, warmDirectRoutes } from '../server/direct-routes';
import { makeGuard } from '../server/guard';
import { checkRequestShape } from '../server/request-shape';
import { setInstance, startInstance, type Instance } from '../server/instance';
import { nativeScanStatus } from '../index/scan/native';

const HELP = `usage: callscope serve [PATH...] [--port 3000] [--host 127.0.0.1] [--index-dir DIR] [--upstream URL] [--token T] [--poll]
                      [--clickhouse URL [--no-ingest]]

Serves the dashboard and API over the runs found in PATHs: rollouts files (ROLLOUTS.jsonl or
ROLLOUTS.jsonl=CAPTURE_DIR), capture dirs, or directories holding them. Without PATH, serves the bundled
demo data (generated on first use). The index lives in --index-dir (default .callscope/index).
With --upstream, also captures calls sent to /ng-rollout/<id>/v1/... into the first capture dir.
--poll follows every path by polling, as is done anyway for paths on network file systems (NFS, Lustre, ...).
--clickhouse keeps the index in ClickHouse: http(s)://host:port/database (credentials from
CALLSCOPE_CLICKHOUSE_USER and CALLSCOPE_CLICKHOUSE_PASSWORD) or chdb:DIR (the embedded engine). It serves
every run of the database whose files lie under the PATHs, and ingests the PATHs unless --no-ingest
(another process, e.g. \`callscope ingest\`, writes them).
`;

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE_DIRS = ['app', 'components', 'lib'];
const SOURCE_FILES = ['next.config.mjs', 'package.json', 'tsconfig.json'];
/** How often `serve` prints the first pass's progress while it runs. */
const PROGRESS_EVERY_MS = 5000;
/** How long requests under way at SIGINT/SIGTERM may run on before the connections still open are closed. */
const STOP_GRACE_MS = 1_000;

async function newestMtime(p: string): Promise<number> {
  const st = await fsp.stat(p).catch(() => null);
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of await fsp.readdir(p)) newest = Math.max(newest, await newestMtime(path.join(p, e)));
  return newest;
}

/**
 * Tests only: a Node script run in place of `next build` (the build then counts as stale, and the real build is
 * neither rewritten nor re-dated), so that a test can hold the first start's build step open as long as it needs.
 */
const FAKE_BUILD_ENV = 'CALLSCOPE_TEST_FAKE_BUILD';

/** True when `.next/BUILD_ID` is missing or older than any source file. */
export async function buildIsStale(root = PROJECT_ROOT): Promise<boolean> {
  if (process.env[FAKE_BUILD_ENV]) return true;
  const built = await fsp.stat(path.join(root, '.next', 'BUILD_ID')).catch(() => null);
  if (!built) return true;
  const sources = await Promise.all([...SOURCE_DIRS, ...SOURCE_FILES].map((p) => newestMtime(path.join(root, p))));
  return Math.max(...sources) > built.mtimeMs;
}

/**
 * Dates the build to when it started: BUILD_ID is written at the end, so a source edited while `next build`
 * ran would otherwise look older than the build and never be built.
 */
export async function dateBuild(startedMs: number, root = PROJECT_ROOT): Promise<void> {
  const t = startedMs / 1000;
  await fsp.utimes(path.join(root, '.next', 'BUILD_ID'), t, t);
}

function runNextBuild(root: string, io: CliIO): Promise<void> {
  const started = Date.now();
  const fake = process.env[FAKE_BUILD_ENV];
  const nextBin = fake ? null : createRequire(path.join(root, 'package.json')).resolve('next/dist/bin/next');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nextBin ? [nextBin, 'build'] : [fake!], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => io.stderr.write(d));
    child.stderr.on('data', (d) => io.stderr.write(d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`next build failed with exit code ${code}`));
      else if (nextBin) dateBuild(started, root).then(resolve, reject);
      else resolve();
    });
  });
}

async function ensureDemo(io: CliIO): Promise<string> {
  const dir = path.join(PROJECT_ROOT, '.callscope', 'demo');
  const marker = await fsp.stat(path.join(dir, '.callscope-demo')).catch(() => null);
  if (!marker) {
    const { runDemo } = await import('./demo');
    const code = await runDemo(['--out', dir], { stdout: io.stderr, stderr: io.stderr });
    if (code !== 0) throw new Error('could not generate the demo data');
  }
  return dir;
}

export async function runServe(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      'index-dir': { type: 'string' },
      upstream: { type: 'string' },
      token: { type: 'string' },
      poll: { type: 'boolean' },
      clickhouse: { type: 'string' },
      'no-ingest': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${values.port}: not a port number`);
  const host = values.host!;
  if (!isLoopbackHost(host) && !values.token) {
    throw new UsageError(`--host ${host} is not a loopback address; refusing to serve it without --token`);
  }
  const paths = await checkServePaths(positionals, (line) => io.stderr.write(`callscope: ${line}\n`), { capturing: values.upstream !== undefined });
  await assertPortFree(host, port);
  if (paths.length === 0) paths.push(await ensureDemo(io));
  const indexDir = path.resolve(values['index-dir'] ?? path.join('.callscope', 'index'));
  process.env.CALLSCOPE_PATHS = JSON.stringify(paths);
  process.env.CALLSCOPE_INDEX_DIR = indexDir;

  if (values['no-ingest'] && !values.clickhouse) throw new UsageError('--no-ingest needs --clickhouse (the SQLite index is written by the serve that reads it)');
  if (values.clickhouse) {
    const { parseClickhouseUrl, describeTarget } = await import('../index/clickhouse/connection');
    io.stderr.write(`callscope: index in ClickHouse at ${describeTarget(parseClickhouseUrl(values.clickhouse))}${values['no-ingest'] ? ' (not ingesting)' : ''}\n`);
  }
  const pending = startInstance(paths, indexDir, { poll: values.poll ? 'always' : undefined, log: (line) => io.stderr.write(`${line}\n`) }, { clickhouse: values.clickhouse, noIngest: values['no-ingest'] });
  setInstance(pending);
  const instance = await pending;
  void reportProgress(instance, io);
  try {
    return await listenAndServe(instance, paths, host, port, values.token, values.upstream, io);
  } finally {
    await instance.watcher?.close();
    await instance.index.close();
  }
}

async function listenAndServe(
  instance: Instance,
  paths: string[],
  host: string,
  port: number,
  token: string | undefined,
  upstream: string | undefined,
  io: CliIO,
): Promise<number> {
  const capture = upstream ? await mountCapture(upstream, instance, paths, io) : null;
  const guard = makeGuard({ host, port, token });
  const direct = makeDirectRoutes(instance.index);
  // While the build runs (or when it failed) pages and API paths that need Next are answered without it;
  // after it, while Next loads, their requests wait for it.
  let dashboard: DashboardState | null = (await buildIsStale()) ? 'building' : null;
  let startNext!: (handler: Promise<http.RequestListener>) => void;
  const nextHandler = new Promise<http.RequestListener>((resolve) => (startNext = resolve));
  nextHandler.catch(() => {}); // said on stderr where it fails
  let actualPort = port;
  const server = http.createServer((req, res) => {
    if (capture && (req.url ?? '').startsWith('/ng-rollout/')) return capture(req, res);
    if (!guard(req, res, actualPort) || !checkRequestShape(req, res) || direct(req, res)) return;
    if (dashboard) return answerWithoutDashboard(dashboard, req, res);
    nextHandler.then(
      (handle) => handle(req, res),
      () => answerWithoutDashboard('failed', req, res),
    );
  });
  server.requestTimeout = 0;
  // Idle keep-alive sockets outlive the clients' own timeout (undici: 4 s), so that a client never sends a
  // request on a socket the server is closing at that moment (seen as "other side closed" under load).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? portInUse(port) : err));
    server.listen(port, host, resolve);
  });
  const address = server.address();
  actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  io.stdout.write(`callscope: serving ${paths.join(', ')} on http://${shownHost}:${actualPort}\n`);
  warmDirectRoutes();
  const loadDashboard = async (stopped: () => boolean): Promise<http.RequestListener> => {
    if (dashboard === 'building') {
      const started = Date.now();
      io.stderr.write('callscope: building the dashboard (first start, or sources changed): pages answer "building" until it is done, /api/runs answers now...\n');
      try {
        await runNextBuild(PROJECT_ROOT, io);
      } catch (err) {
        dashboard = 'failed';
        io.stderr.write(`callscope serve: Error: the dashboard could not be built: ${(err as Error).message}\n`);
        throw err;
      }
      io.stderr.write(`callscope: dashboard built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
      dashboard = null;
    }
    if (stopped()) throw new Error('stopped');
    // Also over a build made by `next build` itself (npm run build): cheap when every chunk is marked already.
    // Only a speed-up: a build that cannot be written (a read-only install) is served as it is.
    await addCompileHints(PROJECT_ROOT).catch(() => 0);
    try {
      const { default: next } = await import('next');
      const app = next({ dev: false, dir: PROJECT_ROOT, hostname: host, port: actualPort });
      await app.prepare();
      io.stderr.write('callscope: dashboard ready\n');
      return app.getRequestHandler() as http.RequestListener;
    } catch (err) {
      io.stderr.write(`callscope serve: Error: the dashboard could not start: ${(err as Error).message}\n`);
      throw err;
    }
  };
  let stopped = false;
  startNext(loadDashboard(() => stopped));
  await new Promise<void>((resolve) => {
    const stop = () => {
      stopped = true;
      server.close(() => resolve());
      // Requests under way get a moment to finish; then every connection still open goes (an event stream, or a
      // keep-alive socket the server does not count idle), rather than holding the exit for keepAliveTimeout.
      setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS).unref();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await capture?.close();
  return 0;
}

/** Captures into the first capture dir found, or else into the first PATH that is a directory (a new run). */
async function mountCapture(upstream: string, instance: Instance, paths: string[], io: CliIO) {
  let dir = (await instance.index.listRuns()).find((r) => r.capture_dir)?.capture_dir ?? null;
  for (const p of paths) {
    if (dir) break;
    if (!p.includes('=') && (await fsp.stat(p).catch(() => null))?.isDirectory()) dir = p;
  }
  if (!dir) throw new UsageError('--upstream needs a capture dir (or a directory) among the PATHs to write into');
  const { createCaptureHandler } = await import('../proxy/handler');
  const handler = createCaptureHandler({ upstream, captureDir: dir, warn: (m) => io.stderr.write(`callscope capture: ${m}\n`) });
  io.stderr.write(`callscope: capturing /ng-rollout/<id>/v1/... into ${dir}, forwarding to ${upstream}\n`);
  return handler;
}

/** Prints how far the first full pass is every few seconds while it runs, then each run's outcome. */
export async function reportProgress(instance: Instance, io: CliIO): Promise<void> {
  const started = Date.now();
  io.stderr.write('callscope: indexing...\n');
  const native = nativeScanStatus();
  if (!native.loaded) io.stderr.write(`callscope: capture lines are read by the JavaScript scan (slower): ${native.error}\n`);
  const tick = async () => {
    if (instance.index.isClosed) return;
    const runs = await instance.index.listRuns();
    const done = runs.filter((r) => r.progress.state === 'ready' || r.progress.state === 'error').length;
    const sum = (k: 'files_read' | 'bytes_read' | 'lines_read') => runs.reduce((n, r) => n + r.progress[k], 0);
    io.stderr.write(`callscope: indexing: ${done} of ${runs.length} runs done, ${sum('files_read')} files, ${sum('lines_read')} lines, ${(sum('bytes_read') / 1e6).toFixed(1)} MB read\n`);
  };
  const ticker = setInterval(() => void tick().catch(() => undefined), PROGRESS_EVERY_MS);
  ticker.unref();
  await instance.ready.finally(() => clearInterval(ticker));
  if (instance.index.isClosed) return; // stopped before the pass ended
  for (const run of await instance.index.listRuns()) {
    const p = run.progress;
    const detail = p.state === 'error' ? `error: ${p.error}` : `${run.totals.rollouts} rollouts, ${run.totals.calls} calls`;
    io.stderr.write(`callscope:   ${run.id}: ${detail} (${(p.bytes_read / 1e6).toFixed(1)} MB read)\n`);
  }
  io.stderr.write(`callscope: index ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
