// One rollout as an agent runs it: policy turns that resend the growing conversation, tool execution between
// them (with `tool_model` side calls made by the resources server), provider faults answered by a retry of
// the same request, and a `judge_model` call during verification. Produces the exchanges in append order and
// the rollout line the collector would persist (before the capture is attached).
import type { JsonObject } from '../capture/json-value';
import { simulateCall, type CallResult } from './calls';
import { estimateTokens, newIds, newToolUse, startConversation, type AssistantTurn, type Conversation, type Message } from './conversation';
import { RENDERERS } from './dialects';
import type { Usage } from './dialect-shared';
import type { Rng } from './random';
import { failureLine, rolloutLine } from './rollout-line';
import type { CallFault, SimulatedRollout, TurnTrace } from './rollout-trace';
import type { JudgeRecord, ModelServer, RolloutSpec, Scenario } from './scenario';

/** Decides a rollout's length: the task's natural number of steps, or an exact call budget. */
interface Pacer {
  judge: boolean;
  /** Provider faults met before the successful call of this policy turn. */
  faults(turn: number): CallFault[];
  /** Whether this policy turn gives the final answer (`faults` of it already drawn). */
  isFinal(turn: number, faults: number): boolean;
  /** Whether a tool's handler may make a `tool_model` side call now. */
  allowSideCall(): boolean;
  /** Counts one model call made. */
  spend(): void;
}

const STREAM_FAULTS: CallFault[] = ['truncated', 'stream_error'];
const randomFault = (rng: Rng) => rng.pick(['rate_limit', 'server_error'] as const);

function naturalPacer(spec: RolloutSpec, rng: Rng, plannedSteps: number): Pacer {
  const steps = plannedSteps + (rng.chance(0.3) ? rng.int(1, 2) : 0);
  return {
    judge: !!spec.scenario.judge,
    faults: (turn) => spec.faults?.[turn] ?? (rng.chance(spec.faultRate ?? 0.03) ? [randomFault(rng)] : []),
    isFinal: (turn) => turn === steps,
    allowSideCall: () => true,
    spend: () => undefined,
  };
}

/** Exactly `calls` model calls: the judge's is reserved, faults and side calls only where the budget allows. */
function exactPacer(spec: RolloutSpec, rng: Rng, calls: number): Pacer {
  const judge = !!spec.scenario.judge && calls >= 2;
  let left = calls - (judge ? 1 : 0);
  return {
    judge,
    faults: () => (left >= 3 && rng.chance(0.03) ? [randomFault(rng)] : []),
    isFinal: (_turn, faults) => left - faults <= 1,
    allowSideCall: () => left >= 2,
    spend: () => void left--,
  };
}

const prefixCache = new WeakMap<Scenario, Map<string, number>>();

/** Tokens of the system prompt and tools: the prefix every rollout of the scenario shares. */
function sharedPrefixTokens(scenario: Scenario, system: string): number {
  const byPrompt = prefixCache.get(scenario) ?? new Map<string, number>();
  prefixCache.set(scenario, byPrompt);
  let tokens = byPrompt.get(system);
  if (tokens === undefined) {
    const conv: Conversation = { tools: scenario.tools, messages: [{ role: 'system', text: system }] };
    const body = RENDERERS[scenario.policy.dialect].request(conv, scenario.policy, { streaming: false, reasoning: false, temperature: null, maxTokens: 0 });
    tokens = estimateTokens(Buffer.byteLength(body));
    byPrompt.set(system, tokens);
  }
  return tokens;
}

/** How long an agent waits before it retries a call that met this fault. */
export const RETRY_DELAY_S: Record<CallFault, number> = { rate_limit: 1.5, server_error: 2, truncated: 0.5, stream_error: 0.5 };

/**
 * A rollout with an exact call budget compacts its context once the history resent with every call passes this
 * many bytes, as coding agents do near their context window: the history is replaced by one summary message. It
 * bounds each request, so a 30,000-call rollout is written in bounded memory and its file grows linearly.
 */
const COMPACT_AT_BYTES = 48_000;

function messageBytes(m: Message): number {
  if (m.role === 'assistant') return (m.turn.reasoning?.length ?? 0) + (m.turn.text?.length ?? 0) + m.turn.toolUses.reduce((n, u) => n + 64 + JSON.stringify(u.args).length, 0);
  return m.role === 'tool' ? m.output.length + 64 : m.text.length;
}

export type SimulatedRolloutEnd = Omit<SimulatedRollout, 'exchanges'> & { calls: number };

export function rolloutIdOf(spec: RolloutSpec): string {
  return spec.rolloutId ?? `${spec.taskIndex}-${spec.rolloutIndex}${spec.attempt > 0 ? `-a${spec.attempt}` : ''}`;
}

/** The rollout with all of its exchanges in memory (the demo's own runs, which are small). */
export function simulateRollout(spec: RolloutSpec, root: Rng): SimulatedRollout {
  if (spec.scenario.simulate) return spec.scenario.simulate(spec, root);
  const exchanges: JsonObject[] = [];
  const stream = simulateRolloutStream(spec, root);
  for (let next = stream.next(); ; next = stream.next()) {
    if (next.done) {
      const { calls: _calls, ...end } = next.value;
      return { ...end, exchanges };
    }
    exchanges.push(next.value);
  }
}

/** The rollout's exchanges in append order, a turn at a time (at most one turn's calls held), then its line. */
export function* simulateRolloutStream(spec: RolloutSpec, root: Rng): Generator<JsonObject, SimulatedRolloutEnd> {
  const { scenario } = spec;
  const policy = scenario.policy;
  const task = scenario.task(root.fork('task', scenario.key, spec.taskIndex), spec.taskIndex);
  const rng = root.fork('rollout', scenario.key, ...(scenario.policySalt ? [scenario.policySalt] : []), spec.taskIndex, spec.rolloutIndex, spec.attempt);
  const rolloutId = rolloutIdOf(spec);
  const greeting = task.greeting ? { text: task.greeting, id: newIds(rng, 'responses', policy.vllm).messageItemId } : undefined;
  const conv = startConversation(task.system, task.user, scenario.tools, greeting);
  const initialMessages = conv.messages.length;
  const sharedPrefix = sharedPrefixTokens(scenario, task.system);
  const noCalls = !!spec.noCalls || spec.calls === 0;
  const success = !noCalls && (spec.success ?? rng.chance(scenario.successRate));
  const pacer = spec.calls !== undefined ? exactPacer(spec, rng, spec.calls) : naturalPacer(spec, rng, task.plannedSteps);

  let pending: JsonObject[] = [];
  let calls = 0;
  let historyBytes = 0;
  const previousPrompt = new Map<string | null, number>();
  const policyUsage: Usage[] = [];
  let t = spec.startAt + rng.float(0.05, 2);
  let finalText = '';
  let lastResponseId: string | null = null;
  let failed = false;
  // kept only for agents that report observations: a 30,000-call bench rollout must not hold its turns
  const traces: TurnTrace[] | null = scenario.observe ? [] : null;
  const call = (server: ModelServer, c: Conversation, turn: AssistantTurn, streaming: boolean, fault: CallFault | null, temperature: number | null): CallResult => {
    const options = { streaming, reasoning: server === policy && policy.reasoning, temperature, maxTokens: server === policy ? 16384 : 2048 };
    const result = simulateCall({ rng, server, conv: c, turn, options, fault, startedAt: t, previousPrompt: previousPrompt.get(server.name) ?? 0, sharedPrefix: server === policy ? sharedPrefix : 0 });
    pending.push(result.exchange);
    calls++;
    pacer.spend();
    if (result.ok) previousPrompt.set(server.name, result.usage.prompt);
    t = result.completedAt + (fault ? rng.around(RETRY_DELAY_S[fault], 0.4) : rng.float(0.002, 0.02));
    return result;
  };

  for (let turn = 0; !noCalls; turn++) {
    if (spec.failAfterTurns !== undefined && turn === spec.failAfterTurns) {
      failed = true;
      break;
    }
    if (spec.calls !== undefined && historyBytes > COMPACT_AT_BYTES) {
      const dropped = conv.messages.length - initialMessages;
      conv.messages.splice(initialMessages, dropped, { role: 'user', text: `[The conversation was compacted: ${dropped} earlier messages summarized.] Summary of the work so far: ${task.user.slice(0, 400)}` });
      historyBytes = messageBytes(conv.messages[initialMessages]);
    }
    const turnFaults = pacer.faults(turn);
    const isFinal = pacer.isFinal(turn, turnFaults.length);
    const step = isFinal ? { ...task.finalStep(rng, success), calls: [], userReply: undefined } : task.toolStep(rng, turn);
    const toolUses = step.calls.map((c) => newToolUse(rng, policy.dialect, policy.vllm, c.name, c.args));
    const turnObj: AssistantTurn = { reasoning: policy.reasoning ? step.reasoning : null, text: step.text, toolUses, ...newIds(rng, policy.dialect, policy.vllm) };
    const streaming = turnFaults.some((f) => STREAM_FAULTS.includes(f)) || (spec.streaming ?? rng.chance(policy.streamingShare));
    for (const fault of turnFaults) {
      // The failed attempt generated (part of) a different completion: same content, its own ids.
      const attempt = { ...turnObj, ...newIds(rng, policy.dialect, policy.vllm), toolUses: toolUses.map((u) => newToolUse(rng, policy.dialect, policy.vllm, u.name, u.args)) };
      call(policy, conv, attempt, streaming, fault, null);
    }
    const answered = call(policy, conv, turnObj, streaming, null, null);
    policyUsage.push(answered.usage);
    const trace: TurnTrace = { turn: turnObj, faults: turnFaults, completedAt: answered.completedAt, tools: [] };
    traces?.push(trace);
    lastResponseId = turnObj.responseId;
    const grownFrom = conv.messages.length;
    conv.messages.push({ role: 'assistant', turn: turnObj });
    if (isFinal) finalText = step.text ?? '';
    step.calls.forEach((c, i) => {
      const startedAt = t;
      if (c.toolModelPrompt && scenario.toolModel && pacer.allowSideCall()) toolModelCall(scenario.toolModel, c.toolModelPrompt, c.output);
      t += rng.around(scenario.toolSeconds, 0.6);
      trace.tools.push({ callId: toolUses[i].id, name: c.name, args: c.args, output: c.output, startedAt, completedAt: t });
      conv.messages.push({ role: 'tool', callId: toolUses[i].id, name: c.name, output: c.output });
    });
    if (step.userReply) {
      t += rng.around(3, 0.5); // the simulated user thinks and types
      conv.messages.push({ role: 'user', text: step.userReply });
    }
    for (let k = grownFrom; k < conv.messages.length; k++) historyBytes += messageBytes(conv.messages[k]);
    const turnCalls = pending;
    pending = [];
    yield* turnCalls;
    if (isFinal) break;
  }

  function toolModelCall(server: ModelServer, prompt: string, answer: string) {
    const c: Conversation = { tools: [], messages: [{ role: 'system', text: 'Answer the question using only the handbook. Reply with one sentence.' }, { role: 'user', text: prompt }] };
    let text = answer;
    try {
      text = (JSON.parse(answer) as { output: string }).output ?? answer;
    } catch {
      // a plain-text tool result is the answer itself
    }
    call(server, c, { reasoning: null, text, toolUses: [], ...newIds(rng, server.dialect, server.vllm) }, false, null, 0.7);
  }

  let judgeRecord: JudgeRecord | null = null;
  if (pacer.judge && !failed && !noCalls && scenario.judge && scenario.judgePrompt) {
    const server = scenario.judge;
    const prompt = scenario.judgePrompt(task, finalText);
    const verdict = success ? '[[A=B]]' : '[[A!=B]]';
    const c: Conversation = { tools: [], messages: [{ role: 'system', text: prompt.system }, { role: 'user', text: prompt.user }] };
    const text = `The candidate's final answer ${success ? 'is equivalent to' : 'differs from'} the reference answer ${task.expected}.\n\nJudgement: ${verdict}`;
    const result = call(server, c, { reasoning: null, text, toolUses: [], ...newIds(rng, server.dialect, server.vllm) }, false, null, 0);
    judgeRecord = { request: result.exchange.request as JsonObject, response: result.exchange.response as JsonObject, verdict };
  }
  yield* pending;

  const outcome = { success, policyTurns: policyUsage.length, finalText, judge: judgeRecord, durationS: t - spec.startAt, noCalls };
  const initial = conv.messages.slice(0, initialMessages);
  const history = conv.messages.slice(initialMessages);
  const observed = traces && !failed ? scenario.observe?.({ spec, rolloutId, rng: rng.fork('observe'), initial, history, turns: traces, endAt: t }) : undefined;
  const line = failed
    ? failureLine(spec, task, initial, 'transient')
    : rolloutLine(spec, task, initial, outcome, { history, usage: policyUsage, responseId: lastResponseId, createdAt: spec.startAt }, observed);
  return { rolloutId, calls, line, failed, endAt: t };
}
