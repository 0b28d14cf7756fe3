import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolloutIdFromBody } from '../../../lib/capture/ids';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { line, makeExchange } from '../../support/exchange';
import { runCli } from '../../support/cli';
import { FIXTURES, TIERS } from '../../support/nemo-gym-data';

const NO_RECORDS = (id: string) =>
  `"ng_model_call_capture":{"rollout_id":"${id}","metrics":{"tokens_in":null,"tokens_out":null,"tokens_reasoning":null,"tokens_total":null,"cached_tokens":null,"latency_total_ms":null,"num_calls":0},"calls":[],"gaps":[{"code":"model_call_capture_no_records"}]}`;
let dir: string;
let captures: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-cli-'));
  captures = path.join(dir, 'captures');
  mkdirSync(captures);
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

// The string_match lines' ids, in the order their file has them (completion order).
const COMPLETION_ORDER = { fixtures: ['0-0', '2-0', '4-0', '1-0', '3-0'], real: ['0-0', '3-0', '4-0', '2-0', '1-0'] };

for (const data of TIERS) {
  describe.skipIf(!data.present)(`callscope attach on ${data.title}, with an empty capture dir`, () => {
    it('has the six shapes to test with', () => {
      expect(data.files.length).toBeGreaterThanOrEqual(6);
      for (const file of Object.values(data.file)) expect(existsSync(file), file).toBe(true);
    });

    it.each(data.files.map((f) => path.basename(f)))('%s: lines with an id gain no_records, the others pass byte for byte', async (name) => {
      const input = path.join(data.dir, name);
      const output = path.join(dir, 'out.jsonl');
      const r = await runCli(['attach', '--capture-dir', captures, '--input', input, '--output', output]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const inLines = readFileSync(input, 'utf8').split('\n').filter((l, i, a) => i < a.length - 1 || l !== '');
      const outLines = readFileSync(output, 'utf8').split('\n');
      expect(outLines.pop()).toBe('');
      expect(outLines).toHaveLength(inLines.length);
      inLines.forEach((text, i) => {
        const id = rolloutIdFromBody(parsePython(text));
        if (id === null) {
          expect(outLines[i]).toBe(text);
        } else {
          // Collector lines are orjson output, so the merged line is the same bytes plus the attachment at the end.
          expect(outLines[i]).toBe(serialize(parsePython(text)).slice(0, -1) + ',' + NO_RECORDS(id) + '}');
          if (text === serialize(parsePython(text))) expect(outLines[i].startsWith(text.slice(0, -1))).toBe(true);
        }
      });
    });

    it('string_match lines get ids from their indices, in completion order', async () => {
      const r = await runCli(['attach', '--capture-dir', captures, '--input', data.file.string_match]);
      const ids = r.stdout.trim().split('\n').map((l) => (parsePython(l) as { ng_model_call_capture: { rollout_id: string } }).ng_model_call_capture.rollout_id);
      expect(ids).toEqual(COMPLETION_ORDER[data.tier]);
    });
  });
}

describe('callscope attach with captures', () => {
  it('attaches metrics and calls, with payloads only under --include-payloads', async () => {
    writeFileSync(path.join(captures, '0-0.capture.jsonl'), line(makeExchange({ response: { usage: { input_tokens: 4, output_tokens: 1 } } })) + '{bad\n');
    const input = path.join(dir, 'rollouts.jsonl');
    writeFileSync(input, '{"reward":1.0,"_ng_task_index":0,"_ng_rollout_index":0}\n\n{"reward":0.0}\n');
    const plain = await runCli(['attach', '--capture-dir', captures, '--input', input]);
    const lines = plain.stdout.split('\n');
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('{"reward":0.0}');
    const attached = parsePython(lines[0]) as { ng_model_call_capture: { metrics: { tokens_in: number }; calls: object[]; gaps: object[] } };
    expect(attached.ng_model_call_capture.metrics.tokens_in).toBe(4);
    expect(attached.ng_model_call_capture.gaps).toEqual([{ code: 'model_call_capture_records_unreadable', detail: 'count=1' }]);
    expect(Object.keys(attached.ng_model_call_capture.calls[0])).not.toContain('request');
    const withPayloads = await runCli(['attach', '--capture-dir', captures, '--input', input, '--include-payloads']);
    expect(Object.keys((parsePython(withPayloads.stdout.split('\n')[0]) as typeof attached).ng_model_call_capture.calls[0])).toContain('request_raw');
  });
});

describe('callscope attach: bad input', () => {
  const input = () => {
    const p = path.join(dir, 'rollouts.jsonl');
    writeFileSync(p, '{"_ng_task_index":0,"_ng_rollout_index":0}\n');
    return p;
  };

  it.each([
    ['a missing input file', () => ['--capture-dir', captures, '--input', path.join(dir, 'nope.jsonl')], /input .*nope\.jsonl: no such file/],
    ['a missing capture dir', () => ['--capture-dir', path.join(dir, 'nodir'), '--input', input()], /capture dir .*nodir: no such directory/],
    ['a capture dir that is a file', () => ['--capture-dir', input(), '--input', input()], /not a directory/],
    ['a directory that is not a capture dir', () => ['--capture-dir', dir, '--input', input()], /not a capture dir \(it holds rollouts\.jsonl/],
    ['a missing --input', () => ['--capture-dir', captures], /--input is required/],
    ['an unknown option', () => ['--capture-dir', captures, '--input', input(), '--bogus'], /Unknown option '--bogus'/],
  ])('%s: one-line error, exit 2, nothing written', async (_name, args, message) => {
    const out = path.join(dir, 'out.jsonl');
    const r = await runCli(['attach', ...args(), '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ['an invalid explicit id', '{"_ng_rollout_id":"../etc","_ng_task_index":0,"_ng_rollout_index":0}', /rollouts\.jsonl:2: _ng_rollout_id must be/],
    ['an id the store rejects', '{"_ng_task_index":"a/b","_ng_rollout_index":0}', /rollouts\.jsonl:2: Invalid rollout id: 'a\/b-0'/],
    ['a line that is not JSON', '{"reward": 1', /rollouts\.jsonl:2: not a JSON rollout line/],
  ])('%s names file and line, exits 2 and leaves the existing output untouched', async (_name, bad, message) => {
    const p = path.join(dir, 'rollouts.jsonl');
    writeFileSync(p, '{"_ng_task_index":0,"_ng_rollout_index":0}\n' + bad + '\n');
    const out = path.join(dir, 'out.jsonl');
    writeFileSync(out, 'previous results\n');
    const r = await runCli(['attach', '--capture-dir', captures, '--input', p, '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(out, 'utf8')).toBe('previous results\n');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('refuses to write the output over its input', async () => {
    const p = input();
    const r = await runCli(['attach', '--capture-dir', captures, '--input', p, '--output', p]);
    expect(r.code).toBe(2);
    expect(readFileSync(p, 'utf8')).toBe('{"_ng_task_index":0,"_ng_rollout_index":0}\n');
  });
});

describe('the installed command', () => {
  it('npm run callscope -- attach works end to end through bin/callscope.js', () => {
    const r = spawnSync(process.execPath, ['bin/callscope.js', 'attach', '--capture-dir', captures, '--input', FIXTURES.file.string_match], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(5);
    const bad = spawnSync(process.execPath, ['bin/callscope.js', 'attach', '--input', 'x'], { cwd: path.resolve(import.meta.dirname, '../../..'), encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('callscope attach: --capture-dir is required\n');
  });
});
