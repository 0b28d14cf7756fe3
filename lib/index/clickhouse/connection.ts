// `--clickhouse URL`: a ClickHouse server (`http(s)://host:port/database`, credentials from CALLSCOPE_CLICKHOUSE_USER
// and CALLSCOPE_CLICKHOUSE_PASSWORD, never from the URL and never printed) or the embedded engine of npm `chdb`
// (`chdb:DIR`, one process on one machine; tests and CI run the backend on it).
import path from 'node:path';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';

export type ClickhouseTarget =
  | { kind: 'http'; url: string; database: string; username: string | undefined; password: string | undefined }
  | { kind: 'chdb'; dir: string; database: string };

export class ClickhouseUrlError extends Error {
  override name = 'ClickhouseUrlError';
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The target a `--clickhouse` value names; throws ClickhouseUrlError with what is wrong. */
export function parseClickhouseUrl(value: string, env: NodeJS.ProcessEnv = process.env): ClickhouseTarget {
  if (value.startsWith('chdb:')) {
    const dir = value.slice('chdb:'.length);
    if (!dir) throw new ClickhouseUrlError('--clickhouse chdb:DIR needs a directory');
    return { kind: 'chdb', dir: path.resolve(dir), database: 'callscope' };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ClickhouseUrlError(`--clickhouse ${redact(value)}: not a URL (http(s)://host:port/database or chdb:DIR)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClickhouseUrlError(`--clickhouse: ${url.protocol} is not http: or https: (or chdb:DIR)`);
  if (url.username || url.password) {
    throw new ClickhouseUrlError('--clickhouse: put credentials in CALLSCOPE_CLICKHOUSE_USER and CALLSCOPE_CLICKHOUSE_PASSWORD, not in the URL');
  }
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, '')) || 'callscope';
  if (!IDENTIFIER.test(database)) throw new ClickhouseUrlError(`--clickhouse: database name '${database}' must be letters, digits and _`);
  url.pathname = '/';
  return { kind: 'http', url: url.toString(), database, username: env.CALLSCOPE_CLICKHOUSE_USER || undefined, password: env.CALLSCOPE_CLICKHOUSE_PASSWORD || undefined };
}

/** The target as it may be printed: never a credential. */
export function describeTarget(t: ClickhouseTarget): string {
  return t.kind === 'chdb' ? `chdb:${t.dir} (embedded)` : `${t.url}${t.database}${t.username ? ` as ${t.username}` : ''}`;
}

const redact = (v: string) => v.replace(/\/\/[^@/]*@/, '//***@');

/** Settings every query runs with: 64-bit integers as JSON numbers (token counts, offsets stay below 2^53). */
export const SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 0,
  do_not_merge_across_partitions_select_final: 1,
  // An alias named as a column (sum(x) AS x) does not stand for the column elsewhere in its query, as in SQLite.
  prefer_column_name_to_alias: 1,
};

/** A client for the target (the chdb engine is loaded only for a chdb: target: it is an optional dependency). */
export async function openClient(t: ClickhouseTarget): Promise<ClickHouseClient> {
  const { createClient, ClickHouseLogLevel } = await import('@clickhouse/client');
  if (t.kind === 'http') {
    return createClient({
      url: t.url,
      username: t.username,
      password: t.password,
      // Progress headers every 30 s keep a long query's connection open through a proxy or load balancer that
      // closes idle ones (the client's advice for a request timeout this long).
      clickhouse_settings: { ...SETTINGS, send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '30000' },
      request_timeout: 120_000,
      // Failures reach the caller, which reports them (a run's progress, the command's exit): the client's own log of
      // each one would repeat them on stderr, four times a second while a database is unreachable (the follow poll).
      log: { level: ClickHouseLogLevel.OFF },
    });
  }
  let createChdbConnection: (o: { path: string }) => unknown;
  try {
    ({ createChdbConnection } = (await import('chdb/connection')) as { createChdbConnection: (o: { path: string }) => unknown });
  } catch (err) {
    throw new ClickhouseUrlError(`--clickhouse chdb:...: the embedded engine (npm chdb, an optional dependency) is not installed: ${(err as Error).message}`);
  }
  return createClient({ connection: createChdbConnection({ path: t.dir }) as never, clickhouse_settings: SETTINGS });
}
