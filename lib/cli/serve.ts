// `callscope serve`: builds the dashboard when its build is missing or older than its sources, then serves
// it on a loopback address over the runs found in the given PATHs (the bundled demo data without PATHs).
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { UsageError, type CliIO } from './io';

const HELP = `usage: callscope serve [PATH...] [--port 3000] [--host 127.0.0.1] [--index-dir DIR] [--upstream URL] [--token T]

Serves the dashboard and API over the runs found in PATHs (rollouts files, capture dirs, or directories
holding them). Without PATH, serves the bundled demo data (generated on first use).
`;

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE_DIRS = ['app', 'components', 'lib'];
const SOURCE_FILES = ['next.config.mjs', 'package.json', 'tsconfig.json'];

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

async function newestMtime(p: string): Promise<number> {
  const st = await fsp.stat(p).catch(() => null);
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of await fsp.readdir(p)) newest = Math.max(newest, await newestMtime(path.join(p, e)));
  return newest;
}

/** True when `.next/BUILD_ID` is missing or older than any source file. */
export async function buildIsStale(root = PROJECT_ROOT): Promise<boolean> {
  const built = await fsp.stat(path.join(root, '.next', 'BUILD_ID')).catch(() => null);
  if (!built) return true;
  const sources = await Promise.all([...SOURCE_DIRS, ...SOURCE_FILES].map((p) => newestMtime(path.join(root, p))));
  return Math.max(...sources) > built.mtimeMs;
}

function runNextBuild(root: string, io: CliIO): Promise<void> {
  const nextBin = createRequire(path.join(root, 'package.json')).resolve('next/dist/bin/next');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => io.stderr.write(d));
    child.stderr.on('data', (d) => io.stderr.write(d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed with exit code ${code}`))));
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
  const paths: string[] = [];
  for (const p of positionals) {
    const st = await fsp.stat(p).catch(() => null);
    if (!st) throw new UsageError(`${p}: no such file or directory`);
    paths.push(path.resolve(p));
  }
  if (paths.length === 0) paths.push(await ensureDemo(io));
  process.env.CALLSCOPE_PATHS = JSON.stringify(paths);

  if (await buildIsStale()) {
    io.stderr.write('callscope: building the dashboard (first start, or sources changed)...\n');
    await runNextBuild(PROJECT_ROOT, io);
  }
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: PROJECT_ROOT, hostname: host, port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  io.stdout.write(`callscope: serving ${paths.join(', ')} on http://${shownHost}:${actualPort}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
