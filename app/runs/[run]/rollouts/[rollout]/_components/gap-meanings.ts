// What each gap code (spec §5.3) says in plain words, and what it means for the numbers on the rollout page.

export interface GapMeaning {
  title: string;
  meaning: string;
  numbers: string;
}

const AGENT_SIDE = 'The capture numbers (calls, tokens, latency) are not affected; what is missing is evidence about the agent.';

export const GAP_MEANINGS: Record<string, GapMeaning> = {
  model_call_capture_incomplete: {
    title: 'Capture incomplete',
    meaning: 'The .capture.incomplete marker exists: at least one model call of this rollout failed to persist (disk full, permissions, a crash mid-write).',
    numbers: 'Calls, tokens and latency undercount what the rollout actually used; the timeline may miss calls.',
  },
  model_call_capture_records_unreadable: {
    title: 'Damaged capture lines',
    meaning: 'Some lines of the capture file were malformed JSON, not objects, or records whose derivation failed.',
    numbers: 'Those lines are excluded from the metrics, the charts and the table; their call_index values are skipped, so the indices have holes.',
  },
  model_call_capture_no_records: {
    title: 'No calls captured',
    meaning: 'No capture file and no marker exist for this rollout, or the file is empty.',
    numbers: 'Totals are unknown, not zero: the rollout may still have called models without going through the capture (for example without the /ng-rollout prefix).',
  },
  model_call_capture_unreadable: {
    title: 'Capture unreadable',
    meaning: 'Reading the capture file raised an error (I/O, permissions), so no calls could be read.',
    numbers: 'Nothing here says how many calls the rollout made: every total is unknown.',
  },
  trajectory_projection_failed: {
    title: 'Trajectory projection failed',
    meaning: 'NeMo Gym could not build the standardized ng_trajectory (the detail is the exception); payloads stayed in the capture calls as a fallback.',
    numbers: 'The capture numbers are unaffected.',
  },
  agent_observation_join_failed: { title: 'Observation join failed', meaning: 'The agent observations failed validation or could not be joined with the captured calls.', numbers: AGENT_SIDE },
  compaction_model_call_join_failed: { title: 'Compaction join failed', meaning: 'Associating Claude Code compaction with its model call raised.', numbers: AGENT_SIDE },
  producer_trajectory_identity_mismatch: { title: 'Trajectory ids rewritten', meaning: 'The agent-supplied trajectory named a different task_id/rollout_id; turns were rewritten to the canonical ids.', numbers: AGENT_SIDE },
  producer_trajectory_invalid: { title: 'Agent trajectory invalid', meaning: 'The trajectory the agent supplied failed validation.', numbers: AGENT_SIDE },
  agent_observations_invalid: { title: 'Agent observations invalid', meaning: 'ng_agent_observations failed validation during projection.', numbers: AGENT_SIDE },
  model_call_capture_gap_invalid: { title: 'Invalid gap entry', meaning: 'A gap object in the capture attachment failed validation (for example extra keys).', numbers: 'The capture numbers are unaffected, but one gap could not be read.' },
  model_calls_unavailable: { title: 'No model calls in trajectory', meaning: 'The projected trajectory has no model calls.', numbers: AGENT_SIDE },
  turns_unavailable: { title: 'No turns', meaning: 'The projected trajectory has no turns.', numbers: AGENT_SIDE },
  conversation_unavailable: { title: 'No conversation', meaning: 'No invocation has a non-empty conversation.', numbers: AGENT_SIDE },
  model_call_reference_unmatched: { title: 'Unmatched call reference', meaning: 'An agent reference (the detail) matched no captured call.', numbers: 'The call the agent made may be missing from the capture, so totals may undercount.' },
  model_call_reference_ambiguous: { title: 'Ambiguous call reference', meaning: 'An agent reference matched more than one captured call.', numbers: AGENT_SIDE },
  model_call_reference_conflict: { title: 'Conflicting call reference', meaning: 'A captured call is claimed by two different invocations.', numbers: AGENT_SIDE },
  model_call_ownership_unavailable: { title: 'Call owner unknown', meaning: 'No invocation owns this captured call, or the harness cannot say which invocation made its calls.', numbers: 'The call is counted; only its attribution to an invocation is unknown.' },
  multimodal_history_redacted: { title: 'Images redacted', meaning: 'Image blocks were stripped from the rollout history, so trajectory payloads are null.', numbers: 'The capture numbers are unaffected; the raw capture file still holds the full payloads.' },
  resolution_unavailable: { title: 'Resolution unknown', meaning: 'The verify response had no boolean `resolved`.', numbers: AGENT_SIDE },
  model_call_reference_unavailable: { title: 'Missing response id', meaning: "A turn's model response had no id, so it cannot be joined with a call.", numbers: AGENT_SIDE },
};

export function gapMeaning(code: string): GapMeaning {
  return (
    GAP_MEANINGS[code] ?? {
      title: code.replace(/_/g, ' '),
      meaning: 'A gap recorded by an agent producer or the collector (spec §5.3): some evidence about this rollout is missing.',
      numbers: AGENT_SIDE,
    }
  );
}

/** `count=3` -> 3, for the damaged-lines gap. */
export function gapCount(detail: string | undefined): number | null {
  const m = /^count=(\d+)$/.exec(detail ?? '');
  return m ? Number(m[1]) : null;
}
