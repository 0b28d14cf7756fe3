// The three API routes `serve` answers from node:http before Next.js, behind the same guard and with the same
// contract as their route files under app/api (which `next dev` still uses):
// - GET /api/runs, so that the first API answer comes as soon as the index is open, not after Next has
//   loaded (most of a warm start), nor after a first start's `next build`;
// - GET .../calls/{call}/raw, the stored line piped from its byte span with 1 MiB reads: the Next route's
//   web stream moved a very large line several times slower than a node pipe, which moves it at disk speed;
// - GET .../calls/{call}, the call record around its request and response spans, written as it is read: the
//   payload view of a large request spent most of its wait in the Next route's web stream.
// Ids are validated by the API's schemas and only locate rows in the index; the file read is the path the
// index stored for that row, never one taken from the request. The schemas (zod is slow to load) are loaded
// after the server listens, not before.
import { promises as fsp, type promises } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallscopeIndex } from '../index/index';

type ErrorCode = keyof typeof import('../api/error-codes').ERROR_CODES;

const api = () => Promise.all([import('../api/error-codes'), import('../api/schemas')]).then(([errors, schemas]) => ({ ...errors, ...schemas }));

/** Loads the API's schemas and error codes (call once the server listens). */
export function warmDirectRoutes(): void {
  void api();
}

const RAW = /^\/api\/runs\/([^/]+)\/rollouts\/([^/]+)\/calls\/([^/]+)\/raw$/;
const CALL = /^\/api\/runs\/([^/]+)\/rollouts\/([^/]+)\/calls\/([^/]+)$/;
const READ_CHUNK = 1 << 20;

async function sendError(res: ServerResponse, code: ErrorCode, message: string): Promise<void> {
  const { ERROR_CODES } = await api();
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(ERROR_CODES[code], { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function segment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // not valid percent-encoding: the schema refuses the '%'
  }
}

async function raw(index: CallscopeIndex, m: RegExpExecArray, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { RunIdSchema, RolloutKeySchema, CallIdSchema, notFound } = await api();
  const run = RunIdSchema.parse(segment(m[1]));
  const rollout = RolloutKeySchema.parse(segment(m[2]));
  const call = CallIdSchema.parse(segment(m[3]));
  const span = index.rawLocation(run, rollout, call);
  if (!span) throw notFound(`stored capture line of call '${call}'`);
  const file = span.length > 0 ? await fsp.open(span.path, 'r').catch(() => null) : null;
  if (span.length > 0 && !file) throw notFound(`stored capture line of call '${call}'`);
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'content-length': String(span.length) };
  if (url.searchParams.get('download') !== null) headers['content-disposition'] = `attachment; filename="${rollout}-${call}.jsonl"`;
  res.writeHead(200, headers);
  if (!file || req.method === 'HEAD') {
    await file?.close();
    res.end();
    return;
  }
  await pump(file, span.start, span.length, res).finally(() => file.close());
}

async function call(index: CallscopeIndex, m: RegExpExecArray, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { RunIdSchema, RolloutKeySchema, CallIdSchema, notFound } = await api();
  const run = RunIdSchema.parse(segment(m[1]));
  const rollout = RolloutKeySchema.parse(segment(m[2]));
  const id = CallIdSchema.parse(segment(m[3]));
  const body = await index.callDetail(run, rollout, id);
  if (!body) throw notFound(`call '${id}' of rollout '${rollout}'`);
  if (body.kind === 'json') {
    const { serialize } = await import('../capture/json');
    const text = serialize(body.record);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
    return;
  }
  const { streamParts } = await import('../index/payload');
  const parts = streamParts(body.parts);
  // The first part is read before the status is sent, so that a file gone missing is still an error answer.
  let next = await parts.next();
  res.writeHead(200, { 'content-type': 'application/json' });
  if (req.method === 'HEAD') {
    await parts.return(undefined);
    res.end();
    return;
  }
  let closed = false;
  res.once('close', () => (closed = true));
  try {
    while (!next.done && !closed) {
      if (!res.write(next.value)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      next = await parts.next();
    }
  } finally {
    if (!next.done) await parts.return(undefined);
  }
  res.end();
}

/**
 * Copies a byte span to the response through two reused 1 MiB buffers: one is read while the other is being
 * written. A read stream allocates a new buffer per chunk, and in a process holding Next.js that external
 * memory pressure triggered full GCs over and over while a large line was sent.
 */
async function pump(file: promises.FileHandle, start: number, length: number, res: ServerResponse): Promise<void> {
  const buffers = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)];
  const written: Promise<void>[] = [Promise.resolve(), Promise.resolve()];
  let closed = false;
  res.once('close', () => (closed = true));
  for (let pos = start, end = start + length, i = 0; pos < end && !closed; i ^= 1) {
    await written[i];
    const { bytesRead } = await file.read(buffers[i], 0, Math.min(READ_CHUNK, end - pos), pos);
    if (bytesRead === 0) throw new Error('capture file shorter than its indexed span');
    pos += bytesRead;
    written[i] = new Promise((resolve) => res.write(buffers[i].subarray(0, bytesRead), () => resolve()));
  }
  await Promise.all(written);
  res.end();
}

/** Returns a handler that answers its routes and returns true, or returns false for anything else. */
export function makeDirectRoutes(index: CallscopeIndex): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = new URL(req.url ?? '/', 'http://local');
    const answer = (fn: () => Promise<void>) => {
      fn().catch(async (err) => {
        const known = (await api()).toApiError(err);
        if (!known) console.error('callscope api:', err);
        if (res.headersSent) res.destroy();
        else if (known) await sendError(res, known.code, known.message);
        else await sendError(res, 'internal', 'internal error');
      });
      return true;
    };
    if (url.pathname === '/api/runs') {
      return answer(async () => {
        const body = JSON.stringify({ runs: index.listRuns() });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      });
    }
    const m = RAW.exec(url.pathname);
    if (m) return answer(() => raw(index, m, url, req, res));
    const c = CALL.exec(url.pathname);
    return c ? answer(() => call(index, c, req, res)) : false;
  };
}
