import { mkdtempSync, promises as fsp, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildAttachment, collectCapture } from '../../../lib/capture/attachment';
import { mergeCaptureIntoLine } from '../../../lib/rollouts/merge-capture';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { line, makeExchange } from '../../support/exchange';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-attach-'));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

const attach = async (id: string, includePayloads = false, dirs = [dir]) => buildAttachment(id, await collectCapture(dirs, id, includePayloads), includePayloads);
const gaps = async (id: string) => (await attach(id)).gaps ?? null;

const callA = makeExchange({
  model_call_id: 'call-A',
  model_ref: { type: 'responses_api_models', name: 'A' },
  started_at: parseStrict('100.0') as never,
  completed_at: 100.01,
  request: { input: 'question' },
  response: { id: 'resp-A', model: 'm', status: 'completed', usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } },
  request_raw: 'malformed request',
  response_raw: 'malformed response',
});

describe('§5.1 the attachment', () => {
  it('attaches metrics and calls without payload keys; exactly {rollout_id, metrics, calls} when there are no gaps', async () => {
    writeFileSync(path.join(dir, '0-0.capture.jsonl'), line(callA));
    const a = await attach('0-0');
    expect(Object.keys(a)).toEqual(['rollout_id', 'metrics', 'calls']);
    expect(serialize(a)).toBe(
      '{"rollout_id":"0-0","metrics":{"tokens_in":3,"tokens_out":2,"tokens_reasoning":null,"tokens_total":5,"cached_tokens":null,"latency_total_ms":18.4,"num_calls":1},' +
        '"calls":[{"model_call_id":"call-A","response_id":"resp-A","call_index":0,"model_ref":{"type":"responses_api_models","name":"A"},"model":"m","dialect":"responses",' +
        '"status_code":200,"response_status":"completed","finish_reason":null,"started_at":100.0,"completed_at":100.01,"tokens_in":3,"tokens_out":2,"tokens_reasoning":null,' +
        '"tokens_total":5,"tool_calls":[],"reasoning_content":null,"cache_hit":null,"cached_tokens":null,"cache_creation_tokens":null,"error_category":null,' +
        '"latency_total_ms":18.4,"latency_ttft_ms":null}]}',
    );
  });

  it('with include_payloads the four payload keys are present, null when absent', async () => {
    writeFileSync(path.join(dir, '0-0.capture.jsonl'), line(callA) + line(makeExchange({ request: null, response: null })));
    const calls = (await attach('0-0', true)).calls as JsonObject[];
    expect(calls[0].request).toEqual({ input: 'question' });
    expect(calls[0].request_raw).toBe('malformed request');
    expect(calls[0].response_raw).toBe('malformed response');
    expect(Object.keys(calls[1])).toContain('request_raw');
    expect([calls[1].request, calls[1].response, calls[1].request_raw, calls[1].response_raw]).toEqual([null, null, null, null]);
  });

  it('no file and no marker: calls [] and [no_records]', async () => {
    expect(serialize(await attach('9-9'))).toBe(
      '{"rollout_id":"9-9","metrics":{"tokens_in":null,"tokens_out":null,"tokens_reasoning":null,"tokens_total":null,"cached_tokens":null,"latency_total_ms":null,"num_calls":0},"calls":[],"gaps":[{"code":"model_call_capture_no_records"}]}',
    );
  });

  it('an existing empty file gives [no_records]; a file of blank lines too', async () => {
    writeFileSync(path.join(dir, '8-8.capture.jsonl'), '');
    expect(await gaps('8-8')).toEqual([{ code: 'model_call_capture_no_records' }]);
    writeFileSync(path.join(dir, '8-9.capture.jsonl'), '\n  \n');
    expect(await gaps('8-9')).toEqual([{ code: 'model_call_capture_no_records' }]);
  });

  it('damaged lines: [unreadable(count)], valid records kept around them', async () => {
    writeFileSync(
      path.join(dir, '0-0.capture.jsonl'),
      line(makeExchange({ response: { id: 'resp-A' } })) + '{not-json}\n' + line(makeExchange({ response: { id: 'resp-B' } })),
    );
    const a = await attach('0-0');
    expect((a.calls as JsonObject[]).map((c) => [c.call_index, c.response_id])).toEqual([
      [0, 'resp-A'],
      [2, 'resp-B'],
    ]);
    expect(a.gaps).toEqual([{ code: 'model_call_capture_records_unreadable', detail: 'count=1' }]);
  });

  it('a marker with records gives [incomplete]; only the marker gives [incomplete] with zero calls', async () => {
    writeFileSync(path.join(dir, '0-0.capture.jsonl'), line(makeExchange()));
    writeFileSync(path.join(dir, '0-0.capture.incomplete'), '');
    const a = await attach('0-0');
    expect((a.calls as JsonObject[]).length).toBe(1);
    expect(a.gaps).toEqual([{ code: 'model_call_capture_incomplete' }]);
    writeFileSync(path.join(dir, '1-0.capture.incomplete'), '');
    expect(await gaps('1-0')).toEqual([{ code: 'model_call_capture_incomplete' }]);
  });

  it('unreadable lines and a marker: [unreadable(count), incomplete], in that order', async () => {
    writeFileSync(path.join(dir, '0-0.capture.jsonl'), '[]\n"x"\n');
    writeFileSync(path.join(dir, '0-0.capture.incomplete'), '');
    expect(await gaps('0-0')).toEqual([{ code: 'model_call_capture_records_unreadable', detail: 'count=2' }, { code: 'model_call_capture_incomplete' }]);
  });

  it('a read that raises gives calls [] and [capture_unreadable]', async () => {
    mkdirSync(path.join(dir, '0-0.capture.jsonl'));
    expect(serialize((await attach('0-0')).gaps!)).toBe('[{"code":"model_call_capture_unreadable"}]');
    expect((await attach('0-0')).calls).toEqual([]);
  });

  it('uses the first capture dir holding the file or the marker', async () => {
    const second = path.join(dir, 'second');
    mkdirSync(second);
    writeFileSync(path.join(second, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'from-second' })));
    const a = await attach('0-0', false, [path.join(dir, 'missing'), second]);
    expect((a.calls as JsonObject[])[0].model_call_id).toBe('from-second');
  });
});

describe('§5.1 merge into a rollout line', () => {
  it('lines without a derivable id get nothing', async () => {
    const r = await mergeCaptureIntoLine({ reward: 1 }, [dir], false);
    expect(r.line).toBeNull();
  });

  it('appends the attachment as the last key, keeping response and reward unchanged', async () => {
    writeFileSync(path.join(dir, '3-1.capture.jsonl'), line(callA));
    const row = parseStrict('{"response":{"id":"r"},"reward":1.0,"_ng_task_index":3,"_ng_rollout_index":1,"agent_ref":{"name":"a"}}') as JsonObject;
    const { line: merged } = await mergeCaptureIntoLine(row, [dir], false);
    const keys = Object.keys(merged!);
    expect(keys.at(-1)).toBe('ng_model_call_capture');
    expect(serialize(merged!).startsWith('{"response":{"id":"r"},"reward":1.0,"_ng_task_index":3,"_ng_rollout_index":1,"agent_ref":{"name":"a"},"ng_model_call_capture":{"rollout_id":"3-1"')).toBe(true);
  });

  it('replaces an existing attachment in place', async () => {
    const row = { _ng_task_index: 0, _ng_rollout_index: 0, ng_model_call_capture: { stale: true }, reward: 0 } as JsonObject;
    const { line: merged } = await mergeCaptureIntoLine(row, [dir], false);
    expect(Object.keys(merged!)).toEqual(['_ng_task_index', '_ng_rollout_index', 'ng_model_call_capture', 'reward']);
  });

  it('keys the capture by an explicit rollout id', async () => {
    writeFileSync(path.join(dir, 'step7.0-0.capture.jsonl'), line(callA));
    const { rolloutId, line: merged } = await mergeCaptureIntoLine({ _ng_rollout_id: 'step7.0-0', _ng_task_index: 0, _ng_rollout_index: 0 }, [dir], false);
    expect(rolloutId).toBe('step7.0-0');
    expect(((merged!.ng_model_call_capture as JsonObject).metrics as JsonObject).num_calls).toBe(1);
  });

  it('an invalid explicit id raises; a derived id the store rejects raises', async () => {
    await expect(mergeCaptureIntoLine({ _ng_rollout_id: '.hidden' }, [dir], false)).rejects.toThrow(/_ng_rollout_id must be/);
    await expect(mergeCaptureIntoLine({ _ng_task_index: 'a b', _ng_rollout_index: 0 }, [dir], false)).rejects.toThrow(/Invalid rollout id/);
  });
});
