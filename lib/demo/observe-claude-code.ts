// The `ng_agent_observations` bundle claude_code_agent reports for a simulated invocation tree, built by the rules
// of its transcript reader (responses_api_agents/claude_code_agent/observability.py): invocations ordered root
// first, then subagents by agent id (their transcript paths sort so); model calls referenced as
// {model_ref, response_id}; each content block its own transcript event (item ids `<uuid>:<kind>:0`); a tool's
// interval from its tool_use event to its tool_result event, at millisecond precision, `artifact`-timed; a
// subagent's status from its Task call's; a compaction between the last call before it and the first after,
// its call left for the collector's association. Beyond that producer: sandbox runs and the sandbox a tool ran in.
import type { JsonObject, JsonValue } from '../capture/json-value';
import { CLAUDE_CODE_SOURCE, pyDumps } from '../rollouts/compaction';
import { gap } from '../rollouts/join';
import { validateBundle } from '../rollouts/observations';
import type { TracedInvocation, TracedTool, TracedTurn } from './agent-tree';
import type { Rng } from './random';

export interface ClaudeCodeFacts {
  root: TracedInvocation;
  modelServer: string;
  /** For the transcript's event uuids. */
  rng: Rng;
  /** The CLI's own measure of the session (run_metadata). */
  durationMs: number;
  /** The sandbox the tools ran in and its runs; null when the runtime reported none. */
  sandbox: { id: string; records: JsonObject[] } | null;
}

export function uuid(rng: Rng): string {
  const h = rng.uuid4hex();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The Task calls that spawned the invocation's subagents, theirs included. */
function spawns(inv: TracedInvocation): TracedTool[] {
  return inv.steps.flatMap((s) => (s.kind === 'turn' ? s.tools.flatMap((t) => (t.child ? [t, ...spawns(t.child)] : [])) : []));
}

/** A subagent's outcome as its Task call's result reports it. */
function childStatus(status: TracedTool['status']): { status: string; error_type: string | null } {
  if (status === 'completed') return { status, error_type: null };
  return { status: status === 'timeout' ? 'incomplete' : status, error_type: status };
}

export function claudeCodeObservations(f: ClaudeCodeFacts): JsonObject {
  const modelRef = { type: 'responses_api_models', name: f.modelServer };
  const spawnedBy = new Map(spawns(f.root).map((t) => [t.child!.id, t]));
  const invocations = [f.root, ...[...spawnedBy.values()].map((t) => t.child!).sort((a, b) => (a.id < b.id ? -1 : 1))];
  const records: JsonObject[] = [];
  const tools: JsonObject[] = [];
  const compactions: JsonObject[] = [];
  const gaps: JsonObject[] = [];

  for (const inv of invocations) {
    const conversation: JsonObject[] = [{ role: 'user', content: inv.prompt }];
    const refs: JsonObject[] = [];
    const invTools: JsonObject[] = [];
    let last: JsonObject | null = null;
    let pending: JsonObject | null = null;
    for (const step of inv.steps) {
      if (step.kind === 'compaction') {
        pending = {
          kind: 'context_compaction',
          invocation_id: inv.id,
          observed_at: step.at,
          trigger: 'auto',
          tokens_before: step.tokensBefore,
          tokens_after: step.tokensAfter,
          outcome: 'completed',
          summary: step.summary,
          before_model_call: last,
          model_calls: [],
        };
        compactions.push(pending);
        conversation.push({ role: 'user', content: step.summary });
        continue;
      }
      const ref = { model_ref: modelRef, response_id: step.turn.responseId };
      refs.push(ref);
      if (pending) pending.after_model_call = ref;
      pending = null;
      last = ref;
      conversation.push(...assistantItems(step, f.rng));
      for (const tool of step.tools) {
        conversation.push({ type: 'function_call_output', call_id: tool.use.id, output: tool.output, status: tool.status === 'completed' ? 'completed' : 'incomplete' });
        invTools.push(toolRecord(inv.id, tool, f.sandbox?.id ?? null));
      }
    }
    const parent = spawnedBy.get(inv.id);
    records.push({
      kind: 'agent_invocation',
      invocation_id: inv.id,
      parent_invocation_id: inv.parent?.invocationId ?? null,
      spawned_by_tool_call_id: inv.parent?.toolCallId ?? null,
      ...(parent ? { ...childStatus(parent.status), duration_ms: null } : { status: 'completed', duration_ms: f.durationMs, error_type: null }),
      model_calls: refs,
      conversation,
    });
    invTools.sort((a, b) => ((a.tool_call_id as string) < (b.tool_call_id as string) ? -1 : 1));
    tools.push(...invTools);
  }
  for (const c of compactions) gaps.push(gap('compaction_model_call_reference_unavailable', c.invocation_id as string));
  for (const t of tools) {
    if (t.started_at !== null) continue;
    gaps.push(gap('tool_start_timestamp_missing', t.invocation_id as string, t.tool_call_id as string));
    gaps.push(gap('tool_result_timestamp_missing', t.invocation_id as string, t.tool_call_id as string));
  }
  if (!f.sandbox) gaps.push(gap('sandbox_observation_unavailable'));
  const bundle = validateBundle({ source: CLAUDE_CODE_SOURCE, records: [...records, ...tools, ...compactions, ...(f.sandbox?.records ?? [])], gaps } as JsonValue);
  if (!bundle.ok) throw new Error(`demo claude_code bundle does not validate: ${JSON.stringify(bundle.problems)}`);
  return bundle.value;
}

/** One transcript event per content block, as Claude Code writes them. */
function assistantItems(step: TracedTurn, rng: Rng): JsonObject[] {
  const { turn } = step;
  const items: JsonObject[] = [];
  if (turn.reasoning) items.push({ id: `${uuid(rng)}:thinking:0`, type: 'reasoning', summary: [{ text: turn.reasoning, type: 'summary_text' }], encrypted_content: turn.signature });
  if (turn.text) items.push({ id: `${uuid(rng)}:text:0`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
  for (const u of turn.toolUses) {
    uuid(rng); // the tool_use block's own event
    items.push({ type: 'function_call', arguments: pyDumps(u.args), call_id: u.id, name: u.name, id: u.id, status: 'completed' });
  }
  return items;
}

function toolRecord(invocationId: string, tool: TracedTool, sandboxId: string | null): JsonObject {
  const measured = !tool.plan.unmeasured;
  return {
    kind: 'tool_call',
    invocation_id: invocationId,
    tool_call_id: tool.use.id,
    sandbox_id: tool.child ? null : sandboxId,
    tool_name: tool.use.name,
    started_at: measured ? tool.startedAt : null,
    completed_at: measured ? tool.completedAt : null,
    duration_ms: measured ? (tool.completedAt - tool.startedAt) * 1000 : null,
    timing_source: measured ? 'artifact' : null,
    status: tool.status,
    error_type: null,
  };
}
