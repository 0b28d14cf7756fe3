// ClickHouse's HTTP interface (https://clickhouse.com/docs/interfaces/http), served over the embedded engine (npm
// chdb), so that `--clickhouse http://…` runs through @clickhouse/client's HTTP connection end to end: the request
// each call makes (the query in the body or in `query=`, settings and `param_*` in the URL or a multipart body, an
// insert's data as the body, Basic credentials), and the answers and errors the client parses. No ClickHouse server
// can run here (no Docker; Debian's is 18.16, the index needs ≥ 24.8), so this stands in for one; what it runs is the
// real engine's SQL. One per process, as chdb binds one data directory per process.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';

interface ChdbSession {
  queryAsync(sql: string, opts?: { format?: string }): Promise<{ bytes(): Uint8Array; rowsRead?: number; bytesRead?: number }>;
}

/** One request as the server saw it (for a test to check what the client sent). */
export interface SeenRequest {
  /** The SQL asked for: the `query` URL parameter, else the body (or its multipart `query` part). */
  query: string;
  /** Bytes of the body that were data (an insert's rows), not the query. */
  dataBytes: number;
  /** The user named by the request's credentials, or null. */
  user: string | null;
  /** Whether the credentials were the server's. */
  authorized: boolean;
  /** URL parameters other than the query (settings, param_*), names only. */
  params: string[];
}

export interface ClickhouseHttp {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Settings of the HTTP layer, not the engine's (the server consumes them; SET would refuse some). */
const HTTP_ONLY = new Set([
  'wait_end_of_query', 'send_progress_in_http_headers', 'http_headers_progress_interval_ms', 'enable_http_compression',
  'http_zlib_compression_level', 'http_native_compression_disable_checksumming_on_decompress', 'http_response_buffer_size',
]);
/** Request parameters that are neither settings nor query parameters. */
const REQUEST_PARAMS = new Set(['query', 'database', 'query_id', 'session_id', 'session_timeout', 'session_check', 'role', 'default_format', 'user', 'password']);

const INSERT_NATIVE = /^\s*(INSERT\s+INTO\s+[\s\S]+?)\s+FORMAT\s+Native\s*$/i;

/** A ClickHouse SQL string literal of `s`. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export async function startClickhouseHttp(options: { dir: string; user: string; password: string }): Promise<ClickhouseHttp> {
  const require = createRequire(import.meta.url);
  const { Session } = require('chdb') as { Session: new (dir: string) => ChdbSession };
  mkdirSync(options.dir, { recursive: true });
  const session = new Session(options.dir);
  const spool = `${options.dir}.http-bodies`;
  mkdirSync(spool, { recursive: true });
  const requests: SeenRequest[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void answer(req, Buffer.concat(chunks)).then(
        ({ status, body, headers }) => {
          res.writeHead(status, { 'Content-Type': 'text/plain; charset=UTF-8', ...headers });
          res.end(body);
        },
        (err: Error) => {
          res.writeHead(500, { 'Content-Type': 'text/plain; charset=UTF-8' });
          res.end(`Code: 1000. DB::Exception: ${err.message}. (POCO_EXCEPTION)\n`);
        },
      );
    });
  });

  async function answer(req: http.IncomingMessage, body: Buffer): Promise<{ status: number; body: Buffer | string; headers?: Record<string, string> }> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping') return { status: 200, body: 'Ok.\n' };
    const { user, password } = credentials(req);
    const authorized = user === options.user && password === options.password;
    const values = new Map<string, string>(url.searchParams);
    let queryText: string;
    let data: Buffer | null = null;
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      for (const [name, value] of multipart(body, type)) values.set(name, value);
      queryText = values.get('query') ?? '';
    } else if (values.has('query')) {
      queryText = values.get('query')!;
      data = body;
    } else queryText = body.toString('utf8');
    const params = [...values.keys()].filter((k) => k !== 'query');
    requests.push({ query: queryText, dataBytes: data?.length ?? 0, user, authorized, params });
    if (!authorized) {
      return {
        status: 403,
        body: `Code: 516. DB::Exception: ${user ?? 'default'}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)\n`,
        headers: { 'X-ClickHouse-Exception-Code': '516' },
      };
    }
    const sets: string[] = [];
    for (const [k, v] of values) {
      if (k.startsWith('param_')) sets.push(`SET ${k} = ${literal(v)}`);
      else if (!REQUEST_PARAMS.has(k) && !HTTP_ONLY.has(k)) sets.push(`SET ${k} = ${/^-?\d+(\.\d+)?$/.test(v) ? v : literal(v)}`);
    }
    let sql = queryText;
    let file: string | null = null;
    const native = INSERT_NATIVE.exec(queryText);
    if (data && data.length && native) {
      // The engine takes binary rows from a file (its SQL is text): the same bytes, read by the same Native reader.
      file = path.join(spool, `${randomUUID()}.native`);
      writeFileSync(file, data);
      sql = `${native[1]} SELECT * FROM file(${literal(file)}, Native)`;
    } else if (data && data.length) sql = `${queryText}\n${data.toString('utf8')}`;
    const queryId = values.get('query_id') ?? randomUUID();
    try {
      const result = await session.queryAsync([...sets, sql].join(';\n'), { format: values.get('default_format') ?? 'TabSeparated' });
      const summary = { read_rows: String(result.rowsRead ?? 0), read_bytes: String(result.bytesRead ?? 0), written_rows: '0', written_bytes: '0', total_rows_to_read: '0', result_rows: '0', result_bytes: '0', elapsed_ns: '0' };
      return { status: 200, body: Buffer.from(result.bytes()), headers: { 'X-ClickHouse-Query-Id': queryId, 'X-ClickHouse-Summary': JSON.stringify(summary) } };
    } catch (err) {
      const message = (err as Error).message;
      const code = /^Code: (\d+)\./.exec(message)?.[1] ?? '1001';
      return { status: 500, body: message.endsWith('\n') ? message : `${message}\n`, headers: { 'X-ClickHouse-Exception-Code': code, 'X-ClickHouse-Query-Id': queryId } };
    } finally {
      if (file) rmSync(file, { force: true });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(spool, { recursive: true, force: true });
    },
  };
}

/** The user and password of a request: Basic credentials, else X-ClickHouse-User / X-ClickHouse-Key. */
function credentials(req: http.IncomingMessage): { user: string | null; password: string | null } {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const text = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const at = text.indexOf(':');
    return { user: text.slice(0, at), password: text.slice(at + 1) };
  }
  const user = req.headers['x-clickhouse-user'];
  const key = req.headers['x-clickhouse-key'];
  return { user: typeof user === 'string' ? user : null, password: typeof key === 'string' ? key : null };
}

/** The fields of a multipart/form-data body (the client sends long query parameters this way). */
function multipart(body: Buffer, type: string): [string, string][] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  if (!boundary) return [];
  const out: [string, string][] = [];
  for (const part of body.toString('utf8').split(`--${boundary[1] ?? boundary[2]}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const name = /name="([^"]+)"/.exec(part.slice(0, split))?.[1];
    if (name) out.push([name, part.slice(split + 4).replace(/\r\n$/, '')]);
  }
  return out;
}
