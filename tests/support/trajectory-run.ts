// A results dir with agent trajectories in NeMo Gym's shapes, for the trajectory views' browser tests:
// - `agent/`: a claude_code-like rollout line with ng_agent_observations (a main agent and two subagents spawned by
//   parallel Task tool calls, one of which failed; a Read in a sandbox; a Grep whose timing the producer did not
//   measure; a compaction between two calls; an agent and a verifier sandbox run) beside its capture dir of Anthropic
//   Messages calls whose responses request those tool calls, and an unowned judge call. Projected by callscope as the
//   collector would.
// - `collected/`: the same line after `callscope attach --trajectory` (what NeMo Gym's collector writes), with a
//   producer ng_trajectory's turns carried in: source "line".
// - `broken/`: a line whose stored ng_trajectory does not validate.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../lib/capture/json-value';
import { line, makeExchange } from './exchange';
import { ROOT } from './server';

const REF = { type: 'responses_api_models', name: 'policy' };
const text = (t: string) => [{ role: 'user', content: t, type: 'message' }];
const fc = (id: string, name: string, args: JsonObject) => ({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(args) });
const fco = (id: string, output: string) => ({ type: 'function_call_output', call_id: id, output });

/** Markup in what an agent saw and said: the views must show it as text (no script runs, no request leaves). */
export const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>';

/** The tool calls, as the test reads them back. */
export const TOOLS = {
  read: { id: 'toolu_read', name: 'Read', args: { file_path: 'src/utils.py' }, output: 'def add(a, b):\n    return a - b  # the bug the agent fixes\n' },
  taskA: { id: 'toolu_task_a', name: 'Task', args: { prompt: 'find the failing test' } },
  taskB: { id: 'toolu_task_b', name: 'Task', args: { prompt: 'check the docs' }, error: 'SubagentError' },
  ls: { id: 'toolu_ls', name: 'Bash', args: { command: 'ls tests' }, output: `test_utils.py\n${XSS}` },
  grep: { id: 'toolu_grep', name: 'Grep', args: { pattern: 'def add' } },
} as const;

const tool = (invocation: string, id: string, name: string, status: string, start: number | null, end: number | null, extra: JsonObject = {}) => ({
  kind: 'tool_call',
  invocation_id: invocation,
  tool_call_id: id,
  tool_name: name,
  started_at: start,
  completed_at: end,
  duration_ms: start !== null && end !== null ? Math.round((end - start) * 1000) : null,
  timing_source: start !== null ? 'executor' : null,
  status,
  ...extra,
});

const T = 1_760_000_000; // the calls' and the tools' one clock (Unix seconds)
const calls: { id: string; at: [number, number]; asks: string[] }[] = [
  { id: 'call-0', at: [0, 1], asks: [TOOLS.read.id] },
  { id: 'call-1', at: [2, 3], asks: [TOOLS.taskA.id, TOOLS.taskB.id] },
  { id: 'call-2', at: [5, 6], asks: [TOOLS.ls.id] },
  { id: 'call-3', at: [5.5, 7], asks: [] },
  { id: 'call-4', at: [14, 15], asks: [TOOLS.grep.id] },
  { id: 'call-5', at: [17, 18], asks: [] },
  { id: 'call-judge', at: [19, 20], asks: [] },
];

export const claudeLine: JsonObject = {
  _ng_task_index: 0,
  _ng_rollout_index: 0,
  reward: 1.0,
  ng_agent_observations: {
    source: 'claude_code',
    records: [
      {
        kind: 'agent_invocation',
        invocation_id: 'main',
        status: 'completed',
        duration_ms: 18000,
        model_calls: ['call-0', 'call-1', 'call-4', 'call-5'].map((c) => ({ model_call_id: c })),
        conversation: [
          ...text('Fix the failing test in src/utils.py'),
          fc(TOOLS.read.id, TOOLS.read.name, TOOLS.read.args),
          fco(TOOLS.read.id, TOOLS.read.output),
          fc(TOOLS.taskA.id, TOOLS.taskA.name, TOOLS.taskA.args),
          fc(TOOLS.taskB.id, TOOLS.taskB.name, TOOLS.taskB.args),
          fco(TOOLS.taskA.id, 'test_add fails: expected 3, got -1'),
          fco(TOOLS.taskB.id, 'Error: subagent crashed'),
          fc(TOOLS.grep.id, TOOLS.grep.name, TOOLS.grep.args),
          fco(TOOLS.grep.id, 'src/utils.py:1:def add(a, b):'),
        ],
      },
      { kind: 'agent_invocation', invocation_id: 'sub-a', parent_invocation_id: 'main', spawned_by_tool_call_id: TOOLS.taskA.id, status: 'completed', model_calls: [{ model_call_id: 'call-2' }], conversation: [...text(`find the failing test ${XSS}`), fc(TOOLS.ls.id, TOOLS.ls.name, TOOLS.ls.args), fco(TOOLS.ls.id, TOOLS.ls.output)] },
      { kind: 'agent_invocation', invocation_id: 'sub-b', parent_invocation_id: 'main', spawned_by_tool_call_id: TOOLS.taskB.id, status: 'failed', error_type: 'SubagentError', model_calls: [{ model_call_id: 'call-3' }], conversation: text('check the docs') },
      tool('main', TOOLS.read.id, TOOLS.read.name, 'completed', T + 1.2, T + 1.5, { sandbox_id: 'sb-1' }),
      tool('main', TOOLS.taskA.id, TOOLS.taskA.name, 'completed', T + 3.5, T + 13),
      tool('main', TOOLS.taskB.id, TOOLS.taskB.name, 'failed', T + 4, T + 12.5, { error_type: TOOLS.taskB.error }),
      tool('sub-a', TOOLS.ls.id, TOOLS.ls.name, 'completed', T + 6.2, T + 6.6, { sandbox_id: 'sb-1' }),
      tool('main', TOOLS.grep.id, TOOLS.grep.name, 'completed', null, null),
      { kind: 'context_compaction', invocation_id: 'main', trigger: 'auto', outcome: 'completed', tokens_before: 150000, tokens_after: 9000, summary: 'The agent read utils.py and found add() subtracts.', before_model_call: { model_call_id: 'call-4' }, after_model_call: { model_call_id: 'call-5' } },
      { kind: 'sandbox', role: 'agent', sandbox_id: 'sb-1', provider: 'docker', outcome: 'completed', exit_code: 0, wall_time_s: 20.5, cpu_time_s: 3.25, peak_memory_mib: 512 },
      { kind: 'sandbox', role: 'verifier', outcome: 'failed', exit_code: 1, wall_time_s: 4, cpu_time_s: 1.5, peak_memory_mib: 256 },
    ],
    gaps: [{ code: 'compaction_first_kept_item_unavailable', invocation_id: 'main' }],
  },
};

/** The claude-like rollout's capture file: Anthropic Messages calls, each response asking for its tool calls. */
function captureLines(): string {
  return calls
    .map((c, k) =>
      line(
        makeExchange({
          model_call_id: c.id,
          dialect: 'messages',
          model_ref: c.id === 'call-judge' ? { type: 'responses_api_models', name: 'judge' } : REF,
          started_at: T + c.at[0],
          completed_at: T + c.at[1],
          latency_ms: (c.at[1] - c.at[0]) * 1000,
          request: { model: 'claude', max_tokens: 1024, messages: [{ role: 'user', content: `step ${k}` }] },
          response: {
            id: `msg_${k}`,
            type: 'message',
            role: 'assistant',
            model: 'claude',
            content: c.asks.length
              ? c.asks.map((id) => ({ type: 'tool_use', id, name: Object.values(TOOLS).find((t) => t.id === id)!.name, input: Object.values(TOOLS).find((t) => t.id === id)!.args }))
              : [{ type: 'text', text: `answer ${k}` }],
            stop_reason: c.asks.length ? 'tool_use' : 'end_turn',
            usage: { input_tokens: 1000 + k, output_tokens: 50 + k },
          },
        }),
      ),
    )
    .join('');
}

/** Producer turns, as a harness that tracks them puts them in its own ng_trajectory (the collector keeps them). */
const producerTurns = {
  task_id: '0',
  rollout_id: '0-0',
  turns: [
    { invocation_id: 'main', task_id: '0', rollout_id: '0-0', turn_no: 1, timestamp: T, question: 'Fix the failing test in src/utils.py', answer: 'Found the bug in add()', resolved: false, step_count: 4, model_calls: [{ model_call_id: 'call-0' }, { model_call_id: 'call-1' }] },
    { invocation_id: 'main', task_id: '0', rollout_id: '0-0', turn_no: 2, timestamp: T + 14, question: 'Apply the fix', answer: `Patched: return a + b ${XSS}`, resolved: true, step_count: 2, model_calls: [{ model_call_id: 'call-4' }, { model_call_id: 'call-5' }] },
  ],
};

const brokenLine = {
  _ng_task_index: 5,
  _ng_rollout_index: 0,
  reward: 0.0,
  ng_trajectory: {
    schema_version: '1.0',
    task_id: '5',
    rollout_id: '5-0',
    invocations: [{ kind: 'agent_invocation', invocation_id: 'solo', status: 'completed', duration_ms: -3, model_calls: [], conversation: [] }, { no_id: true }],
    turns: [],
    model_calls: [{ model_call_id: 'm0', started_at: 'later', completed_at: null, duration_ms: 5 }],
    tool_calls: [{ kind: 'tool_call', invocation_id: 'solo', tool_call_id: 'x1', status: 'exploded', started_at: T, completed_at: T + 1 }],
    gaps: [{ code: 'turns_unavailable' }],
  },
};

/** Writes the three runs under `dir/results` and returns that path. */
export function writeTrajectoryRuns(dir: string): string {
  const results = path.join(dir, 'results');
  const captures = path.join(results, 'agent', 'captures');
  mkdirSync(captures, { recursive: true });
  writeFileSync(path.join(captures, '0-0.capture.jsonl'), captureLines());
  writeFileSync(path.join(results, 'agent', 'rollouts.jsonl'), JSON.stringify(claudeLine) + '\n');
  // the collector's output for the same line, a producer trajectory's turns carried in
  const raw = path.join(dir, 'collector-input.jsonl');
  writeFileSync(raw, JSON.stringify({ ...claudeLine, ng_trajectory: producerTurns }) + '\n');
  mkdirSync(path.join(results, 'collected'));
  const args = ['bin/callscope.js', 'attach', '--capture-dir', captures, '--input', raw, '--output', path.join(results, 'collected', 'rollouts.jsonl'), '--trajectory'];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`attach --trajectory failed: ${r.stderr}`);
  mkdirSync(path.join(results, 'broken'));
  writeFileSync(path.join(results, 'broken', 'rollouts.jsonl'), JSON.stringify(brokenLine) + '\n');
  return results;
}
