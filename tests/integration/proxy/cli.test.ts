// `callscope proxy`: option checking (in process, through the CLI's main), and the real command in a child
// process: its start line, a captured call, and a clean stop on SIGTERM that lets a call in flight finish.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStrict } from '../../../lib/capture/json-parse';
import { main } from '../../../lib/cli/main';
import { messagesStream, MockUpstream, SSE_HEADERS } from '../../support/mock-upstream';
import { rawCall } from './harness';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = new MockUpstream();
  await mock.start();
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-cli-proxy-'));
});

afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const code = await main(args, { stdout, stderr });
  return { code, out, err };
}

describe('callscope proxy options', () => {
  it('is listed, and explains itself', async () => {
    expect((await run(['--help'])).out).toMatch(/proxy\s+run the standalone capture proxy/);
    const help = await run(['proxy', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--upstream URL');
    expect(help.out).toContain('/ng-rollout/<rollout-id>/v1');
  });

  it.each([
    [['--capture-dir', '/tmp/x'], /--upstream URL is required/],
    [['--upstream', 'http://127.0.0.1:1'], /--capture-dir DIR is required/],
    [['--upstream', 'ftp://h', '--capture-dir', '/tmp/x'], /only http and https/],
    [['--upstream', 'not a url', '--capture-dir', '/tmp/x'], /not a URL/],
    [['--upstream', 'http://u:p@h', '--capture-dir', '/tmp/x'], /credentials/],
    [['--upstream', 'http://h', '--capture-dir', '/tmp/x', '--port', '70000'], /not a port number/],
    [['--upstream', 'http://h', '--capture-dir', '/tmp/x', '--timeout=-1'], /not a number of seconds/],
    [['--upstream', 'http://h', '--capture-dir', '/tmp/x', '--host', '0.0.0.0'], /not a loopback address .* --allow-remote/],
    [['--upstream', 'http://h', '--capture-dir', '/tmp/x', '--bogus'], /Unknown option '--bogus'/],
  ])('%j is refused with a one-line error and exit code 2', async (args, message) => {
    const { code, err } = await run(['proxy', ...args]);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/^callscope proxy: /);
  });
});

describe('callscope proxy, running', () => {
  it('prints where it forwards, captures a call, and on SIGTERM lets the call in flight finish, then exits 0', async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const body = messagesStream();
    mock.set('cli', { headers: SSE_HEADERS, chunks: [body.slice(0, 500), body.slice(500)], gates: [undefined, gate] });
    const child = spawn(process.execPath, ['bin/callscope.js', 'proxy', '--upstream', mock.url, '--capture-dir', path.join(dir, 'cap'), '--port', '0', '--model-server-name', 'judge_model'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const started = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out);
      });
      child.once('exit', () => reject(new Error(`exited early: ${err}`)));
    });
    const m = /^callscope proxy: forwarding http:\/\/127\.0\.0\.1:(\d+) -> (\S+), capturing into (.+)\n$/.exec(started);
    expect(m).not.toBeNull();
    expect(m![2]).toBe(mock.url);
    expect(m![3]).toBe(path.join(dir, 'cap'));

    let chunks = 0;
    const call = rawCall(`http://127.0.0.1:${m![1]}/ng-rollout/cli-1/v1/messages`, {
      body: '{"model":"claude"}',
      headers: { 'x-mock-scenario': 'cli' },
      onChunk: () => {
        if (++chunks === 1) {
          child.kill('SIGTERM');
          setTimeout(openGate, 200);
        }
      },
    });
    const res = await call;
    expect(res.error).toBeNull();
    expect(res.body.toString()).toBe(body);
    expect(await exited).toBe(0);
    expect(err).toContain('SIGTERM: finishing calls in flight');
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(path.join(dir, 'cap', 'cli-1.capture.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(parseStrict(lines[0])).toMatchObject({ dialect: 'messages', model_ref: { type: 'responses_api_models', name: 'judge_model' }, error_category: null });
  });
});
