// What the tool call and invocation pages read from a trajectory, on upstream's projection of its nested-tree test
// (tests/fixtures/trajectory/expected.json, producer-project-0), and the lenient reader on a stored record that does
// not validate.
import { describe, expect, it } from 'vitest';
import { describeItem } from '../../../lib/view/trajectory-describe';
import { invocationConversation, invocationDetail } from '../../../lib/view/trajectory-invocation';
import { layoutTrajectory } from '../../../lib/view/trajectory-layout';
import { readTrajectory } from '../../../lib/view/trajectory-read';
import { findToolCall, toolCallDetail } from '../../../lib/view/trajectory-tool';
import { fixtureAnswer } from '../../support/trajectory-fixtures';

const parts = readTrajectory(fixtureAnswer('producer-project-0'))!;
const id = (i: number) => parts.modelCalls[i].model_call_id;

describe('a tool call', () => {
  it('is found by its tool_call_id, in the invocation a link names', () => {
    const found = findToolCall(parts, 'tool-fast', null)!;
    expect(parts.toolCalls[found.index].invocation_id).toBe('session-root');
    expect(findToolCall(parts, 'tool-fast', 'session-root')!.index).toBe(found.index);
    expect(findToolCall(parts, 'tool-fast', 'agent-child')).toBeNull();
    expect(findToolCall(parts, 'no-such-tool', null)).toBeNull();
  });

  it("has the arguments of its invocation's function_call item and the trajectory's output", () => {
    const d = toolCallDetail(parts, findToolCall(parts, 'tool-fast', null)!.index);
    expect(d.call).toEqual({ name: 'Read', arguments: JSON.stringify({ path: 'a' }, null, 2) });
    expect(d.output).toEqual({ text: 'result', from: 'trajectory' });
  });

  it('names the subagent it spawned, and the calls of its invocation around it', () => {
    const d = toolCallDetail(parts, findToolCall(parts, 'tool-child', null)!.index);
    expect(d.spawned.map((i) => i.invocation_id)).toEqual(['agent-child']);
    // no response payload asked for it (requested_tools is empty): by time, session-root's one call ended before it
    expect([d.neighbours.requesting, id(d.neighbours.before), d.neighbours.after]).toEqual([-1, 'cap-2', -1]);
  });
});

describe('an invocation', () => {
  it('knows its parent, the tool call that spawned it, its subagents and its calls', () => {
    const d = invocationDetail(parts, 'agent-child')!;
    expect(parts.invocations[d.parent].invocation_id).toBe('session-root');
    expect(parts.toolCalls[d.spawnedBy].tool_call_id).toBe('tool-child');
    expect(d.children.map((k) => parts.invocations[k].invocation_id)).toEqual(['agent-grandchild']);
    expect(d.modelCalls.map(id)).toEqual(['cap-0']);
    expect(d.toolCalls.map((j) => parts.toolCalls[j].tool_call_id)).toEqual(['tool-grandchild']);
    expect(invocationDetail(parts, 'nobody')).toBeNull();
  });

  it('shows its conversation as messages that point at their items in the invocation record', () => {
    const inv = parts.invocations[invocationDetail(parts, 'session-root')!.index];
    const c = invocationConversation(inv.conversation);
    expect(c.notes).toEqual([]);
    expect(c.messages[0]).toMatchObject({ role: 'user', pointer: '/invocation/conversation/0', parts: [{ kind: 'text', text: 'solve' }] });
    const calls = c.messages.flatMap((m) => m.parts).filter((p) => p.kind === 'tool_call');
    expect(calls.map((p) => p.pointer)).toEqual(['/invocation/conversation/2', '/invocation/conversation/3']);
  });
});

describe('a stored trajectory that does not validate', () => {
  const answer = {
    trajectory: {
      invocations: [{ invocation_id: 'a', status: 'exploded', duration_ms: 'long' }, { no_id: true }, 7],
      model_calls: 'not a list',
      tool_calls: [{ invocation_id: 'a', tool_call_id: 't', started_at: '1.0', completed_at: null, timing_source: 'guess' }],
      gaps: [{ detail: 'no code' }, { code: 'turns_unavailable' }],
    },
    observations: null,
    requested_tools: {},
  };

  it('is read field by field: wrong types are unknown, entries without ids are left out and said so', () => {
    const p = readTrajectory(answer)!;
    expect(p.invocations).toHaveLength(1);
    expect(p.invocations[0]).toMatchObject({ invocation_id: 'a', status: 'unknown', duration_ms: null });
    expect(p.toolCalls[0]).toMatchObject({ started_at: null, timing_source: null });
    expect(p.gaps).toEqual([{ code: 'turns_unavailable', invocation_id: null, detail: null }]);
    expect(p.problems).toEqual(['2 of the invocations entries are not objects or lack their ids: not shown', 'model_calls is not a list: not shown', '1 of the gaps entries are not objects or lack their code: not shown']);
  });

  it('still lays out, and says that its tool call was not measured', () => {
    const p = readTrajectory(answer)!;
    const l = layoutTrajectory(p);
    expect(describeItem(p, l, l.base.toolCall).when).toContain('not measured');
  });
});
