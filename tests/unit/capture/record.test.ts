import { describe, expect, it } from 'vitest';
import { serialize } from '../../../lib/capture/json-serialize';
import {
  asArguments,
  cacheSignal,
  deriveRecord,
  extractTokenStats,
  RECORD_FIELDS,
  toolCallsAndReasoning,
} from '../../../lib/capture/record';
import { ex, makeExchange } from '../../support/exchange';

const s = (v: unknown) => serialize(v as never);

describe('§3 record derivation', () => {
  const exchange = ex(
    '{"model_call_id":"call-1","dialect":"responses","model_ref":{"type":"responses_api_models","name":"srv"},"started_at":100.0,"completed_at":100.02,"latency_ms":18.4,' +
      '"request":{"input":"hi"},"response":{"id":"resp-1","model":"m","usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"output_tokens_details":{"reasoning_tokens":3},"prompt_tokens_details":{"cached_tokens":4}},' +
      '"output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"thinking..."}]},{"type":"message","content":[]},{"type":"function_call","call_id":"c1","name":"calc","arguments":"{\\"x\\": 1}"}]}}',
  );

  it('test_build_model_call_record_from_exchange: every field, in order, with exact values', () => {
    const r = deriveRecord(exchange, 3);
    expect(Object.keys(r)).toEqual([...RECORD_FIELDS]);
    expect(RECORD_FIELDS).toHaveLength(27);
    expect(s(r)).toBe(
      '{"model_call_id":"call-1","response_id":"resp-1","call_index":3,"model_ref":{"type":"responses_api_models","name":"srv"},"model":"m","dialect":"responses",' +
        '"status_code":null,"response_status":null,"finish_reason":null,"started_at":100.0,"completed_at":100.02,"tokens_in":10,"tokens_out":5,"tokens_reasoning":3,"tokens_total":15,' +
        '"request":{"input":"hi"},"response":' + s(exchange.response) + ',"request_raw":null,"response_raw":null,' +
        '"tool_calls":[{"call_id":"c1","name":"calc","arguments":{"x":1}}],"reasoning_content":"thinking...","cache_hit":true,"cached_tokens":4,"cache_creation_tokens":null,' +
        '"error_category":null,"latency_total_ms":18.4,"latency_ttft_ms":null}',
    );
  });

  it('a numeric response id is null; empty payload objects stay {}', () => {
    expect(deriveRecord(makeExchange({ response: { id: 123 } }), 0).response_id).toBeNull();
    expect(deriveRecord(makeExchange({ response: { id: '' } }), 0).response_id).toBe('');
    const r = deriveRecord(makeExchange({ request: {}, response: {} }), 0);
    expect(r.request).toEqual({});
    expect(r.response).toEqual({});
  });

  it('payloads that are not objects are null; raw strings are kept beside them', () => {
    const r = deriveRecord(makeExchange({ request: [1], response: 'x', request_raw: 'malformed request', response_raw: 5 }), 0);
    expect([r.request, r.response, r.request_raw, r.response_raw]).toEqual([null, null, 'malformed request', null]);
  });

  it('reads the aliases cached_input_tokens and reasoning_output_tokens', () => {
    const r = deriveRecord(makeExchange({ response: { usage: { cached_input_tokens: 4, reasoning_output_tokens: 3 } } }), 0);
    expect([r.cached_tokens, r.tokens_reasoning]).toEqual([4, 3]);
  });

  it('model: response model, else request model; a truthy non-string response model gives null', () => {
    expect(deriveRecord(makeExchange({ request: { model: 'req-m' }, response: { model: '' } }), 0).model).toBe('req-m');
    expect(deriveRecord(makeExchange({ request: { model: 'req-m' }, response: { model: 5 } }), 0).model).toBeNull();
    expect(deriveRecord(makeExchange({ request: { model: 7 }, response: {} }), 0).model).toBeNull();
  });

  it('coerces like pydantic lax mode: ints to floats, numeric strings to ints', () => {
    const r = deriveRecord(makeExchange({ latency_ms: 1, started_at: 5, status_code: '200', latency_ttft_ms: '2.5' }), 0);
    expect(s([r.latency_total_ms, r.started_at, r.status_code, r.latency_ttft_ms])).toBe('[1.0,5.0,200,2.5]');
    expect(s(deriveRecord(makeExchange({ status_code: ex('{"v":200.0}').v }), 0).status_code)).toBe('200');
  });

  it.each([
    ['a fractional status', { status_code: 200.5 }],
    ['a non-string dialect', { dialect: 5 }],
    ['a non-string error category', { error_category: ['x'] }],
    ['a non-string model_call_id', { model_call_id: 7 }],
    ['a model_ref of another type', { model_ref: { type: 'agents', name: 'x' } }],
    ['a model_ref without name', { model_ref: { type: 'responses_api_models' } }],
    ['a non-numeric latency', { latency_ms: 'slow' }],
    ['a numeric summary', { response: { output: [{ type: 'reasoning', summary: 3 }] } }],
    ['numeric tool_calls', { response: { choices: [{ message: { tool_calls: 1 } }] } }],
  ])('§3.5 %s makes derivation throw (the line is unreadable)', (_name, overrides) => {
    expect(() => deriveRecord(makeExchange(overrides as never), 0)).toThrow();
  });

  it('model_ref keeps only type and name', () => {
    const r = deriveRecord(makeExchange({ model_ref: { type: 'responses_api_models', name: 'judge', extra: 1 } }), 0);
    expect(r.model_ref).toEqual({ type: 'responses_api_models', name: 'judge' });
  });

  it('exchanges may omit keys: missing values are null', () => {
    const r = deriveRecord({}, 0);
    expect(r.model_call_id).toBeNull();
    expect(r.latency_total_ms).toBeNull();
    expect(r.tool_calls).toEqual([]);
  });

  it('tolerates malformed nested shapes without raising', () => {
    const r = deriveRecord(
      makeExchange({
        response: {
          usage: { input_tokens: 'invalid', prompt_tokens_details: { cached_tokens: [] } },
          choices: [{ message: 'invalid' }],
          output: [{ type: 'reasoning', summary: [{ text: {} }] }],
        },
      }),
      0,
    );
    expect(r.tokens_total).toBeNull();
    expect(r.tool_calls).toEqual([]);
  });

  it.each([
    [{ choices: [{ finish_reason: 'tool_calls' }] }, 'tool_calls', null],
    [{ stop_reason: 'end_turn' }, 'end_turn', null],
    [{ incomplete_details: { reason: 'max_output_tokens' } }, 'max_output_tokens', null],
    [{ status: 'completed' }, null, 'completed'],
    [{ choices: { finish_reason: 'invalid' }, incomplete_details: [] }, null, null],
    [{ stop_reason: 5, choices: [{ finish_reason: 'stop' }] }, 'stop', null],
    [{ stop_reason: '', choices: [{ finish_reason: 'stop' }] }, '', null],
    [{ choices: [], incomplete_details: { reason: 'content_filter' } }, 'content_filter', null],
  ])('termination of %j is (finish %j, status %j)', (response, finish, status) => {
    const r = deriveRecord(makeExchange({ response: response as never }), 0);
    expect([r.finish_reason, r.response_status]).toEqual([finish, status]);
  });
});

describe('§3.1 token normalization', () => {
  const stats = (usage: unknown) => {
    const t = extractTokenStats(usage as never);
    return [t.tokens_in, t.tokens_out, t.tokens_total, t.tokens_reasoning, t.cache_creation_tokens];
  };

  it('no usage object gives all null', () => {
    expect(stats(null)).toEqual([null, null, null, null, null]);
    expect(stats([1])).toEqual([null, null, null, null, null]);
  });

  it('chat fallback', () => {
    expect(stats({ prompt_tokens: 5, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 1 } })).toEqual([5, 3, 8, 1, null]);
  });

  it('anthropic cache folding', () => {
    expect(stats({ input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 200, cache_creation_input_tokens: 30 })).toEqual([330, 50, 380, null, 30]);
    expect(stats({ output_tokens: 12, cache_read_input_tokens: 500, cache_creation_input_tokens: 0 })).toEqual([500, 12, 512, null, 0]);
    expect(stats({ output_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })).toEqual([null, 12, null, null, 0]);
    expect(stats({ input_tokens: 0, cache_read_input_tokens: 0 })).toEqual([0, null, null, null, null]);
  });

  it('OpenAI cached tokens are not double counted', () => {
    expect(stats({ input_tokens: 10, output_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } })).toEqual([10, 5, 15, null, null]);
  });

  it('only JSON integers >= 0 are token counts (5.0, true, "5" and -1 are not)', () => {
    expect(stats(ex('{"input_tokens":5.0,"output_tokens":true,"total_tokens":"5"}'))).toEqual([null, null, null, null, null]);
    expect(stats({ input_tokens: -1, prompt_tokens: 7, output_tokens: 2 })).toEqual([7, 2, 9, null, null]);
  });

  it('total_tokens is used verbatim even when inconsistent', () => {
    expect(stats({ input_tokens: 1, output_tokens: 1, total_tokens: 99 })).toEqual([1, 1, 99, null, null]);
  });

  it('reasoning precedence: output_tokens_details, completion_tokens_details, reasoning_output_tokens', () => {
    expect(stats({ output_tokens_details: { reasoning_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 2 }, reasoning_output_tokens: 3 })[3]).toBe(1);
    expect(stats({ output_tokens_details: { reasoning_tokens: 1.0 }, completion_tokens_details: { reasoning_tokens: 2 } })[3]).toBe(1);
    expect(stats(ex('{"output_tokens_details":{"reasoning_tokens":1.0},"reasoning_output_tokens":3}'))[3]).toBe(3);
  });
});

describe('§3.2 cached tokens and cache_hit', () => {
  it.each([
    [null, null, null],
    [{ prompt_tokens_details: { cached_tokens: 4 } }, true, 4],
    [{ input_tokens_details: { cached_tokens: 0 } }, false, 0],
    [{ prompt_tokens_details: { cached_tokens: 4 }, input_tokens_details: { cached_tokens: 9 } }, true, 4],
    [{ cache_read_input_tokens: 5 }, true, 5],
    [{ unrelated: 1 }, null, null],
    [{ prompt_tokens_details: { cached_tokens: 'x', cached_input_tokens: 2 } }, true, 2],
    [{ prompt_tokens_details: [], input_tokens_details: { cached_input_tokens: 3 } }, true, 3],
    [{ cached_input_tokens: 4 }, true, 4],
    [{ prompt_tokens_details: { cached_tokens: null } }, null, null],
  ])('%j gives (%j, %j)', (usage, hit, cached) => {
    expect(cacheSignal(usage as never)).toEqual({ cache_hit: hit, cached_tokens: cached });
  });
});

describe('§3.3 tool calls and §3.4 reasoning', () => {
  it('A(): argument parsing', () => {
    expect(asArguments({ x: 1 })).toEqual({ x: 1 });
    expect(asArguments('{"y": 2}')).toEqual({ y: 2 });
    expect(asArguments('not json')).toEqual({ _raw: 'not json' });
    expect(asArguments('')).toEqual({ _raw: '' });
    expect(asArguments(123)).toEqual({});
    expect(asArguments(null)).toEqual({});
    expect(asArguments('{}')).toEqual({});
    expect(asArguments('[1]')).toEqual([1]);
    expect(asArguments('"x"')).toBe('x');
    expect(asArguments('null')).toBeNull();
  });

  it('chat tool calls and reasoning_content', () => {
    const r = toolCallsAndReasoning({
      choices: [{ message: { reasoning_content: 'think', tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"a": 1}' } }] } }],
    });
    expect(s(r)).toBe('{"tool_calls":[{"call_id":"c1","name":"f","arguments":{"a":1}}],"reasoning_content":"think"}');
  });

  it('anthropic tool_use (input not parsed) and thinking', () => {
    const r = toolCallsAndReasoning({
      content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'tool_use', id: 't1', name: 'g', input: { b: 2 } }, { type: 'tool_use', id: 't2', name: 'h', input: '{"c":1}' }],
    });
    expect(s(r)).toBe('{"tool_calls":[{"call_id":"t1","name":"g","arguments":{"b":2}},{"call_id":"t2","name":"h","arguments":"{\\"c\\":1}"}],"reasoning_content":"hmm"}');
  });

  it('unrelated shapes give no calls and no reasoning', () => {
    expect(toolCallsAndReasoning({ unrelated: 1 })).toEqual({ tool_calls: [], reasoning_content: null });
  });

  it('accepts the reasoning alias; reasoning_content wins', () => {
    expect(toolCallsAndReasoning({ choices: [{ message: { reasoning: 'because' } }] }).reasoning_content).toBe('because');
    expect(toolCallsAndReasoning({ choices: [{ message: { reasoning_content: 'rc', reasoning: 'r' } }] }).reasoning_content).toBe('rc');
  });

  it('skips non-object output items and content blocks', () => {
    expect(s(toolCallsAndReasoning({ output: [null, 'junk', { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] }))).toBe(
      '{"tool_calls":[{"call_id":"c","name":"f","arguments":{}}],"reasoning_content":null}',
    );
    expect(s(toolCallsAndReasoning({ content: [null, 'junk', { type: 'tool_use', id: 't', name: 'g', input: { b: 2 } }] }))).toBe(
      '{"tool_calls":[{"call_id":"t","name":"g","arguments":{"b":2}}],"reasoning_content":null}',
    );
  });

  it('only the first matching branch runs (responses output wins over choices)', () => {
    const r = toolCallsAndReasoning({ output: [], choices: [{ message: { tool_calls: [{ id: 'x', function: { name: 'f' } }] } }] });
    expect(r.tool_calls).toEqual([]);
  });

  it('responses function_call: call_id falls back to id; missing values are null', () => {
    const r = toolCallsAndReasoning({ output: [{ type: 'function_call', id: 'fc_1', call_id: '' }] });
    expect(s(r.tool_calls)).toBe('[{"call_id":"fc_1","name":null,"arguments":{}}]');
  });

  it('chat tool calls from all choices are concatenated; a non-object function reads as {}', () => {
    const r = toolCallsAndReasoning({
      choices: [{ message: { tool_calls: [{ id: 'a', function: 'x' }] } }, { message: { tool_calls: [{ id: 'b', function: { name: 'g', arguments: 'bad' } }] } }],
    });
    expect(s(r.tool_calls)).toBe('[{"call_id":"a","name":null,"arguments":{}},{"call_id":"b","name":"g","arguments":{"_raw":"bad"}}]');
  });

  it('responses reasoning reads summary[].text only (not content[]); empty texts are skipped', () => {
    const r = toolCallsAndReasoning({
      output: [
        { type: 'reasoning', summary: [{ text: 'a' }, { text: '' }], content: [{ type: 'reasoning_text', text: 'hidden' }] },
        { type: 'reasoning', summary: [{ text: 'b' }] },
        { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'vllm' }] },
      ],
    });
    expect(r.reasoning_content).toBe('a\nb');
  });

  it('anthropic empty thinking is collected; a join that is empty gives null', () => {
    expect(toolCallsAndReasoning({ content: [{ type: 'thinking', thinking: '' }] }).reasoning_content).toBeNull();
    expect(toolCallsAndReasoning({ content: [{ type: 'thinking', thinking: '' }, { type: 'thinking', thinking: 'x' }] }).reasoning_content).toBe('\nx');
    expect(toolCallsAndReasoning({ content: [{ type: 'redacted_thinking', data: 'abc' }] }).reasoning_content).toBeNull();
  });
});
