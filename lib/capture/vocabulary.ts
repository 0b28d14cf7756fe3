// The format's vocabulary in plain words, one table each: every gap code NeMo Gym writes (spec §5.3, grouped by who
// writes it), the dialects (§6.2) and the error categories (§6.6). Every view, the rollouts filter, the CSV and the
// API schema read these tables, so that a code is explained once and the same way everywhere. A code missing here
// is still shown (gapInfo falls back to its name), but a test holds the table to the spec.
import { ERROR_CATEGORIES, type ErrorCategory } from './errors';

export type GapGroup = 'capture' | 'collector' | 'join' | 'producer';

export interface GapInfo {
  group: GapGroup;
  /** The agents or modules that write it (producer codes), as the spec names them. */
  producers?: string;
  title: string;
  meaning: string;
  /** What it means for the numbers shown beside it (calls, tokens, latency). */
  numbers: string;
}

export const GAP_GROUP_TITLES: Record<GapGroup, string> = {
  capture: 'Capture attachment',
  collector: 'Collector and trajectory',
  join: 'Join of observations with captured calls',
  producer: 'Agent producers',
};

const AGENT_SIDE = 'The capture numbers (calls, tokens, latency) are not affected; what is missing is evidence about the agent.';
const TRAJECTORY_SIDE = 'The capture numbers are not affected; the standardized trajectory is less complete.';

const producer = (producers: string, title: string, meaning: string, numbers = AGENT_SIDE): GapInfo => ({ group: 'producer', producers, title, meaning, numbers });

export const GAP_CODES: Readonly<Record<string, GapInfo>> = {
  // Capture attachment (base_responses_api_model.py)
  model_call_capture_no_records: {
    group: 'capture',
    title: 'No calls captured',
    meaning: 'The capture dir has no capture file and no marker for this rollout, or its file holds no readable lines, no damaged lines and no marker.',
    numbers: 'Totals are unknown, not zero: the rollout may still have called models without going through the capture (for example without the /ng-rollout prefix).',
  },
  model_call_capture_records_unreadable: {
    group: 'capture',
    title: 'Damaged capture lines',
    meaning: 'Some non-blank lines of the capture file were malformed JSON, not objects, or records whose derivation failed (the detail counts them).',
    numbers: 'Those lines are excluded from the metrics, the charts and the table; their call_index values are skipped, so the indices have holes.',
  },
  model_call_capture_incomplete: {
    group: 'capture',
    title: 'Capture incomplete',
    meaning: 'The .capture.incomplete marker exists: at least one model call of this rollout failed to persist (disk full, permissions, a crash mid-write).',
    numbers: 'Calls, tokens and latency undercount what the rollout actually used; the timeline may miss calls.',
  },
  model_call_capture_unreadable: {
    group: 'capture',
    title: 'Capture unreadable',
    meaning: 'Reading the capture raised an error (I/O, permissions), so no calls could be read.',
    numbers: 'Nothing here says how many calls the rollout made: every total is unknown.',
  },
  agent_observation_join_failed: {
    group: 'capture',
    title: 'Observation join failed',
    meaning: 'ng_agent_observations failed validation, or joining them with the captured calls raised; the observations were left as they were.',
    numbers: AGENT_SIDE,
  },
  compaction_model_call_join_failed: {
    group: 'capture',
    title: 'Compaction join failed',
    meaning: 'Associating a Claude Code context compaction with the model call that performed it raised; the generic join still ran.',
    numbers: AGENT_SIDE,
  },
  // Collector / trajectory (rollout_collection.py)
  trajectory_projection_failed: {
    group: 'collector',
    title: 'Trajectory projection failed',
    meaning: 'NeMo Gym could not build the standardized ng_trajectory (the detail is the exception class); payloads stayed in the capture calls as a fallback.',
    numbers: 'The capture numbers are not affected.',
  },
  producer_trajectory_identity_mismatch: {
    group: 'collector',
    title: 'Trajectory ids rewritten',
    meaning: "The agent-supplied ng_trajectory named a different task_id or rollout_id (the detail says which) than the collector's; its turns were rewritten to the canonical ids.",
    numbers: TRAJECTORY_SIDE,
  },
  producer_trajectory_invalid: { group: 'collector', title: 'Agent trajectory invalid', meaning: 'The ng_trajectory the agent supplied failed validation (the detail is the exception class).', numbers: TRAJECTORY_SIDE },
  agent_observations_invalid: { group: 'collector', title: 'Agent observations invalid', meaning: 'ng_agent_observations failed validation during projection (the detail is the exception class).', numbers: AGENT_SIDE },
  model_call_capture_gap_invalid: {
    group: 'collector',
    title: 'Invalid gap entry',
    meaning: 'A gap object in ng_model_call_capture.gaps failed validation (for example it has extra keys).',
    numbers: 'The capture numbers are not affected, but one gap could not be read.',
  },
  model_calls_unavailable: { group: 'collector', title: 'No model calls in trajectory', meaning: 'The projected trajectory has no model calls.', numbers: TRAJECTORY_SIDE },
  turns_unavailable: { group: 'collector', title: 'No turns', meaning: 'The projected trajectory has no turns.', numbers: TRAJECTORY_SIDE },
  conversation_unavailable: { group: 'collector', title: 'No conversation', meaning: 'No invocation of the trajectory has a non-empty conversation.', numbers: TRAJECTORY_SIDE },
  // Join of observations with captured calls (rollout_observability.py)
  model_call_reference_unmatched: {
    group: 'join',
    title: 'Unmatched call reference',
    meaning: 'An invocation or compaction reference (the detail: its model_call_id or response_id) matched no captured call.',
    numbers: 'The call the agent made may be missing from the capture, so totals may undercount.',
  },
  model_call_reference_ambiguous: { group: 'join', title: 'Ambiguous call reference', meaning: 'An agent reference matched more than one captured call.', numbers: AGENT_SIDE },
  model_call_reference_conflict: { group: 'join', title: 'Conflicting call reference', meaning: 'The matched call is already owned by a different invocation.', numbers: AGENT_SIDE },
  model_call_ownership_unavailable: {
    group: 'join',
    title: 'Call owner unknown',
    meaning: 'No invocation owns a captured call (the detail names it), or the harness cannot say which invocation made its calls.',
    numbers: 'The call is counted; only its attribution to an invocation is unknown.',
  },
  // Agent producers (ng_agent_observations.gaps)
  resolution_unavailable: producer('simple_agent', 'Resolution unknown', "The verify response had no boolean resolved, so the last turn's resolved is unknown."),
  model_call_reference_unavailable: producer('simple_agent', 'Missing response id', "A turn's model response had no id (the detail names the turn), so it cannot be joined with a call."),
  multimodal_history_redacted: producer(
    'labbench2_vlm_agent',
    'Images redacted',
    "Image blocks were stripped from the rollout's history and observations, so the trajectory's model-call payloads are null.",
    'The capture numbers are not affected; the raw capture file still holds the full payloads.',
  ),
  observation_parse_failed: producer('claude_code, pi', 'Observations not parsed', 'The harness artifact could not be parsed into observations.'),
  observation_capture_failed: producer('hermes, openclaw, pinchbench', 'Observation capture failed', 'Collecting observations raised; a fallback bundle is used.'),
  agent_transcript_unavailable: producer('claude_code, openclaw, opencode, pi', 'Transcript unavailable', 'No usable transcript or session for an invocation.'),
  agent_artifact_unavailable: producer('opencode', 'Session database unavailable', 'The session database is missing or unreadable.'),
  agent_artifact_record_unowned: producer('opencode', 'Artifact row without a session', 'An artifact row cannot be tied to a session (the detail is the row id).'),
  agent_artifact_record_unparseable: producer('openclaw, opencode', 'Artifact row unparseable', 'An artifact row or event could not be parsed.'),
  agent_run_timeout: producer('opencode', 'Harness timed out', 'The harness run timed out.'),
  agent_session_store_unreadable: producer('openclaw', 'Session store unreadable', 'The sessions.json store is unreadable or not an object.'),
  agent_session_entry_unparseable: producer('openclaw', 'Session entry unparseable', 'A session-store entry is malformed.'),
  agent_session_identity_ambiguous: producer('openclaw', 'Duplicate session key', 'A session key occurs twice (the detail is the key).'),
  agent_invocation_unavailable: producer('openclaw', 'Invocation missing', 'A session produced no invocation record.'),
  agent_conversation_branching_unavailable: producer('openclaw', 'Branching transcript', 'The transcript branches, so its linear history is unreliable.'),
  subagent_hierarchy_unavailable: producer('openclaw, pi, pinchbench', 'Subagent tree unknown', 'The parent/child tree of invocations cannot be observed (the detail says why).'),
  subagent_hierarchy_incomplete: producer('openclaw', 'Subagent tree partial', 'The parent/child tree was only partly recovered.'),
  subagent_parent_unavailable: producer('claude_code, opencode', 'Subagent parent missing', "A child's parent is not observable or missing (the detail is the parent id)."),
  subagent_parent_ambiguous: producer('openclaw', 'Subagent parent ambiguous', 'The spawnedBy and parent keys disagree.'),
  conflicting_subagent_parent: producer('claude_code', 'Conflicting subagent parents', 'Two different parents were claimed for one child.'),
  cyclic_subagent_parent: producer('claude_code', 'Cyclic subagent parent', 'Accepting the parent would have made a cycle.'),
  ambiguous_subagent_relation: producer('claude_code', 'Ambiguous subagent relation', 'The child/parent tool-result relation is not unique.'),
  subagent_transcript_missing: producer('claude_code', 'Subagent transcript missing', "The child's transcript file is missing."),
  subagent_spawn_tool_unavailable: producer('openclaw, opencode', 'Spawning tool call unknown', 'The tool call that spawned a subagent cannot be identified.'),
  subagent_spawn_ambiguous: producer('opencode', 'Spawning tool call ambiguous', 'More than one tool call could have spawned the subagent.'),
  subagent_spawn_unattributed: producer('hermes', 'Subagent unattributed', 'A child was spawned without attribution to a tool call.'),
  hermes_hook_unavailable: producer('hermes', 'Hermes hook missing', 'An internal Hermes hook to instrument is missing (the detail is the hook name).'),
  hermes_observer_error: producer('hermes', 'Hermes observer error', 'The observer raised (the detail says where).'),
  model_response_id_missing: producer('claude_code', 'Response id missing', 'An assistant message has no response id, so it cannot be joined with a call.'),
  model_response_id_unavailable: producer('hermes', 'Response id unavailable', 'The response id could not be read.'),
  reasoning_details_unavailable: producer('hermes', 'Reasoning details unavailable', 'Reasoning details could not be captured.'),
  reasoning_item_id_missing: producer('claude_code', 'Reasoning item id missing', 'Reasoning items lack ids.'),
  assistant_item_id_missing: producer('claude_code', 'Assistant item id missing', 'Assistant items lack ids.'),
  tool_call_id_missing: producer('claude_code', 'Tool call id missing', 'A tool-use block lacks its id.'),
  tool_result_id_missing: producer('claude_code', 'Tool result id missing', 'A tool-result block lacks its id.'),
  tool_call_identity_ambiguous: producer('openclaw', 'Duplicate tool call id', 'Two tool calls share an id (the detail is the id).'),
  tool_call_identity_unavailable: producer('opencode', 'Tool call without id', 'A tool part has no call id.'),
  tool_result_unowned: producer('openclaw', 'Tool result unowned', 'A tool result names an unknown or duplicate call id.'),
  tool_start_missing: producer('claude_code', 'Tool start missing', 'The start of a tool interval is missing.'),
  tool_result_missing: producer('claude_code', 'Tool result missing', 'The end (result) of a tool interval is missing.'),
  tool_start_timestamp_missing: producer('claude_code', 'Tool start time missing', "A tool call's start timestamp is missing."),
  tool_result_timestamp_missing: producer('claude_code', 'Tool result time missing', "A tool call's result timestamp is missing."),
  tool_timing_invalid: producer('claude_code', 'Tool timing invalid', "A tool call's completion precedes its start."),
  tool_timing_unavailable: producer('openclaw, opencode, pi', 'Tool timing unknown', 'No usable timing for a tool call (the detail is the call id): it is placed between its model calls, unmeasured.'),
  tool_outcome_unavailable: producer('openclaw, pi', 'Tool outcome unknown', 'Whether the tool call succeeded or failed is unknown.'),
  duplicate_tool_call: producer('hermes', 'Tool call seen twice', 'The same tool call was observed twice.'),
  ambiguous_tool_artifact: producer('claude_code', 'Ambiguous tool artifact', 'Several artifacts match one tool call.'),
  unsupported_assistant_content_block: producer('claude_code', 'Unsupported assistant block', 'An assistant content block of a type the harness does not handle (the detail is the type).'),
  unsupported_user_content_block: producer('claude_code', 'Unsupported user block', 'A user content block of a type the harness does not handle (the detail is the type).'),
  invalid_assistant_content: producer('claude_code', 'Invalid assistant content', 'Assistant content blocks that are not objects.'),
  invalid_user_content: producer('claude_code', 'Invalid user content', 'User content blocks that are not objects.'),
  invalid_transcript_record: producer('claude_code', 'Invalid transcript record', 'A transcript record is not valid (the detail is file:line).'),
  malformed_transcript_line: producer('claude_code', 'Malformed transcript line', 'A transcript JSONL line is malformed (the detail is file:line).'),
  transcript_dir_missing: producer('claude_code', 'Transcript dir missing', 'The transcript directory is missing.'),
  transcript_dir_unreadable: producer('claude_code', 'Transcript dir unreadable', 'The transcript directory cannot be read.'),
  transcript_unreadable: producer('claude_code', 'Transcript unreadable', 'A transcript file cannot be read.'),
  invocation_outcome_unavailable: producer('claude_code, pi', 'Invocation outcome unknown', "The invocation's status is unknown."),
  context_compaction_unavailable: producer('openclaw', 'Compactions not observable', 'Context compaction events cannot be observed.'),
  compaction_before_model_call_unavailable: producer('claude_code, pi', 'Call before compaction unknown', 'The model call before a compaction is not identified.'),
  compaction_after_model_call_unavailable: producer('claude_code, pi', 'Call after compaction unknown', 'The model call after a compaction is not identified.'),
  compaction_model_call_boundary_unavailable: producer('hermes, openclaw, opencode', 'Compaction boundary unknown', 'The model calls before and after a compaction are not identified.'),
  compaction_model_call_reference_unavailable: producer('claude_code', 'Compaction call unknown', 'The model call that performed a compaction is not identified.'),
  compaction_model_call_match_ambiguous: producer('claude_code', 'Compaction call ambiguous', 'Several captured calls look like the compaction call (the detail counts them).'),
  compaction_summary_unavailable: producer('hermes, openclaw, opencode, pi', 'Compaction summary missing', 'The summary a compaction produced is missing.'),
  compaction_summary_ambiguous: producer('hermes, openclaw, opencode, pi', 'Compaction summary ambiguous', 'A compaction has several candidate summaries.'),
  compaction_tokens_before_unavailable: producer('pi, hermes, openclaw, opencode', 'Tokens before compaction unknown', 'The token count before a compaction is missing.'),
  compaction_tokens_after_unavailable: producer('pi, hermes, openclaw, opencode', 'Tokens after compaction unknown', 'The token count after a compaction is missing.'),
  compaction_token_counts_unavailable: producer('pi, hermes, openclaw, opencode', 'Compaction token counts unknown', "A compaction's token counts are missing."),
  compaction_outcome_unavailable: producer('claude_code, pi, opencode', 'Compaction outcome unknown', "A compaction's outcome is missing."),
  compaction_result_unavailable: producer('claude_code, pi, opencode', 'Compaction result unknown', "A compaction's result is missing."),
  compaction_start_unavailable: producer('claude_code, pi, opencode', 'Compaction start unknown', "A compaction's start is missing."),
  compaction_timestamp_missing: producer('claude_code, pi, opencode', 'Compaction time missing', "A compaction's timestamp is missing."),
  compaction_boundary_unavailable: producer('claude_code, pi, opencode', 'Compaction boundary unknown', "A compaction's boundary in the conversation is missing."),
  compaction_first_kept_item_unavailable: producer('claude_code, pi, opencode', 'First kept item unknown', 'The first conversation item a compaction kept is not identified.'),
  no_sandbox_runtime: producer('claude_code, hermes, opencode, pi', 'No sandbox', 'No sandbox ran, so there is no sandbox observation.'),
  sandbox_observation_unavailable: producer('hermes', 'Sandbox unmeasured', 'There was a sandbox but no measurements of it (the detail names the backend).'),
};

export const GAP_CODE_LIST = Object.keys(GAP_CODES) as [string, ...string[]];

/** A code's entry, or one built from its name for a code this table does not know. */
export function gapInfo(code: string): GapInfo {
  return (
    GAP_CODES[code] ?? {
      group: 'producer',
      title: code.replace(/_/g, ' '),
      meaning: 'A gap code callscope does not know (not in NeMo Gym\'s list, spec §5.3): some evidence about this rollout is missing.',
      numbers: AGENT_SIDE,
    }
  );
}

/** The short label of a gap badge: the capture prefix is implied in a gaps column. */
export function gapLabel(code: string): string {
  return code.replace(/^model_call_capture_/, '');
}

/** A gap in one line, for a title attribute: its code, meaning and detail. */
export function gapTitle(gap: { code: string; detail?: string }): string {
  return `${gap.code}: ${gapInfo(gap.code).meaning}${gap.detail ? ` (${gap.detail})` : ''}`;
}

/** `count=3` -> 3, for the damaged-lines gap. */
export function gapCount(detail: string | undefined): number | null {
  const m = /^count=(\d+)$/.exec(detail ?? '');
  return m ? Number(m[1]) : null;
}

export const DIALECTS = ['responses', 'chat', 'messages'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** §6.2: the endpoint each dialect was captured at. */
export const DIALECT_INFO: Readonly<Record<Dialect, { title: string; meaning: string }>> = {
  responses: { title: 'Responses', meaning: 'OpenAI Responses API, captured at /v1/responses.' },
  chat: { title: 'Chat Completions', meaning: 'OpenAI Chat Completions API, captured at /v1/chat/completions.' },
  messages: { title: 'Messages', meaning: 'Anthropic Messages API, captured at /v1/messages.' },
};

export { ERROR_CATEGORIES, type ErrorCategory };

/** §6.6: what each error_category says about a call. */
export const ERROR_CATEGORY_INFO: Readonly<Record<ErrorCategory, { title: string; meaning: string }>> = {
  timeout: { title: 'Timeout', meaning: 'Status 408 or 504, or the call raised a timeout.' },
  rate_limit: { title: 'Rate limited', meaning: 'Status 429.' },
  auth: { title: 'Auth', meaning: 'Status 401 or 403.' },
  not_found: { title: 'Not found', meaning: 'Status 404.' },
  client_error: { title: 'Client error', meaning: 'Any other status from 400 to 499 (for example 422 for a bad request body).' },
  upstream_error: { title: 'Upstream error', meaning: 'Status 500 or above, or a stream that ended with an error event.' },
  incomplete: { title: 'Incomplete', meaning: 'The stream ended with an incomplete terminal event (for example max tokens reached).' },
  stream_truncated: { title: 'Stream truncated', meaning: 'A streaming response ended without any terminal event; the partial reassembly is kept.' },
  capture_parse_error: { title: 'Unparseable response', meaning: 'The body was non-empty but could not be parsed or reassembled into an object.' },
  connection: { title: 'Connection', meaning: 'The call raised a connection error (refused, reset, disconnected).' },
  exception: { title: 'Exception', meaning: 'The call raised another exception, for example after a 200 start of a stream.' },
};

/**
 * Where a rollout's calls come from (a rollout row's `source`): the run's capture dir (its capture file, its marker,
 * or their absence, judged as NeMo Gym's merge judges them: §5.1 step 2), the rollout line's own
 * `ng_model_call_capture` (a run served without a capture dir), or no capture evidence at all (no capture dir and no
 * attachment, or a line without a derivable rollout id, which NeMo Gym's merge leaves alone: §5.1 step 1).
 */
export const ROLLOUT_SOURCES = ['capture', 'attachment', 'none'] as const;
export type RolloutSource = (typeof ROLLOUT_SOURCES)[number];

export const ROLLOUT_SOURCE_INFO: Readonly<Record<RolloutSource, { title: string; meaning: string }>> = {
  capture: { title: 'capture dir', meaning: "The calls are read from the run's capture dir (the rollout's .capture.jsonl and .capture.incomplete)." },
  attachment: { title: 'rollout line', meaning: "The run has no capture dir: the calls are the rollout line's own ng_model_call_capture, as the collector attached it." },
  none: { title: 'no capture', meaning: 'No capture evidence: no capture dir holds this rollout and its line has no ng_model_call_capture, so its calls are unknown.' },
};

export function rolloutSource(captureDirHolds: boolean, hasAttachment: boolean): RolloutSource {
  return captureDirHolds ? 'capture' : hasAttachment ? 'attachment' : 'none';
}

/**
 * Where a rollout's trajectory comes from (GET .../trajectory `source`, a rollout row's `trajectory_source`): the
 * line's own `ng_trajectory` (returned as stored), the collector's projection computed from the line and the served
 * capture dir (§5.4, after the merge), or nothing (the line has none of the three keys after the merge).
 */
export const TRAJECTORY_SOURCES = ['line', 'projected', 'none'] as const;
export type TrajectorySource = (typeof TRAJECTORY_SOURCES)[number];

export const TRAJECTORY_SOURCE_INFO: Readonly<Record<TrajectorySource, { title: string; meaning: string }>> = {
  line: { title: 'rollout line', meaning: "The rollout line's own ng_trajectory, as the collector (or the agent) wrote it." },
  projected: {
    title: 'projected',
    meaning: "The line has no ng_trajectory: callscope projected it as NeMo Gym's collector would, from the line's observations and the run's captured calls.",
  },
  none: { title: 'no trajectory', meaning: 'The line has no ng_trajectory, no ng_agent_observations and no captured calls: there is nothing to project.' },
};

/**
 * §9: who measured a tool call's interval (ToolCallObservation.timing_source): the tool executor itself, the agent's
 * own artifacts (a transcript's timestamps), or the harness around the call. Null: the producer did not say.
 */
export const TIMING_SOURCE_INFO: Readonly<Record<'executor' | 'artifact' | 'harness', { title: string; meaning: string }>> = {
  executor: { title: 'executor', meaning: 'Measured by the tool executor that ran the call.' },
  artifact: { title: 'artifact', meaning: "Read from the agent's own artifacts (for example its transcript's timestamps)." },
  harness: { title: 'harness', meaning: 'Measured by the harness around the tool call (callbacks before and after it).' },
};
