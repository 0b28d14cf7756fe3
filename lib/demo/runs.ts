// The runs of the demo data set. Each default run is one NeMo Gym collection job with its own agent, dialects
// and mishaps, placed on a fixed timeline so that every timestamp is reproducible:
//   workplace-assistant  Responses policy with reasoning summaries, function calls, tool_model (Chat) side
//                        calls; 429 and 5xx retries, a truncated stream, a response.failed stream, an
//                        incomplete marker, and a failed attempt retried as `-a1` (rollouts_failures.jsonl).
//   math-with-judge      vLLM Chat policy, streamed, with reasoning_content and tool_calls; judge_model over
//                        Responses; a 503 retry, a 429 retry, a `data: {"error":…}` stream, a truncated
//                        stream, and a torn (damaged) capture line.
//   math-with-judge-step-2  the same tasks as math-with-judge, from a later checkpoint of the policy: other outcomes
//                        per rollout (some tasks now solved, some no longer), for compare's changed tasks.
//   swe-claude-code      Anthropic Messages, streamed, with thinking, tool_use, cache reads and writes; an
//                        `event: error` (overloaded) stream, 429 and 529 retries, a truncated stream, a rollout
//                        with no capture at all, and an `-a1` retry.
//   tau2-retail          rollouts file only: lines carry the attachment without payloads and an ng_trajectory
//                        whose model_calls own the payloads (spec §5.2).
//   proxy-sessions       capture dir only (no rollouts file): sessions captured through `callscope proxy` with
//                        explicit rollout ids and no model-server name, in all three dialects.
//   claude-code-agent    claude_code_agent with observability: ng_agent_observations with a main invocation and two
//                        Task subagents, parallel, failed, timed-out and unmeasured tool calls, a compaction on long
//                        rollouts, sandbox runs (or their gap), and ng_trajectory; one task's lines are the agent's
//                        own, before the collector ran (observations, no attachment, no trajectory).
//   hermes-agent         hermes_agent with observability: one invocation, harness- or executor-timed tool calls (none
//                        timed where Hermes lacks the callbacks), a few failed; ng_trajectory.
// Runs with trajectories get the collector's whole post-processing (lib/rollouts/collect-line.ts); the others
// get the merge alone.
// With sizing flags the data set is one run, `bench`, cycling through the four agents (task by task), in
// two shards so that it can be generated on two threads.
import type { CallFault } from './rollout-trace';
import type { RolloutSpec, Scenario } from './scenario';
import { mathScenario } from './scenario-math';
import { claudeCodeScenario } from './scenario-claude-code';
import { hermesScenario } from './scenario-hermes';
import { retailScenario } from './scenario-retail';
import { sweScenario } from './scenario-swe';
import { workplaceScenario } from './scenario-workplace';

/** 2026-08-05T16:00:00Z: every timestamp of the data set is an offset from here. */
export const BASE_EPOCH = 1786032000;

export type RunLayout = 'full' | 'rollouts-only' | 'captures-only';
export type CaptureDamage = 'torn_line' | 'lost_call';

export interface Special {
  faults?: Record<number, CallFault[]>;
  noCalls?: boolean;
  /** The first attempt fails after this many policy turns; a resumed run retries it as attempt 1. */
  failAfterTurns?: number;
  damage?: CaptureDamage;
  /** The line as the agent wrote it: the collector never post-processed it. */
  uncollected?: boolean;
}

export interface RunDef {
  name: string;
  layout: RunLayout;
  /** The collector projected ng_trajectory (and joined ng_agent_observations); else the lines have the merge alone. */
  trajectories?: boolean;
  /** Rollout i uses scenarios[task % length]. */
  scenarios: Scenario[];
  tasks: number;
  repeats: number;
  /** Total rollouts when not tasks × repeats (the last task gets fewer repeats). */
  rollouts?: number;
  startAt: number;
  concurrency: number;
  /**
   * Independent shards of the dispatch order, each with its own share of the slots. Part of the run's
   * definition (it shapes the timeline), so output never depends on whether shards run in threads.
   */
  shards: number;
  /** Keyed `<task>-<rollout>`. */
  specials: Record<string, Special>;
  /** Exact calls of rollout i (benchmark corpora). */
  callsOf?: (i: number) => number;
  /** Draw the tasks (and the timeline) of this run instead: a run of another policy over the same tasks. */
  sameTasksAs?: string;
  /** Explicit rollout ids, for captures made outside the collector. */
  explicitId?: (taskIndex: number, scenario: Scenario) => string;
}

const hours = (h: number) => BASE_EPOCH + h * 3600;
const fault = (turn: number, f: CallFault): Special => ({ faults: { [turn]: [f] } });

/** A scenario as seen through `callscope proxy` without `--model-server-name`: model_ref is null. */
function viaProxy(s: Scenario, model: string, reasoning: boolean): Scenario {
  return { ...s, policy: { ...s.policy, name: null, model, vllm: false, reasoning }, judge: undefined, toolModel: undefined };
}

export function defaultRuns(): RunDef[] {
  return [
    {
      name: 'workplace-assistant',
      layout: 'full',
      scenarios: [workplaceScenario],
      tasks: 16,
      repeats: 3,
      startAt: hours(0),
      concurrency: 8,
      shards: 1,
      specials: {
        '1-0': fault(1, 'rate_limit'),
        '2-1': fault(0, 'truncated'),
        '3-0': fault(1, 'server_error'),
        '4-2': { damage: 'lost_call' },
        '5-1': { failAfterTurns: 1 },
        '6-0': fault(0, 'stream_error'),
        '9-2': { faults: { 0: ['rate_limit', 'rate_limit'] } },
      },
    },
    {
      name: 'math-with-judge',
      layout: 'full',
      scenarios: [mathScenario],
      tasks: 16,
      repeats: 3,
      startAt: hours(3),
      concurrency: 8,
      shards: 1,
      specials: {
        '0-1': fault(0, 'server_error'),
        '2-0': fault(1, 'stream_error'),
        '3-2': { damage: 'torn_line' },
        '5-0': fault(0, 'truncated'),
        '6-1': fault(0, 'rate_limit'),
      },
    },
    {
      name: 'math-with-judge-step-2',
      layout: 'full',
      scenarios: [{ ...mathScenario, policySalt: 'step-2', successRate: 0.7 }],
      sameTasksAs: 'math-with-judge',
      tasks: 16,
      repeats: 3,
      startAt: hours(5),
      concurrency: 8,
      shards: 1,
      specials: {},
    },
    {
      name: 'swe-claude-code',
      layout: 'full',
      scenarios: [sweScenario],
      tasks: 8,
      repeats: 3,
      startAt: hours(7),
      concurrency: 4,
      shards: 1,
      specials: {
        '0-1': fault(2, 'stream_error'),
        '1-0': fault(1, 'rate_limit'),
        '2-2': { noCalls: true },
        '3-1': fault(3, 'truncated'),
        '4-0': { failAfterTurns: 3 },
        '5-1': fault(0, 'server_error'),
      },
    },
    { name: 'tau2-retail', layout: 'rollouts-only', trajectories: true, scenarios: [retailScenario], tasks: 5, repeats: 2, startAt: hours(26), concurrency: 4, shards: 1, specials: {} },
    {
      name: 'proxy-sessions',
      layout: 'captures-only',
      scenarios: [
        viaProxy(mathScenario, 'gpt-4.1-mini-2025-04-14', false),
        viaProxy(sweScenario, 'claude-haiku-4-5-20251001', true),
        viaProxy(workplaceScenario, 'gpt-5-mini-2025-08-07', true),
      ],
      tasks: 9,
      repeats: 1,
      startAt: hours(30),
      concurrency: 2,
      shards: 1,
      specials: {},
      explicitId: (task, s) => `${s.key}-session-${String(task + 1).padStart(2, '0')}`,
    },
    {
      name: 'claude-code-agent',
      layout: 'full',
      trajectories: true,
      scenarios: [claudeCodeScenario],
      tasks: 6,
      repeats: 2,
      startAt: hours(34),
      concurrency: 4,
      shards: 1,
      specials: { '1-0': fault(1, 'rate_limit'), '3-1': fault(0, 'truncated'), '5-0': { uncollected: true }, '5-1': { uncollected: true } },
    },
    {
      name: 'hermes-agent',
      layout: 'full',
      trajectories: true,
      scenarios: [hermesScenario],
      tasks: 8,
      repeats: 3,
      startAt: hours(38),
      concurrency: 8,
      shards: 1,
      specials: { '2-1': fault(0, 'rate_limit'), '6-0': fault(1, 'server_error') },
    },
  ];
}

/** One run of exactly `rollouts` rollouts and `calls` calls, spread as evenly as the counts allow. */
export function benchRun(rollouts: number, calls: number): RunDef {
  const repeats = 4;
  const base = Math.floor(calls / rollouts);
  const extra = calls % rollouts;
  return {
    name: 'bench',
    layout: 'full',
    scenarios: [workplaceScenario, mathScenario, sweScenario, retailScenario],
    tasks: Math.ceil(rollouts / repeats),
    repeats,
    rollouts,
    startAt: hours(48),
    concurrency: 64,
    shards: 2,
    specials: {},
    callsOf: (i) => base + (i < extra ? 1 : 0),
  };
}

/** The primary rollout specs of a run in dispatch order (without start times, which the scheduler sets). */
export function* runSpecs(run: RunDef): Generator<{ spec: Omit<RolloutSpec, 'startAt'>; special: Special }> {
  const total = run.rollouts ?? run.tasks * run.repeats;
  for (let i = 0; i < total; i++) {
    const taskIndex = Math.floor(i / run.repeats);
    const rolloutIndex = i % run.repeats;
    const scenario = run.scenarios[taskIndex % run.scenarios.length];
    const special = run.specials[`${taskIndex}-${rolloutIndex}`] ?? {};
    const spec: Omit<RolloutSpec, 'startAt'> = {
      scenario,
      taskIndex,
      rolloutIndex,
      attempt: 0,
      rolloutId: run.explicitId?.(taskIndex, scenario),
      calls: run.callsOf?.(i),
      faults: special.faults,
      noCalls: special.noCalls,
      failAfterTurns: special.failAfterTurns,
    };
    yield { spec, special };
  }
}
