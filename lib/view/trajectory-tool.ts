// One tool call of a trajectory, for its page: which entry a link names, its arguments and output as the invocation's
// model-visible conversation holds them (the function_call item and the function_call_output item with its call_id),
// the subagent it spawned, and the model calls around it. Values stay as stored; text is rendered as text.
import type { AgentInvocation, TrajectoryToolCall } from '../rollouts/observations';
import { parseArguments } from './conversation';
import { plainJson } from './plain-json';
import { toolNeighbourFinder, type ToolNeighbours } from './trajectory-neighbours';
import type { TrajectoryParts } from './trajectory-read';
import { callOwners, callRefIndex } from './trajectory-refs';

/** The entry a link names: the tool call with this id (in `invocation` when given); the others with the same id. */
export function findToolCall(parts: TrajectoryParts, toolCallId: string, invocation: string | null): { index: number; others: number[] } | null {
  const same = parts.toolCalls.flatMap((t, j) => (t.tool_call_id === toolCallId ? [j] : []));
  const index = invocation === null ? (same[0] ?? -1) : (same.find((j) => parts.toolCalls[j].invocation_id === invocation) ?? -1);
  return index < 0 ? null : { index, others: same.filter((j) => j !== index) };
}

/** The conversation items of the tool call's own invocation first, then of the others. */
function itemsFor(parts: TrajectoryParts, tool: TrajectoryToolCall): Record<string, unknown>[] {
  const own = parts.invocations.filter((i) => i.invocation_id === tool.invocation_id);
  const rest = parts.invocations.filter((i) => i.invocation_id !== tool.invocation_id);
  return [...own, ...rest].flatMap((i) => i.conversation);
}

/** A stored value as text: a string as it is, anything else as indented JSON. */
export function valueText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(plainJson(v), null, 2);
}

export interface ToolCallDetail {
  /** The function_call item's name and arguments (as JSON text when they parse), or null when no item has its id. */
  call: { name: string | null; arguments: string } | null;
  /** The output: the trajectory's own, else the function_call_output item's; null when neither is recorded. */
  output: { text: string; from: 'trajectory' | 'conversation' } | null;
  /** Invocations spawned by this tool call. */
  spawned: AgentInvocation[];
  neighbours: ToolNeighbours;
}

export function toolCallDetail(parts: TrajectoryParts, j: number): ToolCallDetail {
  const tool = parts.toolCalls[j];
  const items = itemsFor(parts, tool).filter((it) => it.call_id === tool.tool_call_id);
  const fc = items.find((it) => it.type === 'function_call' || (it.type === undefined && 'arguments' in it));
  const out = items.find((it) => it.type === 'function_call_output' || (it.type === undefined && 'output' in it));
  const args = fc ? parseArguments(fc.arguments) : null;
  const output = tool.output !== null ? { text: valueText(tool.output), from: 'trajectory' as const } : out && out.output !== undefined && out.output !== null ? { text: valueText(out.output), from: 'conversation' as const } : null;
  const refs = callRefIndex(parts.modelCalls);
  const owners = callOwners(parts, refs);
  const first = new Map<string, number>();
  parts.invocations.forEach((inv, k) => first.has(inv.invocation_id) || first.set(inv.invocation_id, k));
  const neighbours = toolNeighbourFinder(parts, owners, (id) => first.get(id) ?? -1)(tool);
  return {
    call: fc ? { name: typeof fc.name === 'string' ? fc.name : null, arguments: args === null ? '' : valueText(args) } : null,
    output,
    spawned: parts.invocations.filter((i) => i.spawned_by_tool_call_id === tool.tool_call_id && (i.parent_invocation_id === null || i.parent_invocation_id === tool.invocation_id)),
    neighbours,
  };
}
