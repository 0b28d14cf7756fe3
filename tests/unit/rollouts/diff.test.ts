// The diff of two rollouts on calls shaped as NeMo Gym's model servers store them (Responses requests that resend
// the conversation, function calls and their outputs, a judge server beside the policy), with known answers: where
// the two rollouts diverge, how much history they share there, and the token and latency deltas.
import { describe, expect, it } from 'vitest';
import { JsonFloat } from '../../../lib/capture/json-value';
import { parseStrict } from '../../../lib/capture/json-parse';
import { alignCalls } from '../../../lib/rollouts/diff-align';
import { diffJson, ignoreVolatile, jsonEqual, type JsonDiff } from '../../../lib/rollouts/diff-json';
import { diffSides, hasChanges } from '../../../lib/rollouts/diff-sides';
import { diffSequences } from '../../../lib/rollouts/diff-sequence';
import { itemRole } from '../../../lib/rollouts/diff-shape';
import { extendSplit, splitRequest } from '../../../lib/rollouts/diff-split';
import { diffPair, diffRollouts, type DiffCall, type DiffSide } from '../../../lib/rollouts/diff';

type Item = Record<string, unknown>;
const user = (text: string): Item => ({ role: 'user', content: text, type: 'message' });
const call = (id: string, name: string, args: object): Item => ({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(args), id: `fc_${id}`, status: 'completed' });
const output = (id: string, text: string): Item => ({ type: 'function_call_output', call_id: id, output: text });
const said = (text: string): Item => ({ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });

interface Turn {
  /** What the response says or asks for. */
  out: Item[];
  /** What the agent appends after it (tool outputs) before the next call. */
  then: Item[];
}

/** A Responses rollout: each call resends everything before it (system, task, earlier outputs and results). */
function rollout(turns: Turn[], opts: { tokens?: (i: number) => number | null; latency?: (i: number) => number; respId?: string } = {}): DiffSide {
  const calls: DiffCall[] = [];
  const payloads: DiffSide['payloads'][number][] = [];
  let history: Item[] = [{ role: 'system', content: 'You are a careful agent.', type: 'message' }, user('Plot session duration since December 1.')];
  turns.forEach((t, i) => {
    const request = { input: history, tools: [{ type: 'function', name: 'search' }, { type: 'function', name: 'plot' }], temperature: 1.0 };
    const response = { id: `resp_${opts.respId ?? 'x'}${i}`, created_at: 1786000000 + i, object: 'response', output: t.out, usage: { input_tokens: 10 * i, output_tokens: 5 } };
    calls.push({ call_index: i, ref: `c${i}`, model_server: 'policy_model', tokens_total: opts.tokens ? opts.tokens(i) : 100 + i, latency_ms: opts.latency ? opts.latency(i) : 1000 });
    payloads.push({ request: Buffer.from(JSON.stringify(request)), response: Buffer.from(JSON.stringify(response)), dialect: 'responses' });
    history = [...history, ...t.out, ...t.then];
  });
  return { calls, payloads };
}

const tool = (id: string, name: string, result: string): Turn => ({ out: [call(id, name, { q: id })], then: [output(id, result)] });
const SHARED: Turn[] = [tool('1', 'search', 'visits: 10'), tool('2', 'search', 'sessions: 40'), tool('3', 'plot', 'plot ok')];

describe('diffRollouts', () => {
  it('finds the first divergence after a shared prefix, with the shared history and the deltas there', () => {
    const a = rollout([...SHARED, tool('4', 'plot', 'plot ok'), { out: [said('Done: the plot is ready.')], then: [] }]);
    const b = rollout([...SHARED, { out: [call('4', 'plot', { q: 'sessions' })], then: [output('4', 'plot failed')] }, tool('5', 'search', 'visits: 12'), { out: [said('Done.')], then: [] }], {
      tokens: (i) => 200 + i,
      latency: (i) => 1500 + i,
    });
    const d = diffRollouts(a, b);
    expect(d.pairs.map((p) => [p.a_call, p.b_call])).toEqual([[0, 0], [1, 1], [2, 2], [3, 3], [null, 4], [4, 5]]);
    expect(d.pairs.slice(0, 3).map((p) => p.state)).toEqual(['same', 'same', 'same']);
    // Call 3: the same request (the shared history), the same tool asked for with other arguments.
    expect(d.first_divergence).toEqual({ pair: 3, in: 'response' });
    expect(d.pairs[3].request_diff).toEqual({ op: 'summary', equal: true, shared_prefix: 8, a_items: 8, b_items: 8 });
    expect(d.pairs[3].response_diff).toEqual({ op: 'summary', equal: false });
    expect([d.pairs[3].a_signature, d.pairs[3].b_signature]).toEqual(['tool>plot', 'tool>plot']);
    expect(d.pairs[0].a_signature).toBe('system,user>search');
    // b's extra search stands alone; both final answers come after a tool result and are aligned.
    expect(d.pairs[4]).toMatchObject({ state: 'b_only', b_signature: 'tool>search', tokens_delta: 204, latency_delta: 1504 });
    expect(d.pairs[5].request_diff).toMatchObject({ equal: false, shared_prefix: 8, a_items: 10, b_items: 12 });
    expect(d.pairs.map((p) => p.tokens_delta)).toEqual([100, 100, 100, 100, 204, 101]);
    expect(d.pairs[0].latency_delta).toBe(500);
  });

  it('a call one side inserted is aligned by the common sequence of signatures, not by position', () => {
    const a = rollout([...SHARED, tool('4', 'plot', 'plot ok')]);
    const b = rollout([...SHARED, tool('4', 'search', 'visits: 12'), tool('5', 'plot', 'plot ok')]);
    const d = diffRollouts(a, b);
    expect(d.pairs.map((p) => [p.a_call, p.b_call])).toEqual([[0, 0], [1, 1], [2, 2], [null, 3], [3, 4]]);
    expect(d.first_divergence).toEqual({ pair: 3, in: 'unmatched' });
  });

  it('ids, timestamps and usage that differ do not make a divergence; one word does', () => {
    const a = rollout(SHARED, { respId: 'a' });
    const renamed = SHARED.map((t, i) => ({ out: t.out.map((o) => ({ ...o, id: `fc_other${i}`, call_id: `other${i}` })), then: t.then.map((o) => ({ ...o, call_id: `other${i}` })) }));
    const b = rollout(renamed, { respId: 'b' });
    const d = diffRollouts(a, b);
    expect(d.pairs.map((p) => p.state)).toEqual(['same', 'same', 'same']);
    expect(d.first_divergence).toBeNull();
    // The renamed tool calls are still shared history, and the full diff folds them, keeping b's own ids.
    expect(d.pairs[2].request_diff).toMatchObject({ shared_prefix: 6, equal: true });
    const full = diffPair(a.payloads[2], b.payloads[2]).request_diff;
    const input = full.op === 'object' ? full.entries.find((e) => e.key === 'input')!.diff : null;
    expect(input).toMatchObject({ op: 'array', runs: [{ op: 'same', count: 6 }] });
    expect(diffSides(full).b).toEqual(parseStrict(b.payloads[2].request!));
    expect(hasChanges(full)).toBe(true);
    expect(hasChanges(full, ignoreVolatile)).toBe(false);
    const c = rollout([SHARED[0], tool('2', 'search', 'sessions: 41'), SHARED[2]]);
    const e = diffRollouts(a, c);
    expect(e.first_divergence).toEqual({ pair: 2, in: 'request' });
    expect(e.pairs[2].request_diff).toMatchObject({ shared_prefix: 5, equal: false });
  });

  it('a side with more calls: the unmatched calls are divergences and count their whole tokens', () => {
    const a = rollout(SHARED.slice(0, 1));
    const b = rollout(SHARED);
    const d = diffRollouts(a, b);
    expect(d.pairs.map((p) => [p.a_call, p.b_call, p.state])).toEqual([[0, 0, 'same'], [null, 1, 'b_only'], [null, 2, 'b_only']]);
    expect(d.first_divergence).toEqual({ pair: 1, in: 'unmatched' });
    expect(d.pairs[2].tokens_delta).toBe(102);
    expect(diffRollouts(b, a).pairs[1].tokens_delta).toBe(-101);
  });

  it('calls without payloads (a line\'s attachment) cannot be compared: unknown, not the same, and no divergence', () => {
    const strip = (s: DiffSide, keep: number[] = []): DiffSide => ({ calls: s.calls, payloads: s.payloads.map((p, i) => (keep.includes(i) ? p : { ...p, request: null, response: null })) });
    const d = diffRollouts(strip(rollout(SHARED)), strip(rollout(SHARED)));
    expect(d.pairs.map((p) => p.state)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(d.pairs[0].request_diff).toMatchObject({ equal: null });
    expect(d.first_divergence).toBeNull();
    // What can be compared still counts: a response that differs is a divergence.
    const other = rollout([SHARED[0], SHARED[1], tool('3', 'search', 'x')]);
    const e = diffRollouts(strip(rollout(SHARED), [2]), { calls: other.calls, payloads: other.payloads.map((p, i) => (i === 2 ? { ...p, request: null } : { ...p, request: null, response: null })) });
    expect(e.pairs.map((p) => p.state)).toEqual(['unknown', 'unknown', 'different']);
    expect(e.first_divergence).toEqual({ pair: 2, in: 'response' });
  });

  it('unknown tokens give an unknown delta, not a number', () => {
    const a = rollout(SHARED, { tokens: (i) => (i === 1 ? null : 50) });
    const d = diffRollouts(a, rollout(SHARED));
    expect(d.pairs.map((p) => p.tokens_delta)).toEqual([50, null, 52]);
  });
});

describe('diffPair', () => {
  it('folds the resent history to one same run with its length, and diffs the rest', () => {
    const a = rollout([...SHARED, tool('4', 'plot', 'plot ok'), { out: [said('Done.')], then: [] }]);
    const b = rollout([...SHARED, tool('4b', 'plot', 'plot failed'), tool('5', 'search', 'visits: 12'), { out: [said('Done.')], then: [] }]);
    const { request_diff, response_diff } = diffPair(a.payloads[3], b.payloads[3]);
    expect(request_diff.op).toBe('same');
    expect(response_diff.op).toBe('object');
    const later = diffPair(a.payloads[4], b.payloads[5]).request_diff;
    const input = later.op === 'object' ? later.entries.find((e) => e.key === 'input')!.diff : null;
    expect(input?.op).toBe('array');
    const runs = (input as Extract<JsonDiff, { op: 'array' }>).runs;
    expect(runs[0]).toMatchObject({ op: 'same', a_index: 0, b_index: 0, count: 8 });
    // b's function call and its output stand where a's did: paired by kind and diffed, not removed and re-added;
    // b's extra call and output are added after them.
    expect(runs.slice(1).map((r) => [r.op, r.a_index, r.b_index, r.count])).toEqual([['changed', 8, 8, 1], ['changed', 9, 9, 1], ['added', 10, 10, 2]]);
    const sides = diffSides(later);
    expect(sides.a).toEqual(parseStrict(a.payloads[4].request!));
    expect(sides.b).toEqual(parseStrict(b.payloads[5].request!));
  });

  it('a call only one side has is all added (or removed)', () => {
    const a = rollout(SHARED);
    expect(diffPair(null, a.payloads[0]).request_diff).toEqual({ op: 'added', b: parseStrict(a.payloads[0].request!) });
    expect(diffPair(a.payloads[0], null).response_diff.op).toBe('removed');
  });
});

describe('diffJson', () => {
  it('an equal subtree is one node holding its value', () => {
    const v = { input: [1, 2, { a: 'x\ny' }], n: null };
    expect(diffJson(v, structuredClone(v))).toEqual({ op: 'same', value: v });
    expect(diffJson({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }).op).toBe('same');
  });

  it('objects by key: changed, removed and added entries in a stable order', () => {
    expect(diffJson({ a: 1, b: 2, c: 3 }, { a: 1, c: 4, d: 5 })).toEqual({
      op: 'object',
      entries: [
        { key: 'a', diff: { op: 'same', value: 1 } },
        { key: 'b', diff: { op: 'removed', a: 2 } },
        { key: 'c', diff: { op: 'changed', a: 3, b: 4 } },
        { key: 'd', diff: { op: 'added', b: 5 } },
      ],
    });
  });

  it('long strings by lines, unchanged lines kept as runs', () => {
    const a = 'def f():\n    return 1\n\nprint(f())';
    const b = 'def f():\n    return 2\n\nprint(f())';
    const d = diffJson(a, b);
    expect(d).toEqual({
      op: 'text',
      runs: [
        { op: 'same', a_line: 0, b_line: 0, count: 1, lines: ['def f():'] },
        { op: 'removed', a_line: 1, b_line: 1, count: 1, lines: ['    return 1'] },
        { op: 'added', a_line: 2, b_line: 1, count: 1, lines: ['    return 2'] },
        { op: 'same', a_line: 2, b_line: 2, count: 2, lines: ['', 'print(f())'] },
      ],
    });
    expect(diffSides(d)).toEqual({ a, b });
    expect(diffJson('one line', 'another')).toEqual({ op: 'changed', a: 'one line', b: 'another' });
  });

  it('ints and floats apart, as the stored line writes them', () => {
    expect(diffJson(parseStrict('{"t":1.0}'), parseStrict('{"t":1}')).op).toBe('object');
    expect(diffJson(parseStrict('{"t":1.0}'), { t: new JsonFloat(1) }).op).toBe('same');
    expect(diffJson(parseStrict('{"n":12345678901234567891}'), parseStrict('{"n":12345678901234567890}')).op).toBe('object');
  });

  it('hasChanges can leave ids, timestamps and usage out', () => {
    const d = diffJson({ id: 'resp_1', object: 'response', output: [said('hi')], usage: { t: 1 } }, { id: 'resp_2', object: 'response', output: [{ ...said('hi'), id: 'msg_2' }], usage: { t: 2 } });
    expect(hasChanges(d)).toBe(true);
    expect(hasChanges(d, ignoreVolatile)).toBe(false);
    // `id` inside a tool's own input is data, not an API id.
    expect(jsonEqual({ type: 'tool_use', input: { id: 1 } }, { type: 'tool_use', input: { id: 2 } }, ignoreVolatile)).toBe(false);
    expect(hasChanges(diffJson({ output: [said('hi')] }, { output: [said('ho')] }), ignoreVolatile)).toBe(true);
  });
});

describe('diffSequences', () => {
  it('the shortest edit script, prefix and suffix trimmed', () => {
    const a = 'ABCABBA'.split('');
    const b = 'CBABAC'.split('');
    const runs = diffSequences(a.length, b.length, (i, j) => a[i] === b[j]);
    const same = runs.filter((r) => r.op === 'same').reduce((k, r) => k + r.count, 0);
    expect(same).toBe(4); // LCS of ABCABBA and CBABAC
  });

  it('beyond the edit limit, one removal and one addition', () => {
    const runs = diffSequences(5, 5, () => false, 3);
    expect(runs).toEqual([
      { op: 'removed', a: 0, b: 0, count: 5 },
      { op: 'added', a: 5, b: 0, count: 5 },
    ]);
  });
});

describe('alignCalls', () => {
  it('pairs within each model server; a judge call that moved stands alone rather than crossing', () => {
    const p = (signature: string) => ({ server: 'policy', signature });
    const j = { server: 'judge', signature: 'user>' };
    const pairs = alignCalls([p('user>search'), j, p('tool>')], [p('user>search'), p('tool>'), j]);
    expect(pairs).toEqual([{ a: 0, b: 0 }, { a: 1, b: null }, { a: 2, b: 1 }, { a: null, b: 2 }]);
  });

  it('calls whose signatures differ are paired by position within their server', () => {
    const p = (signature: string) => ({ server: 'policy', signature });
    expect(alignCalls([p('user>search'), p('tool>plot'), p('tool>')], [p('user>search'), p('tool>search'), p('tool>')])).toEqual([
      { a: 0, b: 0 },
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ]);
  });
});

describe('splitRequest and itemRole', () => {
  it('splits the conversation list by bytes, whatever the spacing and escapes', () => {
    const items = [{ role: 'user', content: 'a "quoted" \\ thing, with ] and }' }, 'plain', [1, [2]], { type: 'function_call_output', call_id: 'c', output: '{"ok":true}' }];
    const text = JSON.stringify({ model: 'm', input: items, tools: [] }, null, 2);
    const split = splitRequest(Buffer.from(text), 'responses')!;
    expect(split.items.map(([s, e]) => JSON.parse(text.slice(s, e)))).toEqual(items);
    expect(splitRequest(Buffer.from('{"messages":[{"role":"user","content":"x"}],"input":"not this"}'), 'chat')!.items).toHaveLength(1);
    expect(splitRequest(Buffer.from('{"input":"one string"}'), 'responses')!.items).toEqual([[9, 21]]);
    expect(splitRequest(Buffer.from('[1,2]'), null)).toBeNull();
  });

  it('a request that appends to the previous one is split by walking only what it added', () => {
    const req = (input: unknown[], t = 1) => Buffer.from(JSON.stringify({ model: 'm', input, tools: [], temperature: t }));
    const first = splitRequest(req([user('a'), said('b')]), 'responses')!;
    const next = req([user('a'), said('b'), output('1', 'x')]);
    const grown = extendSplit(first, next)!;
    expect(grown).toMatchObject({ resent: 2, sameRest: true });
    expect(grown.split.items).toEqual(splitRequest(next, 'responses')!.items);
    expect(extendSplit(first, req([user('a'), said('b'), output('1', 'x')], 0.5))).toMatchObject({ resent: 2, sameRest: false });
    // History rewritten: not a growth.
    expect(extendSplit(first, req([user('A'), said('b')]))).toBeNull();
  });

  it('roles across dialects: tool results are tool, the model own items assistant', () => {
    expect(itemRole({ type: 'function_call_output', call_id: 'x', output: '' })).toBe('tool');
    expect(itemRole({ type: 'reasoning', summary: [] })).toBe('assistant');
    expect(itemRole({ role: 'tool', tool_call_id: 'x', content: '' })).toBe('tool');
    expect(itemRole({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'ok' }] })).toBe('tool');
    expect(itemRole('hello')).toBe('user');
  });
});
