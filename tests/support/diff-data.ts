// Two rollouts of one task whose diff is known, written as NeMo Gym leaves a run (results-dir.ts): the coding-agent
// fixture's rollouts file and a capture dir, in which rollout 0-1 (a, reward 0) and 0-0 (b, reward 1, the task's
// best) each have a capture file of Responses calls to the policy model server, every request resending the whole
// conversation, and a last call to a judge server. Both do the same first three calls (with ids and timestamps of
// their own, as two runs have); at call 3 both ask for `plot` with other arguments; b then does one more `search`;
// both answer and are judged. A run collected without capture sits beside it (rollouts only).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pyFloat, type JsonObject } from '../../lib/capture/json-value';
import { serialize } from '../../lib/capture/json-serialize';
import { FIXTURES } from './nemo-gym-data';
import { writeGymEvalRun } from './results-dir';

export const DIFF_RUN = 'swe_rollouts';
export const UNCAPTURED_RUN = 'string_match';
export const A = '0-1';
export const B = '0-0';

type Item = Record<string, unknown>;
const SYSTEM: Item = { role: 'system', content: 'You are a coding agent. Use the tools.', type: 'message' };
const TASK: Item = { role: 'user', content: 'Fix the failing test in quillpress/render.py.\nRun the tests when done.', type: 'message' };
const TOOLS = [
  { type: 'function', name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false },
  { type: 'function', name: 'plot', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false },
];

interface Step {
  tool: string | null;
  args: string;
  result: string;
}

/** The steps of each rollout: what each policy call asks for (null: the final answer) and what the tool returned. */
export const STEPS: Record<'a' | 'b', Step[]> = {
  a: [
    { tool: 'search', args: '{"q":"render"}', result: 'quillpress/render.py:12: def render(doc):' },
    { tool: 'search', args: '{"q":"test_render"}', result: 'tests/test_render.py:3: def test_render():\n    assert render(DOC) == EXPECTED' },
    { tool: 'plot', args: '{"q":"coverage"}', result: 'plot ok' },
    { tool: 'plot', args: '{"q":"timings"}', result: 'plot ok' },
    { tool: null, args: 'The fix is in render(): the list was not escaped.', result: '' },
  ],
  b: [
    { tool: 'search', args: '{"q":"render"}', result: 'quillpress/render.py:12: def render(doc):' },
    { tool: 'search', args: '{"q":"test_render"}', result: 'tests/test_render.py:3: def test_render():\n    assert render(DOC) == EXPECTED' },
    { tool: 'plot', args: '{"q":"coverage"}', result: 'plot ok' },
    { tool: 'plot', args: '{"q":"failures"}', result: 'plot failed: no data\nretry with q=errors' },
    { tool: 'search', args: '{"q":"escape"}', result: 'quillpress/html.py:40: def escape(s):' },
    { tool: null, args: 'Fixed: render() now escapes each item with html.escape.', result: '' },
  ],
};

/** Tokens and latency of policy call i (the judge call after them: JUDGE_TOKENS, JUDGE_LATENCY). */
export const tokensOf = (side: 'a' | 'b', i: number) => (side === 'a' ? 1000 + 10 * i : 1500 + 20 * i);
export const latencyOf = (side: 'a' | 'b', i: number) => (side === 'a' ? 400 + i : 900 + 2 * i);
export const JUDGE_TOKENS = { a: 300, b: 320 };
export const JUDGE_LATENCY = { a: 50, b: 80 };

function usage(total: number) {
  return { input_tokens: total - 40, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: total };
}

function exchange(side: string, k: number, server: string, request: Item, output: Item[], total: number, latency: number): string {
  const started = 1786000000 + k * 10 + (side.startsWith('a') ? 0.25 : 0.5);
  const response = { id: `resp_${side}${k}`, created_at: Math.floor(started), model: 'policy', object: 'response', output, parallel_tool_calls: false, status: 'completed', usage: usage(total) };
  const line = {
    model_call_id: `${side}-call-${k}`, dialect: 'responses', model_ref: { type: 'responses_api_models', name: server }, started_at: started,
    completed_at: started + latency / 1000, latency_ms: pyFloat(latency), latency_ttft_ms: null, status_code: 200, error_category: null, request, response,
  };
  // Written as NeMo Gym writes a line (orjson): floats keep their `.0`.
  return serialize(line as unknown as JsonObject) + '\n';
}

/** One rollout's capture file: its policy calls in order, each resending the conversation, then the judge call. */
function captureLines(side: 'a' | 'b'): string {
  return policyLines(side, STEPS[side], (i) => tokensOf(side, i), (i) => latencyOf(side, i)) + judgeLine(side);
}

function policyLines(side: string, steps: Step[], tokens: (i: number) => number, latency: (i: number) => number): string {
  let history: Item[] = [SYSTEM, TASK];
  const lines: string[] = [];
  steps.forEach((s, i) => {
    const request = { input: history, tools: TOOLS, tool_choice: 'auto', parallel_tool_calls: false, temperature: pyFloat(1) };
    const id = `${side}${i}`; // ids of this rollout's own: two runs never share them
    const out: Item[] = s.tool
      ? [{ arguments: s.args, call_id: `call_${id}`, name: s.tool, type: 'function_call', id: `fc_${id}`, status: 'completed' }]
      : [{ id: `msg_${id}`, content: [{ annotations: [], text: s.args, type: 'output_text' }], role: 'assistant', status: 'completed', type: 'message' }];
    lines.push(exchange(side, i, 'policy_model', request, out, tokens(i), latency(i)));
    history = [...history, ...out, ...(s.tool ? [{ call_id: `call_${id}`, output: s.result, type: 'function_call_output' }] : [])];
  });
  return lines.join('');
}

function judgeLine(side: 'a' | 'b'): string {
  const answer = STEPS[side][STEPS[side].length - 1].args;
  const judge = { input: [{ role: 'user', content: `Is this a fix?\n${answer}`, type: 'message' }], temperature: pyFloat(0) };
  const verdict = [{ id: `msg_j${side}`, content: [{ annotations: [], text: side === 'a' ? 'No.' : 'Yes.', type: 'output_text' }], role: 'assistant', status: 'completed', type: 'message' }];
  return exchange(side, STEPS[side].length, 'judge_model', judge, verdict, JUDGE_TOKENS[side], JUDGE_LATENCY[side]);
}

/** A longer pair of the same task: LONG.calls policy calls each, alike up to LONG.divergeAt, where b searches and a plots. */
export const LONG = { a: '0-2', b: '0-3', calls: 120, divergeAt: 100 };

function longSteps(side: 'a' | 'b'): Step[] {
  return Array.from({ length: LONG.calls }, (_, i) =>
    i < LONG.divergeAt || side === 'a' ? { tool: i < LONG.divergeAt ? 'search' : 'plot', args: `{"q":"page ${i}"}`, result: `page ${i}: 3 matches` } : { tool: 'search', args: `{"q":"other ${i}"}`, result: `other ${i}: none` },
  );
}

/** Conversation items in the request of a's or b's policy call i: system, task, then a call and its output per step. */
export const itemsBefore = (i: number) => 2 + 2 * i;

/** Writes the two runs under `dir/results`; returns serve's PATH. */
export function writeDiffData(dir: string): string {
  const results = path.join(dir, 'results');
  mkdirSync(results, { recursive: true });
  writeGymEvalRun(results, DIFF_RUN, FIXTURES.file.anyswe_claude_code, { captureDir: 'model-calls' });
  writeFileSync(path.join(results, 'model-calls', `${A}.capture.jsonl`), captureLines('a'));
  writeFileSync(path.join(results, 'model-calls', `${B}.capture.jsonl`), captureLines('b'));
  for (const side of ['a', 'b'] as const) {
    writeFileSync(path.join(results, 'model-calls', `${LONG[side]}.capture.jsonl`), policyLines(`${side}l`, longSteps(side), () => 800, () => 300));
  }
  copyFileSync(FIXTURES.file.string_match, path.join(results, `${UNCAPTURED_RUN}.jsonl`));
  return results;
}

/** The answer the diff of a = 0-1 and b = 0-0 must give: [a_call, b_call] per pair, the divergence, the deltas. */
export function expectedDiff() {
  const pairs: [number | null, number | null][] = [[0, 0], [1, 1], [2, 2], [3, 3], [null, 4], [4, 5], [5, 6]];
  const tokens = (side: 'a' | 'b', c: number | null) => (c === null ? 0 : c < STEPS[side].length ? tokensOf(side, c) : JUDGE_TOKENS[side]);
  const latency = (side: 'a' | 'b', c: number | null) => (c === null ? 0 : c < STEPS[side].length ? latencyOf(side, c) : JUDGE_LATENCY[side]);
  return {
    pairs,
    first_divergence: { pair: 3, in: 'response' as const },
    tokens_delta: pairs.map(([x, y]) => tokens('b', y) - tokens('a', x)),
    latency_delta: pairs.map(([x, y]) => latency('b', y) - latency('a', x)),
    /** At the divergence both requests are the shared history: system, task and three calls with their outputs. */
    shared_prefix_at_divergence: itemsBefore(3),
  };
}
