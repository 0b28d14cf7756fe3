// `callscope proxy`: the capture middleware as a standalone loopback proxy in front of one upstream. It has
// no token, so a non-loopback address needs an explicit --allow-remote. SIGINT or SIGTERM stops accepting,
// lets calls in flight finish and their lines reach the disk, then exits; a second signal exits at once.
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCaptureHandler } from '../proxy/handler';
import { parseUpstreamUrl, UpstreamUrlError } from '../proxy/upstream';
import { UsageError, type CliIO } from './io';
import { isLoopbackHost } from './hosts';

const HELP = `usage: callscope proxy --upstream URL --capture-dir DIR [--port 8001] [--host 127.0.0.1]
                       [--model-server-name NAME] [--timeout SECONDS] [--allow-remote]

Forwards every request to URL. Calls to /ng-rollout/<id>/v1/responses, /v1/chat/completions and
/v1/messages are captured as one line each in DIR/<id>.capture.jsonl (NeMo Gym's format); the prefix is
stripped from every path. Point an agent's base URL at http://HOST:PORT/ng-rollout/<rollout-id>/v1.

  --upstream URL            the model server (http or https; a path in URL is put in front of every path)
  --capture-dir DIR         the CaptureStore directory (created if missing)
  --port N                  listening port (default 8001; 0 picks a free one)
  --host ADDR               listening address (default 127.0.0.1)
  --model-server-name NAME  recorded as model_ref {"type":"responses_api_models","name":NAME}
  --timeout SECONDS         give up on an upstream silent this long (default 0: never; long calls are normal)
  --allow-remote            allow a non-loopback --host (the proxy has no authentication)
`;

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port ${value}: not a port number`);
  return port;
}

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0) throw new UsageError(`--timeout ${value}: not a number of seconds`);
  return Math.round(seconds * 1000);
}

export async function runProxy(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      upstream: { type: 'string' },
      'capture-dir': { type: 'string' },
      port: { type: 'string', default: '8001' },
      host: { type: 'string', default: '127.0.0.1' },
      'model-server-name': { type: 'string' },
      timeout: { type: 'string', default: '0' },
      'allow-remote': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (!values.upstream) throw new UsageError('--upstream URL is required');
  if (!values['capture-dir']) throw new UsageError('--capture-dir DIR is required');
  try {
    parseUpstreamUrl(values.upstream);
  } catch (error) {
    if (error instanceof UpstreamUrlError) throw new UsageError(`--upstream ${error.message}`);
    throw error;
  }
  const port = parsePort(values.port!);
  const timeoutMs = parseTimeout(values.timeout!);
  const host = values.host!;
  if (!isLoopbackHost(host) && !values['allow-remote']) {
    throw new UsageError(`--host ${host} is not a loopback address and the proxy has no authentication; add --allow-remote to listen there anyway`);
  }
  const captureDir = path.resolve(values['capture-dir']);

  const handler = createCaptureHandler({
    upstream: values.upstream,
    captureDir,
    modelServerName: values['model-server-name'] ?? null,
    headersTimeoutMs: timeoutMs,
    bodyTimeoutMs: timeoutMs,
    warn: (message) => io.stderr.write(`callscope proxy: ${message}\n`),
  });
  if (!(await handler.ready)) throw new UsageError(`--capture-dir ${captureDir}: cannot create or open the directory`, 1);

  const server = http.createServer({ requestTimeout: 0 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UsageError(`--port ${port}: address ${host}:${port} is already in use`, 1) : error),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  io.stdout.write(`callscope proxy: forwarding http://${shownHost}:${actualPort} -> ${handler.upstreamOrigin}${new URL(values.upstream).pathname.replace(/\/+$/, '')}, capturing into ${captureDir}\n`);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143);
      stopping = true;
      io.stderr.write(`callscope proxy: ${signal}: finishing calls in flight (send it again to exit now)\n`);
      server.close();
      void handler.close().then(() => {
        server.closeAllConnections();
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}
