// NeMo Gym's claude_code_agent on SWE-bench instances, with observability on: Claude Code streams Anthropic
// Messages with thinking, delegates to subagents through `Task`, runs tools in parallel, compacts long contexts,
// and the agent reports all of it as `ng_agent_observations` (observe-claude-code.ts) beside the verify fields.
// Most rollouts ran in an observed sandbox (agent and verifier runs); the others report that gap.
import type { JsonObject } from '../capture/json-value';
import { simulateTree, type InvocationPlan, type TracedTurn } from './agent-tree';
import { CLAUDE_CODE_TOOLS, sweAgentPlan } from './claude-code-plan';
import type { Message } from './conversation';
import { claudeCodeObservations, uuid } from './observe-claude-code';
import type { Rng } from './random';
import { rolloutIdOf } from './rollout';
import { rolloutLine } from './rollout-line';
import type { SimulatedRollout } from './rollout-trace';
import type { Outcome, RolloutSpec, Scenario, Task } from './scenario';
import { sweScenario } from './scenario-swe';

export type Planner = (rng: Rng, task: Task, spec: RolloutSpec, success: boolean) => InvocationPlan;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The agent's sandbox and the verifier's, as a sandbox runtime measures them. */
function sandboxRuns(rng: Rng, agentSeconds: number, success: boolean): { id: string; records: JsonObject[] } {
  const id = `sbx-${rng.hex(12)}`;
  const run = (role: string, sandbox_id: string, wall: number, cpuShare: number, memory: number, exit_code: number) => ({
    kind: 'sandbox',
    role,
    provider: 'docker',
    sandbox_id,
    outcome: exit_code === 0 ? 'completed' : 'failed',
    exit_code,
    wall_time_s: round3(wall),
    cpu_time_s: round3(wall * cpuShare),
    peak_memory_mib: round3(memory),
    resource_usage_source: 'cgroup',
    error_type: null,
  });
  const verifierWall = rng.around(18, 0.5);
  return {
    id,
    records: [
      run('agent', id, agentSeconds + rng.float(2, 8), rng.float(0.15, 0.45), rng.around(900, 0.4), 0),
      run('verifier', `sbx-${rng.hex(12)}`, verifierWall, rng.float(0.6, 0.95), rng.around(520, 0.3), success ? 0 : 1),
    ],
  };
}

/** A rollout of an observed tree agent: the plan simulated into calls, observed, and written as the agent's line. */
export function simulateObservedTree(spec: RolloutSpec, root: Rng, planner: Planner): SimulatedRollout {
  const { scenario } = spec;
  const task = scenario.task(root.fork('task', scenario.key, spec.taskIndex), spec.taskIndex);
  const rng = root.fork('rollout', scenario.key, spec.taskIndex, spec.rolloutIndex, spec.attempt);
  const success = spec.success ?? rng.chance(scenario.successRate);
  const startAt = spec.startAt + rng.float(0.05, 2);
  const tree = simulateTree({ rng: rng.fork('calls'), server: scenario.policy, plan: planner(rng.fork('plan'), task, spec, success), rootId: uuid(rng), childId: (r) => r.hex(8), startAt });
  const observed = rng.fork('observe');
  const sandbox = observed.chance(0.75) ? sandboxRuns(observed, tree.endAt - startAt, success) : null;
  const observations = claudeCodeObservations({ root: tree.root, modelServer: scenario.policy.name!, rng: observed, durationMs: Math.round((tree.endAt - startAt) * 1000), sandbox });
  const turns = tree.root.steps.filter((s): s is TracedTurn => s.kind === 'turn');
  const last = turns.at(-1)!.turn;
  const outcome: Outcome = { success, policyTurns: turns.length, finalText: last.text ?? '', judge: null, durationS: tree.endAt - spec.startAt, noCalls: false };
  const initial: Message[] = [
    { role: 'system', text: task.system },
    { role: 'user', text: task.user },
  ];
  const trajectory = { history: tree.history, usage: tree.usage, responseId: last.responseId, createdAt: spec.startAt };
  const agentFields = { turns_used: turns.length, finished_naturally: true, ng_agent_observations: observations };
  return { rolloutId: rolloutIdOf(spec), exchanges: tree.exchanges, line: rolloutLine(spec, task, initial, outcome, trajectory, agentFields), failed: false, endAt: tree.endAt };
}

export const claudeCodeScenario: Scenario = {
  ...sweScenario,
  key: 'claude-code',
  agentName: 'claude_code_agent',
  policy: { ...sweScenario.policy, streamingShare: 1 },
  tools: CLAUDE_CODE_TOOLS,
  simulate: (spec, root) => simulateObservedTree(spec, root, (rng, task, s, success) => sweAgentPlan(rng, task, s.taskIndex, success, s.faults)),
};
