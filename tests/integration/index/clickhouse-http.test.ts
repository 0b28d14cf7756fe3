// The ClickHouse backend through @clickhouse/client's HTTP connection (`--clickhouse http://host:port/database`, as a
// team runs it against a server): every reader answer as the SQLite index's over the demo data and NeMo Gym-shaped
// files, the rows sent as Native bodies, credentials from the environment on every request and never printed, a
// refused password a clear failure. The server is ClickHouse's HTTP interface over the real engine
// (tests/support/clickhouse-http.ts: no ClickHouse server can run here).
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { ClickhouseIndex } from '../../../lib/index/clickhouse/clickhouse-index';
import { parseClickhouseUrl } from '../../../lib/index/clickhouse/connection';
import { startClickhouseHttp, type ClickhouseHttp } from '../../support/clickhouse-http';
import { runCli } from '../../support/cli';
import { useDemo } from '../../support/demo';
import { expectSameAnswers } from '../../support/index-parity';
import { FIXTURES } from '../../support/nemo-gym-data';

const fx = useDemo('callscope-clickhouse-http-');
const USER = 'team-a';
const PASSWORD = 'pw-7d1c0e-never-printed';
let server: ClickhouseHttp;

beforeAll(async () => {
  server = await startClickhouseHttp({ dir: path.join(fx.tmp, 'engine'), user: USER, password: PASSWORD });
});
afterAll(async () => {
  await server?.close();
});

const env = (password = PASSWORD) => ({ CALLSCOPE_CLICKHOUSE_USER: USER, CALLSCOPE_CLICKHOUSE_PASSWORD: password });

/** Runs `fn` with the credentials in process.env (as the command line reads them), restoring it after. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('the ClickHouse index over HTTP', () => {
  it('answers every reader call as the SQLite index, its rows sent as Native bodies with the credentials of the environment', async () => {
    const nemo = path.join(fx.tmp, 'nemo-gym');
    mkdirSync(nemo, { recursive: true });
    for (const f of FIXTURES.files) cpSync(f, path.join(nemo, path.basename(f)));
    const specs = [{ path: fx.demo }, { path: nemo }];
    const target = parseClickhouseUrl(`${server.url}callscope`, { ...process.env, ...env() });
    expect(target.kind).toBe('http');
    const sqlite = await CallscopeIndex.open(specs, path.join(fx.tmp, 'sqlite'));
    await sqlite.refresh();
    const ch = await ClickhouseIndex.open(target, specs, path.join(fx.tmp, 'work'), { ingest: true, minFiles: 1 }); // a pool for any new capture file: calls encoded by the workers
    // A serve replica: reads the same database, ingests nothing.
    const reader = await ClickhouseIndex.open(target, specs, path.join(fx.tmp, 'reader'), { ingest: false });
    try {
      await ch.refresh();
      // Every run's list; every other answer over two runs, one of the demo's and one of NeMo Gym's shapes (the chdb
      // suites compare all of them: here it is the transport that is under test).
      const runs = await sqlite.listRuns();
      expect((await ch.listRuns()).length).toBe(runs.length);
      const only = [runs.find((r) => !FIXTURES.files.some((f) => r.id.includes(path.basename(f, '.jsonl'))))!.id, runs.find((r) => r.id.includes(path.basename(FIXTURES.files[0], '.jsonl')))!.id];
      expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 3, only })).toBeGreaterThan(100);
      await reader.refresh();
      expect(await expectSameAnswers(sqlite, reader, { rolloutsPerRun: 1, only: only.slice(0, 1), progress: false })).toBeGreaterThan(50);
    } finally {
      await reader.close();
      await ch.close();
      sqlite.close();
    }
    const seen = server.requests;
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.every((r) => r.user === USER && r.authorized)).toBe(true);
    // Calls, rollouts and files went as binary Native bodies to `INSERT … FORMAT Native`, not through a file of the
    // engine's machine (the embedded engine's way).
    const natives = seen.filter((r) => /^INSERT INTO callscope\.(\w+) \(.+\) FORMAT Native$/.test(r.query));
    expect(new Set(natives.map((r) => /callscope\.(\w+)/.exec(r.query)![1]))).toEqual(new Set(['calls', 'rollouts', 'files', 'tool_calls', 'task_groups']));
    expect(natives.every((r) => r.dataBytes > 0)).toBe(true);
    expect(seen.some((r) => r.query.includes('file('))).toBe(false);
    // Query parameters went as parameters, never spliced into the SQL.
    expect(seen.some((r) => r.params.some((p) => p.startsWith('param_')))).toBe(true);
  }, 300_000);

  it('`callscope ingest --clickhouse http://…` ingests with the credentials of the environment and never prints them; a refused password fails naming the refusal', async () => {
    const url = `${server.url}callscope`;
    const ok = await withEnv(env(), () => runCli(['ingest', fx.demo, '--clickhouse', url, '--once', '--index-dir', path.join(fx.tmp, 'cli-work')]));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(`ingesting into ClickHouse at ${server.url}callscope as ${USER}`);
    expect(ok.stdout + ok.stderr).not.toContain(PASSWORD);

    // The failure is said once, by callscope: not again by the client's own log (nor its warnings at each start).
    const warn = vi.spyOn(console, 'warn');
    const error = vi.spyOn(console, 'error');
    const refused = await withEnv(env('wrong-password-also-secret'), () =>
      runCli(['ingest', fx.demo, '--clickhouse', url, '--once', '--index-dir', path.join(fx.tmp, 'cli-work-2')]),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^callscope ingest: ClickHouse at http:\/\/127\.0\.0\.1:\d+\/callscope as team-a: .*Authentication failed/m);
    expect(refused.stdout + refused.stderr).not.toContain('wrong-password-also-secret');
    expect(refused.stdout + refused.stderr).not.toContain(PASSWORD);
    const logged = [...warn.mock.calls, ...error.mock.calls].map((c) => c.join(' '));
    warn.mockRestore();
    error.mockRestore();
    expect(logged.filter((l) => l.includes('@clickhouse/client'))).toEqual([]);
  }, 120_000);
});
