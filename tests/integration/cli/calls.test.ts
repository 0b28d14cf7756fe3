import { mkdtempSync, promises as fsp, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseStrict } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { RECORD_FIELDS } from '../../../lib/capture/record';
import { line, makeExchange } from '../../support/exchange';
import { runCli } from '../../support/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-calls-'));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

describe('callscope calls', () => {
  it('prints records in field order, reports damaged lines with their line numbers, keeps going', async () => {
    writeFileSync(
      path.join(dir, '4-2.capture.jsonl'),
      line(makeExchange({ model_call_id: 'a', response: { usage: { prompt_tokens: 5, completion_tokens: 3 } } })) + '\n{bad\n' + line(makeExchange({ model_call_id: 'b' })),
    );
    const r = await runCli(['calls', '--capture-dir', dir, '--rollout-id', '4-2']);
    expect(r.code).toBe(0);
    const records = r.stdout.trim().split('\n').map((l) => parseStrict(l) as Record<string, unknown>);
    expect(records.map((x) => [x.model_call_id, x.call_index, x.tokens_total])).toEqual([
      ['a', 0, 8],
      ['b', 2, null],
    ]);
    expect(Object.keys(records[0])).toEqual(RECORD_FIELDS.filter((f) => !['request', 'response', 'request_raw', 'response_raw'].includes(f)));
    expect(r.stderr).toContain('4-2.capture.jsonl:3: unreadable line (call_index 1)');
    expect(r.stderr).toContain('model_call_capture_records_unreadable count=1');
  });

  it('--include-payloads prints the payload keys, null when absent', async () => {
    writeFileSync(path.join(dir, 'x.capture.jsonl'), line(makeExchange({ request_raw: 'oops', request: null })));
    const r = await runCli(['calls', '--capture-dir', dir, '--rollout-id', 'x', '--include-payloads']);
    const rec = parseStrict(r.stdout.trim()) as Record<string, unknown>;
    expect(Object.keys(rec)).toEqual([...RECORD_FIELDS]);
    expect([rec.request, rec.request_raw, rec.response_raw]).toEqual([null, 'oops', null]);
    expect(serialize(rec.response as never)).toBe('{}');
  });

  it('reports the incomplete marker', async () => {
    writeFileSync(path.join(dir, 'm.capture.incomplete'), '');
    const r = await runCli(['calls', '--capture-dir', dir, '--rollout-id', 'm']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('model_call_capture_incomplete');
  });

  it.each([
    ['an invalid id', ['--rollout-id', '../etc/passwd'], 2, /--rollout-id: Invalid rollout id: '\.\.\/etc\/passwd'/],
    ['an empty id', ['--rollout-id', ''], 2, /Invalid rollout id: ''/],
    ['an id without capture', ['--rollout-id', 'nothing-here'], 1, /no capture for rollout 'nothing-here'/],
    ['a missing --rollout-id', [], 2, /--rollout-id is required/],
  ])('%s: one-line error and a non-zero exit', async (_n, args, code, message) => {
    const r = await runCli(['calls', '--capture-dir', dir, ...args]);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a missing capture dir is a one-line error', async () => {
    const r = await runCli(['calls', '--capture-dir', path.join(dir, 'missing'), '--rollout-id', 'a']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/capture dir .*missing: no such directory/);
  });
});
