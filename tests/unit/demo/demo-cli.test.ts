// `callscope demo` as users run it: reproducible output, exact sizing for benchmark corpora, and bad input
// refused with one line and exit code 2 before anything is written.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAttachment, collectCapture } from '../../../lib/capture/attachment';
import { serialize } from '../../../lib/capture/json-serialize';
import { main } from '../../../lib/cli/main';

let tmp: string;

function capture(): { io: { stdout: Writable; stderr: Writable }; stdout: () => string; stderr: () => string } {
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  const sink = (into: Buffer[]) =>
    new Writable({
      write(chunk, _enc, done) {
        into.push(Buffer.from(chunk));
        done();
      },
    });
  return {
    io: { stdout: sink(chunks.stdout), stderr: sink(chunks.stderr) },
    stdout: () => Buffer.concat(chunks.stdout).toString(),
    stderr: () => Buffer.concat(chunks.stderr).toString(),
  };
}

async function demo(...args: string[]) {
  const c = capture();
  const code = await main(['demo', ...args], c.io);
  return { code, stdout: c.stdout(), stderr: c.stderr() };
}

/** Every file under `dir` (relative path → bytes). */
async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await fsp.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full), await fsp.readFile(full));
  }
  return files;
}

const lineCount = (b: Buffer) => b.toString().split('\n').filter(Boolean).length;

beforeAll(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'callscope-demo-cli-'));
});

afterAll(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('callscope demo', () => {
  it('writes byte-identical output for the same seed, and different output for another seed', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((n) => path.join(tmp, `seed-${n}`));
    expect((await demo('--out', a)).code).toBe(0);
    expect((await demo('--out', b)).code).toBe(0);
    expect((await demo('--out', c, '--seed', 'another')).code).toBe(0);
    const [sa, sb, sc] = await Promise.all([a, b, c].map(snapshot));
    expect([...sa.keys()].sort()).toEqual([...sb.keys()].sort());
    for (const [file, bytes] of sa) expect(bytes.equals(sb.get(file)!), file).toBe(true);
    const rollouts = 'workplace-assistant/rollouts.jsonl';
    expect(sa.get(rollouts)!.equals(sc.get(rollouts)!)).toBe(false);
  });

  it('prints a short summary naming the runs, rollouts, calls, bytes and path', async () => {
    const out = path.join(tmp, 'summary');
    const { code, stdout, stderr } = await demo('--out', out);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(new RegExp(`wrote 8 runs, \\d+ rollouts, \\d+ calls, [\\d.]+ MB in [\\d.]+s to ${out}`));
    for (const run of ['workplace-assistant', 'math-with-judge', 'math-with-judge-step-2', 'swe-claude-code', 'tau2-retail', 'proxy-sessions', 'claude-code-agent', 'hermes-agent']) expect(stdout).toContain(run);
  });

  it('generates exactly --rollouts rollouts and --calls calls in one run named bench', async () => {
    const out = path.join(tmp, 'bench');
    const { code } = await demo('--out', out, '--rollouts', '50', '--calls', '400');
    expect(code).toBe(0);
    const files = await snapshot(out);
    expect(lineCount(files.get('bench/rollouts.jsonl')!)).toBe(50);
    const captures = [...files].filter(([f]) => f.startsWith('bench/captures/') && f.endsWith('.capture.jsonl'));
    expect(captures.reduce((n, [, bytes]) => n + lineCount(bytes), 0)).toBe(400);
    expect([...files.keys()].filter((f) => !f.startsWith('bench/'))).toEqual(['.callscope-demo']);
  });

  it('writes one long rollout (--rollouts 1) streamed, its requests bounded by compaction, its attachment equal to the file', async () => {
    const out = path.join(tmp, 'long');
    const calls = 2500;
    const { code, stderr } = await demo('--out', out, '--rollouts', '1', '--calls', String(calls));
    expect(code, stderr).toBe(0);
    const captureDir = path.join(out, 'bench', 'captures');
    const [file] = (await fsp.readdir(captureDir)).filter((f) => f.endsWith('.capture.jsonl'));
    const lines = (await fsp.readFile(path.join(captureDir, file), 'utf8')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(calls);
    // Without compaction the last request would resend ~2,500 turns (megabytes); with it every line stays small.
    expect(Math.max(...lines.map((l) => Buffer.byteLength(l)))).toBeLessThan(200_000);
    expect(lines.some((l) => l.includes('[The conversation was compacted: '))).toBe(true);
    const row = JSON.parse((await fsp.readFile(path.join(out, 'bench', 'rollouts.jsonl'), 'utf8')).trim());
    const expected = buildAttachment(row.ng_model_call_capture.rollout_id, await collectCapture([captureDir], row.ng_model_call_capture.rollout_id, false), false);
    expect(row.ng_model_call_capture.metrics.num_calls).toBe(calls);
    expect(JSON.stringify(row.ng_model_call_capture.metrics)).toBe(JSON.stringify(JSON.parse(serialize(expected.metrics as never))));
  }, 120_000);

  it('replaces an earlier demo output, leaving none of its files behind', async () => {
    const out = path.join(tmp, 'rerun');
    expect((await demo('--out', out, '--rollouts', '3', '--calls', '9')).code).toBe(0);
    expect((await demo('--out', out, '--rollouts', '2', '--calls', '4')).code).toBe(0);
    const files = await snapshot(out);
    expect(lineCount(files.get('bench/rollouts.jsonl')!)).toBe(2);
    expect([...files.keys()].filter((f) => f.endsWith('.capture.jsonl')).length).toBeLessThanOrEqual(2);
    expect(await fsp.readdir(tmp)).not.toContainEqual(expect.stringMatching(/\.demo-/));
  });

  it('refuses bad options with one line and exit code 2, writing nothing', async () => {
    const occupied = path.join(tmp, 'occupied');
    await fsp.mkdir(occupied);
    await fsp.writeFile(path.join(occupied, 'results.jsonl'), '{"reward": 1.0}\n');
    const file = path.join(tmp, 'a-file');
    await fsp.writeFile(file, 'x');
    const fresh = path.join(tmp, 'never-created');
    const before = await fsp.readdir(tmp);
    const cases = [
      ['--out', fresh, '--rollouts', '-3'],
      ['--out', fresh, '--rollouts=-3'],
      ['--out', fresh, '--calls', '-1'],
      ['--out', fresh, '--calls', '2.5'],
      ['--out', fresh, '--rollouts', '0'],
      ['--out', fresh, '--rollouts', 'many'],
      ['--out', fresh, '--bogus'],
      ['--out', fresh, 'extra-positional'],
      ['--out', occupied],
      ['--out', file],
    ];
    for (const args of cases) {
      const { code, stdout, stderr } = await demo(...args);
      expect(code, args.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(stderr).toMatch(/^callscope demo: /);
    }
    expect((await fsp.readdir(tmp)).sort()).toEqual(before.sort());
    expect(await fsp.readdir(occupied)).toEqual(['results.jsonl']);
    expect(await fsp.readFile(file, 'utf8')).toBe('x');
  });

  it('documents its options under --help', async () => {
    const { code, stdout } = await demo('--help');
    expect(code).toBe(0);
    for (const flag of ['--out', '--seed', '--rollouts', '--calls']) expect(stdout).toContain(flag);
  });
});
