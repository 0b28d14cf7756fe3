// The `ng_agent_observations` bundle hermes_agent reports (responses_api_agents/hermes_agent/observability.py and
// app.py): one `root` invocation whose conversation is Hermes's message list normalized to Responses items
// (normalize_hermes_messages, the system prompt first), its calls referenced as {model_ref, response_id}, and its
// tools timed by Hermes's tool callbacks (`harness`) or around the executor (`executor`), failed when the result
// reads as an error. A pinned Hermes without the tool callbacks times no tool at all (`hermes_hook_unavailable`);
// tools run in Docker, which reports no sandbox observation.
import { isJsonObject, truthy, type JsonObject, type JsonValue } from '../capture/json-value';
import { serialize } from '../capture/json-serialize';
import { gap } from '../rollouts/join';
import { validateBundle } from '../rollouts/observations';
import type { Message } from './conversation';
import type { ToolTrace } from './rollout-trace';
import type { ObservedRollout } from './scenario';
import type { Rng } from './random';

export const HERMES_SOURCE = 'hermes';
const ROOT = 'root';

/** HermesAgentObserver._failed_result. */
export function failedResult(toolName: string, result: string): boolean {
  const value = result.replace(/^\s+/, '');
  let payload: JsonValue;
  try {
    payload = JSON.parse(value) as JsonValue;
  } catch {
    const lower = value.slice(0, 500).toLowerCase();
    return value.startsWith('Error') || lower.includes('"error"') || lower.includes('"failed"');
  }
  if (!isJsonObject(payload)) return false;
  const exit = payload.exit_code;
  if (toolName === 'terminal' && exit !== undefined && exit !== null && exit !== 0) return true;
  return payload.status === 'error' || payload.status === 'failed' || truthy(payload.error);
}

/** normalize_hermes_messages(messages, id_prefix="root"): indices count Hermes's messages, which omit the system prompt. */
function conversation(system: string | null, messages: Message[]): JsonObject[] {
  const items: JsonObject[] = system ? [{ role: 'system', content: system }] : [];
  messages.forEach((m, index) => {
    if (m.role === 'system' || m.role === 'user') items.push({ role: m.role, content: m.text });
    else if (m.role === 'tool') items.push({ type: 'function_call_output', call_id: m.callId, output: m.output, status: 'completed' });
    else {
      if (m.turn.reasoning) items.push({ type: 'reasoning', id: `${ROOT}-reasoning-${index}`, summary: [{ text: m.turn.reasoning, type: 'summary_text' }] });
      items.push({ type: 'message', id: `${ROOT}-message-${index}`, role: 'assistant', content: [{ type: 'output_text', text: m.turn.text ?? '', annotations: [] }] });
      for (const u of m.turn.toolUses) items.push({ type: 'function_call', arguments: serialize(u.args), call_id: u.id, id: u.id, name: u.name, status: 'completed' });
    }
  });
  return items;
}

/** The callback fires a moment after the harness starts the tool; the executor wrapper later still. Monotonic durations. */
function toolRecord(rng: Rng, tool: ToolTrace): JsonObject {
  const executor = tool.name === 'terminal';
  const startedAt = tool.startedAt + rng.float(0.0001, 0.0008) + (executor ? rng.float(0.0005, 0.002) : 0);
  const completedAt = tool.completedAt - rng.float(0.0001, 0.0008);
  return {
    kind: 'tool_call',
    invocation_id: ROOT,
    tool_call_id: tool.callId,
    tool_name: tool.name,
    started_at: startedAt,
    completed_at: completedAt,
    duration_ms: Math.max(0, (completedAt - startedAt) * 1000 - rng.float(0, 0.02)),
    timing_source: executor ? 'executor' : 'harness',
    status: failedResult(tool.name, tool.output) ? 'failed' : 'completed',
  };
}

export function hermesObservations(r: ObservedRollout): JsonObject {
  const { rng } = r;
  const modelRef = { type: 'responses_api_models', name: r.spec.scenario.policy.name };
  const hooked = !rng.chance(1 / 3);
  const gaps = hooked ? [] : ['tool_start_callback', 'tool_complete_callback'].map((hook) => gap('hermes_hook_unavailable', ROOT, hook));
  const system = r.initial.find((m) => m.role === 'system');
  const root = {
    kind: 'agent_invocation',
    invocation_id: ROOT,
    status: 'completed',
    model_calls: r.turns.map((t) => ({ model_ref: modelRef, response_id: t.turn.responseId })),
    conversation: conversation(system?.role === 'system' ? system.text : null, [...r.initial.filter((m) => m.role !== 'system'), ...r.history]),
  };
  const tools = hooked ? r.turns.flatMap((t) => t.tools.map((tool) => toolRecord(rng, tool))) : [];
  gaps.push(gap('sandbox_observation_unavailable', null, 'terminal_backend=docker'));
  const bundle = validateBundle({ source: HERMES_SOURCE, records: [root, ...tools], gaps } as JsonValue);
  if (!bundle.ok) throw new Error(`demo hermes bundle does not validate: ${JSON.stringify(bundle.problems)}`);
  return bundle.value;
}
