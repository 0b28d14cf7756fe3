// One invocation of a trajectory, for its page: its place in the tree (parent, the tool call that spawned it, the
// subagents it spawned), the model calls it owns and the tool calls it ran, and its model-visible conversation (Responses
// input items) as the call page's conversation view shows a request, its pointers into the invocation record.
import { normalizeConversation, type Conversation } from './conversation';
import type { TrajectoryParts } from './trajectory-read';
import { callOwners, callRefIndex } from './trajectory-refs';
import { drawnSpan, measuredInterval } from './trajectory-timing';

export interface InvocationDetail {
  /** Position in `invocations`. */
  index: number;
  /** The parent's position, -1 when it has none or the record lacks it (then `missingParent` names it). */
  parent: number;
  missingParent: string | null;
  /** The tool call that spawned it (position in `toolCalls`), or -1. */
  spawnedBy: number;
  children: number[];
  /** Its model calls and tool calls, each in time order (unmeasured last, in record order). */
  modelCalls: number[];
  toolCalls: number[];
  compactions: number[];
}

const byStart = (start: (k: number) => number | null) => (a: number, b: number) => {
  const [x, y] = [start(a), start(b)];
  return x === y ? a - b : x === null ? 1 : y === null ? -1 : x - y;
};

export function invocationDetail(parts: TrajectoryParts, id: string): InvocationDetail | null {
  const index = parts.invocations.findIndex((i) => i.invocation_id === id);
  if (index < 0) return null;
  const inv = parts.invocations[index];
  const owners = callOwners(parts, callRefIndex(parts.modelCalls));
  const callStart = (i: number) => drawnSpan(measuredInterval(parts.modelCalls[i].started_at, parts.modelCalls[i].completed_at, parts.modelCalls[i].duration_ms))?.[0] ?? null;
  const toolStart = (j: number) => drawnSpan(measuredInterval(parts.toolCalls[j].started_at, parts.toolCalls[j].completed_at, parts.toolCalls[j].duration_ms))?.[0] ?? null;
  const parent = inv.parent_invocation_id === null ? -1 : parts.invocations.findIndex((i) => i.invocation_id === inv.parent_invocation_id);
  const ownTools = new Set(parts.toolCalls.filter((t) => t.invocation_id === id).map((t) => t.tool_call_id));
  const spawners = parts.toolCalls.flatMap((t, j) => (inv.spawned_by_tool_call_id !== null && t.tool_call_id === inv.spawned_by_tool_call_id ? [j] : []));
  return {
    index,
    parent,
    missingParent: inv.parent_invocation_id !== null && parent < 0 ? inv.parent_invocation_id : null,
    spawnedBy: spawners.find((j) => parts.toolCalls[j].invocation_id === inv.parent_invocation_id) ?? (spawners.length === 1 ? spawners[0] : -1),
    // its children: those that name it as their parent, and those that name no parent but one of its tool calls as their spawner
    children: parts.invocations.flatMap((c, k) =>
      k !== index && (c.parent_invocation_id === id || (c.parent_invocation_id === null && c.spawned_by_tool_call_id !== null && ownTools.has(c.spawned_by_tool_call_id))) ? [k] : [],
    ),
    modelCalls: parts.modelCalls.flatMap((_, i) => (owners[i] === index ? [i] : [])).sort(byStart(callStart)),
    toolCalls: parts.toolCalls.flatMap((t, j) => (t.invocation_id === id ? [j] : [])).sort(byStart(toolStart)),
    compactions: parts.compactions.flatMap((c, k) => (c.invocation_id === id ? [k] : [])),
  };
}

const IN = '/_/input';
const AT = '/invocation/conversation';

/** The conversation's items as messages; each points at its item in the invocation record (`/invocation/conversation/<i>`). */
export function invocationConversation(items: readonly unknown[]): Conversation {
  const c = normalizeConversation('responses', { input: items }, {}, { request: '/_', response: '/_response' });
  const at = (p: string) => (p.startsWith(IN) ? `${AT}${p.slice(IN.length)}` : p);
  return { ...c, messages: c.messages.map((m) => ({ ...m, pointer: at(m.pointer), parts: m.parts.map((part) => ({ ...part, pointer: at(part.pointer) })) })) };
}
