// A rollout line as a conversation, over lines shaped as NeMo Gym writes them (spec §8.4): the prompt from
// responses_create_params.input, the agent's output items, and pointers into the line.
import { describe, expect, it } from 'vitest';
import { lineConversation } from '../../../lib/view/line-conversation';

const LINE = {
  responses_create_params: { input: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What is the capital of France?' }], tools: [{ type: 'function', name: 'search', parameters: {} }] },
  response: {
    id: 'resp_abc',
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Easy.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'search', arguments: '{"q": "capital of France"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Paris is the capital.' },
      { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Paris', annotations: [] }] },
    ],
  },
  reward: 1.0,
  _ng_task_index: 0,
  _ng_rollout_index: 0,
};

describe('lineConversation', () => {
  it("reads the task's messages, then the agent's output items, with pointers into the line", () => {
    const c = lineConversation(LINE)!;
    expect(c.dialect).toBe('responses');
    expect(c.tools).toEqual(['search']);
    expect(c.messages.map((m) => [m.role, m.source, m.pointer])).toEqual([
      ['system', 'request', '/line/responses_create_params/input/0'],
      ['user', 'request', '/line/responses_create_params/input/1'],
      ...c.messages.slice(2).map((m) => [m.role, 'response', m.pointer]),
    ]);
    const parts = c.messages.flatMap((m) => m.parts);
    expect(parts.every((p) => p.pointer.startsWith('/line/'))).toBe(true);
    expect(parts.some((p) => p.kind === 'tool_call' && p.name === 'search')).toBe(true);
    expect(parts.some((p) => p.kind === 'tool_result' && p.text === 'Paris is the capital.')).toBe(true);
    expect(parts.some((p) => p.kind === 'text' && p.text === 'Paris')).toBe(true);
    expect(c.notes).toEqual([]);
  });

  it('reads a prompt given as a string (older shapes), and says when the final response is missing', () => {
    const c = lineConversation({ responses_create_params: { input: 'Answer A, B, C or D.' }, response: null, reward: 0.0 })!;
    expect(c.messages[0].parts[0]).toMatchObject({ kind: 'text', text: 'Answer A, B, C or D.', pointer: '/line/responses_create_params/input' });
    expect(c.notes).toEqual(['The line has no response object: the agent left no final response (a failed or timed-out rollout).']);
  });

  it('is null for a line with neither', () => {
    expect(lineConversation({ reward: 1.0 })).toBeNull();
    expect(lineConversation('not an object')).toBeNull();
  });
});
