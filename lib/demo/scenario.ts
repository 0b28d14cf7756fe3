// What a demo scenario supplies: the agent, its model servers, its tools, and tasks whose steps say what the
// assistant does at each turn (reason, call tools, answer) and what the tools return. The rollout simulator
// (rollout.ts) turns a task into model calls; the scenario never sees dialects or bytes. A rollout's spec names its
// scenario and a scenario may simulate or observe a spec, so RolloutSpec lives here too (one module, no cycle).
import type { JsonObject } from '../capture/json-value';
import type { Dialect } from '../capture/sse';
import type { Message, ToolDef } from './conversation';
import type { Rng } from './random';
import type { CallFault, SimulatedRollout, TurnTrace } from './rollout-trace';

export interface StepCall {
  name: string;
  args: JsonObject;
  output: string;
  /** The tool's handler asks `tool_model` this before answering (a resources-server side call). */
  toolModelPrompt?: string;
}

export interface ToolStep {
  reasoning: string | null;
  text: string | null;
  calls: StepCall[];
  /** A turn without tool calls that the (simulated) user answers. */
  userReply?: string;
}

export interface FinalStep {
  reasoning: string | null;
  text: string;
}

export interface Task {
  system: string;
  user: string;
  /** An assistant greeting already in the dataset row before the user speaks (tau2). */
  greeting?: string;
  /** The number of tool steps this task takes when nothing forces another length. */
  plannedSteps: number;
  toolStep(rng: Rng, step: number): ToolStep;
  finalStep(rng: Rng, success: boolean): FinalStep;
  /** What the final answer is checked against (the judge sees it). */
  expected: string;
  /** The answer the agent gives when it fails. */
  wrongAnswer: string;
  /** Scenario-specific facts the verify fields need (e.g. the file a patch touches). */
  extra?: Record<string, string>;
}

export interface ModelServer {
  /** The Gym model-server instance name (`model_ref.name`); null for a proxy started without a name. */
  name: string | null;
  dialect: Dialect;
  model: string;
  /** vLLM-served (ids, prefix-cache granularity, error shapes) rather than a hosted API. */
  vllm: boolean;
}

export interface PolicyServer extends ModelServer {
  reasoning: boolean;
  /** Share of policy calls made with `stream: true`. */
  streamingShare: number;
}

export interface JudgeRecord {
  request: JsonObject;
  response: JsonObject;
  verdict: string;
}

export interface Outcome {
  success: boolean;
  policyTurns: number;
  finalText: string;
  judge: JudgeRecord | null;
  durationS: number;
  /** The agent never reached the model (e.g. its sandbox failed to start). */
  noCalls: boolean;
}

export interface Scenario {
  key: string;
  agentName: string;
  policy: PolicyServer;
  judge?: ModelServer;
  toolModel?: ModelServer;
  tools: ToolDef[];
  successRate: number;
  /** Another policy (a later checkpoint) on the same tasks: its rollouts draw other outcomes; the tasks stay the same. */
  policySalt?: string;
  /** Tool steps run concurrently-ish in a sandbox or service: median seconds per tool call. */
  toolSeconds: number;
  task(rng: Rng, taskIndex: number): Task;
  /** Overrides of the simple agent's `responses_create_params` dump. */
  createParams(task: Task, taskIndex: number): JsonObject;
  /** The judge prompt, when the scenario's resources server grades with `judge_model`. */
  judgePrompt?(task: Task, finalText: string): { system: string; user: string };
  /** The verify-response fields that follow `reward` in the rollout line. */
  resultFields(task: Task, outcome: Outcome): JsonObject;
  /** The fields an observing agent adds after them (`ng_agent_observations`), from what the rollout did. */
  observe?(rollout: ObservedRollout): JsonObject;
  /** An agent whose rollouts the linear simulator cannot describe (subagents, parallel tools): its own simulator. */
  simulate?(spec: RolloutSpec, root: Rng): SimulatedRollout;
}

/** A finished rollout as its agent saw it. */
export interface ObservedRollout {
  spec: RolloutSpec;
  rolloutId: string;
  /** Draws for the observation only, so that observing never changes the calls. */
  rng: Rng;
  initial: Message[];
  history: Message[];
  turns: TurnTrace[];
  endAt: number;
}

/** What one simulated rollout is asked to be (rollout.ts simulates it, rollout-line.ts writes its line). */
export interface RolloutSpec {
  scenario: Scenario;
  taskIndex: number;
  rolloutIndex: number;
  /** Resume retries: 1 for the first retry (`-a1`), 0 otherwise. */
  attempt: number;
  /** An explicit rollout id (captures made outside the collector, e.g. through `callscope proxy`). */
  rolloutId?: string;
  /** Unix seconds. */
  startAt: number;
  /** Exactly this many model calls (benchmark corpora); the task's natural length otherwise. */
  calls?: number;
  /** Faults forced before the successful call of a policy turn, by turn index. */
  faults?: Record<number, CallFault[]>;
  /** Probability that a policy turn first meets a provider fault (natural length only). */
  faultRate?: number;
  /** The attempt dies of an infrastructure failure after this many policy turns (a failures-file row). */
  failAfterTurns?: number;
  /** The agent never reaches a model (its sandbox failed to start). */
  noCalls?: boolean;
  success?: boolean;
  streaming?: boolean;
}
