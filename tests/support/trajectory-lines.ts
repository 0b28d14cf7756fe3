// NeMo Gym-shaped agent lines with ng_agent_observations and their capture files: a claude_code-like rollout with
// two subagents, a compaction, parallel and failed tool calls, an unowned judge call; a hermes-like one.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../lib/capture/json-value';
import { line, makeExchange } from './exchange';

export const inv = (id: string, calls: string[], extra: JsonObject = {}) => ({
  kind: 'agent_invocation',
  invocation_id: id,
  model_calls: calls.map((c) => ({ model_call_id: c })),
  conversation: [{ role: 'user', content: `task for ${id}` }],
  ...extra,
});
export const tool = (invocation: string, id: string, status: string, start: number, end: number) => ({
  kind: 'tool_call',
  invocation_id: invocation,
  tool_call_id: id,
  tool_name: 'Bash',
  started_at: start,
  completed_at: end,
  duration_ms: (end - start) * 1000,
  timing_source: 'artifact',
  status,
});
export const claudeLine = {
  _ng_task_index: 0,
  _ng_rollout_index: 0,
  reward: 1.0,
  ng_agent_observations: {
    source: 'claude_code',
    records: [
      inv('main', ['call-0', 'call-1', 'call-4']),
      inv('sub-a', ['call-2'], { parent_invocation_id: 'main', spawned_by_tool_call_id: 'toolu_task_a', status: 'completed' }),
      inv('sub-b', ['call-3'], { parent_invocation_id: 'main', spawned_by_tool_call_id: 'toolu_task_b', status: 'failed' }),
      tool('main', 'toolu_task_a', 'completed', 10, 14),
      tool('main', 'toolu_task_b', 'failed', 10.5, 13), // parallel with the first
      tool('sub-a', 'toolu_ls', 'completed', 11, 11.25),
      {
        kind: 'context_compaction',
        invocation_id: 'main',
        outcome: 'completed',
        tokens_before: 150000,
        tokens_after: 9000,
        before_model_call: { model_call_id: 'call-1' },
        after_model_call: { model_call_id: 'call-4' },
      },
    ],
    gaps: [{ code: 'no_sandbox_runtime' }],
  },
};
export const hermesLine = {
  _ng_task_index: 1,
  _ng_rollout_index: 0,
  ng_agent_observations: {
    source: 'hermes',
    records: [inv('root', ['call-h0']), tool('root', 'call_1', 'completed', 1, 2)],
    gaps: [{ code: 'sandbox_observation_unavailable', detail: 'terminal_backend=docker' }],
  },
};

/** The two lines' capture files in `captures` (rollout ids 0-0 and 1-0). */
export function writeCaptures(captures: string): void {
  const main = ['call-0', 'call-1', 'call-2', 'call-3', 'call-4', 'call-judge'].map((id) => line(makeExchange({ model_call_id: id, request: { input: `q ${id}` } })));
  writeFileSync(path.join(captures, '0-0.capture.jsonl'), main.join(''));
  writeFileSync(path.join(captures, '1-0.capture.jsonl'), line(makeExchange({ model_call_id: 'call-h0' })));
}

