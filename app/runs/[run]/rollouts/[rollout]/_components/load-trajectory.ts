// The trajectory as the rollout's tool call and invocation pages load it (lib/index/queries/trajectory.ts, as the API does),
// for rollouts whose indexed summary shows an agent trajectory (invocations, tool calls, turns, compactions or
// sandbox runs). A trajectory of captured calls alone is what the call timeline already shows, and projecting it
// would merge every capture line with its payloads on each page view, so it is never loaded for a page.
import { presentRollout } from '@/lib/api/present';
import type { TrajectoryResponse } from '@/lib/api/trajectory-schemas';
import type { IndexReader } from '@/lib/index/reader';
import { rolloutTrajectory } from '@/lib/index/queries/trajectory';
import { readTrajectory, type TrajectoryParts } from '@/lib/view/trajectory-read';
import { showsAgent } from '@/lib/view/trajectory-summary';

/** The rollout's trajectory answer, or null when the index records no agent trajectory for it. */
export async function loadTrajectory(index: IndexReader, run: string, rollout: string): Promise<TrajectoryResponse | null> {
  const row = await index.rollout(run, rollout);
  if (!row || !showsAgent(presentRollout(row).trajectory)) return null;
  return rolloutTrajectory(index, run, rollout, { includePayloads: false });
}

/** The rollout's trajectory read for a page, or null when it has none (the page answers 404). */
export async function loadTrajectoryParts(index: IndexReader, run: string, rollout: string): Promise<TrajectoryParts | null> {
  const answer = await loadTrajectory(index, run, rollout);
  return answer ? readTrajectory(answer) : null;
}
