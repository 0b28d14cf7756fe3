// The collector's whole post-processing of one rollout line (rollout_collection.py, spec §5.1, §5.2): the merge
// with payloads unless the line is redacted (ng_agent_observations joined and rewritten, step 3), then, when the
// result has any of the three keys, the ng_trajectory projection with its failure path and the payload stripping.
// `callscope attach --trajectory` and the demo generator both run exactly this, so they cannot disagree.
import { mergeCaptureIntoLine } from './merge-capture';
import type { JsonObject } from '../capture/json-value';
import { attachTrajectoryRecord, hasObservationGap, TRAJECTORY_KEYS } from './collector';

/**
 * Post-processes `line` in place; the line stands in for the collector's input row. Returns whether it changed.
 * Throws RolloutIdError for an invalid explicit rollout id, as the merge does.
 */
export async function collectRolloutLine(line: JsonObject, captureDirs: string[]): Promise<boolean> {
  const includePayloads = !hasObservationGap(line, 'multimodal_history_redacted');
  const merged = await mergeCaptureIntoLine(line, captureDirs, includePayloads);
  return projectLine(line) !== null || merged.line !== null;
}

/** The projection step alone, when the line has any of the three keys (else null): its outcome. */
export function projectLine(line: JsonObject): ReturnType<typeof attachTrajectoryRecord> | null {
  return TRAJECTORY_KEYS.some((k) => k in line) ? attachTrajectoryRecord(line, line) : null;
}
