// What the rollout page says about a rollout's trajectory before it draws it: whether there is an agent trajectory
// to show (invocations, tool calls, turns, compactions or sandbox runs: a trajectory of model calls alone is what
// the call timeline already shows), where it comes from, its counts, and what could not be read.
import type { TrajectoryResponse } from '../api/trajectory-schemas';
import type { TrajectorySource } from '../capture/vocabulary';
import type { ObservationGap } from '../rollouts/observations';
import { readTrajectory } from './trajectory-read';
import { measuredInterval, Timing } from './trajectory-timing';

export interface TrajectorySummary {
  source: TrajectorySource;
  /** The trajectory view replaces the call timeline. */
  agent: boolean;
  /** The card is shown: an agent trajectory, or something to say about one (a failed projection, problems). */
  shown: boolean;
  counts: {
    invocations: number;
    modelCalls: number;
    toolCalls: number;
    failedToolCalls: number;
    unmeasuredToolCalls: number;
    turns: number;
    compactions: number;
    sandboxes: number;
  } | null;
  /** The invocation ids the record has (a gap's invocation_id links to its page only when it is one). */
  invocationIds: string[];
  trajectoryGaps: ObservationGap[];
  observationGaps: ObservationGap[];
  /** Why the trajectory or the observations could not be read whole, in words. */
  problems: string[];
  projectionError: string | null;
  observationSource: string | null;
}

/** Whether a rollout's indexed trajectory summary (a rollout row's `trajectory`) shows an agent, not calls alone. */
export function showsAgent(t: { invocations: number; turns: number; tool_calls: number; compactions: number; sandboxes: number } | null): boolean {
  return t !== null && t.invocations + t.turns + t.tool_calls + t.compactions + t.sandboxes > 0;
}

export function summarizeTrajectory(answer: TrajectoryResponse): TrajectorySummary {
  const parts = readTrajectory(answer);
  const counts = parts && {
    invocations: parts.invocations.length,
    modelCalls: parts.modelCalls.length,
    toolCalls: parts.toolCalls.length,
    failedToolCalls: parts.toolCalls.filter((t) => t.status === 'failed' || t.status === 'timeout').length,
    unmeasuredToolCalls: parts.toolCalls.filter((t) => measuredInterval(t.started_at, t.completed_at, t.duration_ms).timing === Timing.unplaced).length,
    turns: parts.turns.length,
    compactions: parts.compactions.length,
    sandboxes: parts.sandboxes.length,
  };
  const agent = !!counts && counts.invocations + counts.toolCalls + counts.turns + counts.compactions + counts.sandboxes > 0;
  const problems = [...answer.problems, ...(parts?.problems ?? []), ...answer.observation_problems.map((p) => `ng_agent_observations: ${p}`)];
  return {
    source: answer.source,
    agent,
    shown: agent || problems.length > 0 || answer.projection_error !== null || answer.observations !== null,
    counts,
    invocationIds: parts?.invocations.map((i) => i.invocation_id) ?? [],
    trajectoryGaps: parts?.gaps ?? [],
    observationGaps: answer.observations?.gaps ?? [],
    problems,
    projectionError: answer.projection_error,
    observationSource: answer.observations?.source ?? null,
  };
}
