// An agent that spawns subagents and runs tools in parallel (Claude Code and its kin), simulated as a tree of
// invocations writing into one rollout's capture. Each invocation resends its own growing conversation on every
// call; the tools a call asks for run between that call and the invocation's next one, all at once when a turn
// asks for several; a subagent runs inside the interval of the `Task` tool call that spawned it. A compaction
// replaces an invocation's history by a summary that a hidden model call wrote, shaped so that the claude_code
// association finds that call (lib/rollouts/compaction.ts). Plans say what each invocation does; the simulator
// draws only ids, timings and bytes (calls.ts), so the same plan always gives the same capture.
import type { JsonObject } from '../capture/json-value';
import { COMPACTION_PROMPT_MARKERS, COMPACTION_SUMMARY_PREFIX } from '../rollouts/compaction';
import { simulateCall, type CallResult } from './calls';
import { estimateTokens, newIds, newToolUse, startConversation, type AssistantTurn, type Conversation, type Message, type ToolDef, type ToolUse } from './conversation';
import type { Usage } from './dialect-shared';
import type { Rng } from './random';
import { RETRY_DELAY_S } from './rollout';
import type { CallFault } from './rollout-trace';
import type { PolicyServer } from './scenario';

export type ToolStatus = 'completed' | 'failed' | 'timeout';

export interface ToolPlan {
  name: string;
  args: JsonObject;
  /** What the tool returns; a `Task` returns its subagent's final answer instead. */
  output: string;
  /** Median run time; a timeout runs exactly this long. */
  seconds: number;
  status?: ToolStatus;
  /** The transcript lost this call's timestamps: its interval is unmeasured. */
  unmeasured?: boolean;
  /** The subagent this `Task` call runs. */
  spawn?: InvocationPlan;
}

export interface TurnPlan {
  reasoning: string | null;
  text: string | null;
  /** None on the invocation's final turn. */
  tools: ToolPlan[];
  /** Provider faults met, and retried, before the call that answers. */
  faults?: CallFault[];
}

export interface CompactionPlan {
  compaction: { analysis: string; summary: string };
}

export interface InvocationPlan {
  system: string;
  prompt: string;
  tools: ToolDef[];
  steps: (TurnPlan | CompactionPlan)[];
}

export interface TracedTool {
  use: ToolUse;
  plan: ToolPlan;
  output: string;
  status: ToolStatus;
  startedAt: number;
  completedAt: number;
  child: TracedInvocation | null;
}

export interface TracedTurn {
  kind: 'turn';
  turn: AssistantTurn;
  completedAt: number;
  /** In completion order, as their results reached the conversation. */
  tools: TracedTool[];
}

export interface TracedCompaction {
  kind: 'compaction';
  at: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The summary message as the invocation's history now begins. */
  summary: string;
}

export interface TracedInvocation {
  id: string;
  parent: { invocationId: string; toolCallId: string } | null;
  prompt: string;
  steps: (TracedTurn | TracedCompaction)[];
  startedAt: number;
  endedAt: number;
}

export interface TreeRun {
  /** In append order: the order the calls completed in. */
  exchanges: JsonObject[];
  root: TracedInvocation;
  /** Usage of the root invocation's answered calls. */
  usage: Usage[];
  /** The root's messages after its prompt, never compacted (the agent's final output). */
  history: Message[];
  endAt: number;
}

const COMPACTION_PROMPT =
  `${COMPACTION_PROMPT_MARKERS[1]}, paying close attention to the user's explicit requests and your previous actions. ` +
  'Wrap your analysis in <analysis> tags, then write the summary in <summary> tags.';
// What Claude Code appends to the summary it persists (one of the suffixes the association accepts).
const CONTINUE_SUFFIX =
  '\n\nContinue the conversation from where it left off without asking the user any further questions. Resume directly — ' +
  'do not acknowledge the summary, do not recap what was happening, do not preface with "I\'ll continue" or similar. ' +
  'Pick up the last task as if the break never happened.';

/** Transcript timestamps have millisecond precision; rounding up keeps an event after what caused it. */
const ceilMs = (t: number) => Math.ceil(t * 1000) / 1000;

export interface TreeInput {
  rng: Rng;
  server: PolicyServer;
  plan: InvocationPlan;
  rootId: string;
  /** Subagent ids (Claude Code's agentId). */
  childId: (rng: Rng) => string;
  startAt: number;
}

export function simulateTree(input: TreeInput): TreeRun {
  const { rng, server } = input;
  const calls: CallResult[] = [];
  let rootUsage: Usage[] = [];
  let rootHistory: Message[] = [];

  const call = (conv: Conversation, turn: AssistantTurn, fault: CallFault | null, startedAt: number, previousPrompt: number, reasoning: boolean) => {
    const options = { streaming: true, reasoning, temperature: null, maxTokens: 32000 };
    const result = simulateCall({ rng, server, conv, turn, options, fault, startedAt, previousPrompt, sharedPrefix: 0 });
    calls.push(result);
    return result;
  };

  function run(plan: InvocationPlan, id: string, parent: TracedInvocation['parent'], startAt: number): TracedInvocation {
    const conv = startConversation(plan.system, plan.prompt, plan.tools);
    const history: Message[] = [];
    const usage: Usage[] = [];
    const traced: TracedInvocation = { id, parent, prompt: plan.prompt, steps: [], startedAt: startAt, endedAt: startAt };
    let t = startAt;
    let previousPrompt = 0;
    for (const step of plan.steps) {
      if ('compaction' in step) {
        const { analysis, summary } = step.compaction;
        const asked: Conversation = { tools: conv.tools, messages: [...conv.messages, { role: 'user', text: COMPACTION_PROMPT }] };
        const text = `<analysis>\n${analysis}\n</analysis>\n\n<summary>\n${summary}\n</summary>`;
        const made = call(asked, { reasoning: null, text, toolUses: [], ...newIds(rng, server.dialect, server.vllm) }, null, t, previousPrompt, false);
        const persisted = `${COMPACTION_SUMMARY_PREFIX}Summary:\n${summary.trim()}${CONTINUE_SUFFIX}`;
        conv.messages.splice(1, conv.messages.length - 1, { role: 'user', text: persisted });
        const at = ceilMs(made.completedAt + rng.float(0.01, 0.08));
        traced.steps.push({ kind: 'compaction', at, tokensBefore: previousPrompt, tokensAfter: estimateTokens(Buffer.byteLength(persisted)), summary: persisted });
        previousPrompt = 0; // the cache held the old history
        t = at + rng.float(0.005, 0.05);
        continue;
      }
      const toolUses = step.tools.map((p) => newToolUse(rng, server.dialect, server.vllm, p.name, p.args));
      const turn: AssistantTurn = { reasoning: server.reasoning ? step.reasoning : null, text: step.text, toolUses, ...newIds(rng, server.dialect, server.vllm) };
      for (const fault of step.faults ?? []) {
        const attempt = { ...turn, ...newIds(rng, server.dialect, server.vllm), toolUses: toolUses.map((u) => newToolUse(rng, server.dialect, server.vllm, u.name, u.args)) };
        t = call(conv, attempt, fault, t, previousPrompt, server.reasoning).completedAt + rng.around(RETRY_DELAY_S[fault], 0.4);
      }
      const answered = call(conv, turn, null, t, previousPrompt, server.reasoning);
      previousPrompt = answered.usage.prompt;
      usage.push(answered.usage);
      const assistant: Message = { role: 'assistant', turn };
      conv.messages.push(assistant);
      history.push(assistant);
      const tools = step.tools.map((p, i): TracedTool => {
        const startedAt = ceilMs(answered.completedAt + 0.002 + i * rng.float(0.001, 0.006));
        if (p.spawn) {
          const child = run(p.spawn, input.childId(rng), { invocationId: id, toolCallId: toolUses[i].id }, startedAt + rng.float(0.03, 0.1));
          const last = child.steps.filter((s): s is TracedTurn => s.kind === 'turn').at(-1);
          const output = last?.turn.text ?? p.output;
          return { use: toolUses[i], plan: p, output, status: p.status ?? 'completed', startedAt, completedAt: ceilMs(child.endedAt + rng.float(0.01, 0.05)), child };
        }
        const seconds = p.status === 'timeout' ? p.seconds : rng.around(p.seconds, 0.5);
        return { use: toolUses[i], plan: p, output: p.output, status: p.status ?? 'completed', startedAt, completedAt: ceilMs(startedAt + seconds), child: null };
      });
      tools.sort((a, b) => a.completedAt - b.completedAt);
      for (const tool of tools) {
        const result: Message = { role: 'tool', callId: tool.use.id, name: tool.use.name, output: tool.output };
        conv.messages.push(result);
        history.push(result);
      }
      traced.steps.push({ kind: 'turn', turn, completedAt: answered.completedAt, tools });
      t = Math.max(answered.completedAt, ...tools.map((x) => x.completedAt)) + rng.float(0.005, 0.05);
    }
    traced.endedAt = t;
    if (parent === null) {
      rootUsage = usage;
      rootHistory = history;
    }
    return traced;
  }

  const root = run(input.plan, input.rootId, null, input.startAt);
  // Subagents spawned in one turn run at once, so their calls interleave: a capture file is in completion order.
  const order = calls.map((c, i) => ({ c, i })).sort((a, b) => a.c.completedAt - b.c.completedAt || a.i - b.i);
  return { exchanges: order.map(({ c }) => c.exchange), root, usage: rootUsage, history: rootHistory, endAt: root.endedAt };
}
