// The collector's merge of a rollout's capture into its line (spec §5.1, NeMo Gym's merge_model_call_capture_into_record):
// the capture read and its gaps (lib/capture/attachment.ts), the observations validated, joined and rewritten
// (collector.ts), and the attachment set on the line.
import { buildAttachment, collectCapture, type CaptureEvidence } from '../capture/attachment';
import { rolloutIdFromBody } from '../capture/ids';
import { isJsonObject, setKey, type JsonObject, type JsonValue } from '../capture/json-value';
import { capturePath } from '../capture/store';
import { rewriteObservations } from './collector';

export interface MergeResult {
  /** The rollout line with the attachment set, or null when the line has no derivable rollout id. */
  line: JsonObject | null;
  rolloutId: string | null;
  evidence: CaptureEvidence | null;
}

/**
 * merge_model_call_capture_into_record for one parsed rollout line. Throws RolloutIdError for an invalid
 * explicit id or an id the store rejects.
 */
export async function mergeCaptureIntoLine(line: JsonValue, captureDirs: string[], includePayloads: boolean): Promise<MergeResult> {
  const rolloutId = rolloutIdFromBody(line);
  if (rolloutId === null || !isJsonObject(line)) return { line: null, rolloutId: null, evidence: null };
  capturePath('.', rolloutId); // the store's filename rule; raises like upstream's path_for
  const observed = line.ng_agent_observations !== undefined && line.ng_agent_observations !== null;
  // the claude_code compaction association reads the calls' payloads, so observations need them read
  const evidence = await collectCapture(captureDirs, rolloutId, includePayloads || observed);
  // §5.1 step 3: the bundle is validated, joined and rewritten; a failure is a capture gap after the others
  if (observed) evidence.gaps.push(...rewriteObservations(line, evidence.records));
  setKey(line, 'ng_model_call_capture', buildAttachment(rolloutId, evidence, includePayloads));
  return { line, rolloutId, evidence };
}

