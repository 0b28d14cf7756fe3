// What the rollout page says about a rollout's trajectory besides drawing it: whether there is an agent trajectory
// to show at all (the index's summary of the line: invocations, tool calls, turns, compactions or sandbox runs; a
// trajectory of model calls alone is what the call timeline already shows), and, once the trajectory is loaded, what
// could not be read of it and its gaps, each once.
import type { TrajectoryResponse } from '../api/trajectory-schemas';
import type { ObservationGap } from '../rollouts/observations';
import type { TrajectoryParts } from './trajectory-read';

/** Whether a rollout's indexed trajectory summary (a rollout row's `trajectory`) shows an agent, not calls alone. */
export function showsAgent(t: { invocations: number; turns: number; tool_calls: number; compactions: number; sandboxes: number } | null): boolean {
  return t !== null && t.invocations + t.turns + t.tool_calls + t.compactions + t.sandboxes > 0;
}

export interface TrajectoryNotes {
  /** Why the trajectory or the observations could not be read whole, in words. */
  problems: string[];
  /** The projection's exception class when the collector's projection fails for the line. */
  projectionError: string | null;
  /** The trajectory's gaps, then the observations' gaps it does not already carry (the collector copies them in). */
  gaps: { gap: ObservationGap; from: 'ng_trajectory' | 'ng_agent_observations' }[];
  observationSource: string | null;
}

const same = (a: ObservationGap, b: ObservationGap) => a.code === b.code && a.invocation_id === b.invocation_id && a.detail === b.detail;

export function trajectoryNotes(answer: TrajectoryResponse, parts: TrajectoryParts | null): TrajectoryNotes {
  const own = parts?.gaps ?? [];
  const observed = (answer.observations?.gaps ?? []).filter((g) => !own.some((t) => same(g, t)));
  return {
    problems: [...answer.problems, ...(parts?.problems ?? []), ...answer.observation_problems.map((p) => `ng_agent_observations: ${p}`)],
    projectionError: answer.projection_error,
    gaps: [...own.map((gap) => ({ gap, from: 'ng_trajectory' as const })), ...observed.map((gap) => ({ gap, from: 'ng_agent_observations' as const }))],
    observationSource: answer.observations?.source ?? null,
  };
}
