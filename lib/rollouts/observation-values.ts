// The closed value sets of the observation models (spec §9), on their own so that the browser's views can check a
// stored value against them without loading the exact models (which bring the format library's Node parts).
export const INVOCATION_STATUSES = ['completed', 'failed', 'incomplete', 'unknown'] as const;
export const TOOL_STATUSES = ['completed', 'failed', 'timeout', 'cancelled', 'incomplete', 'unknown'] as const;
export const TIMING_SOURCES = ['executor', 'artifact', 'harness'] as const;
export const SANDBOX_ROLES = ['agent', 'verifier', 'environment'] as const;
export const SANDBOX_OUTCOMES = ['completed', 'failed', 'timeout', 'oom', 'sandbox_error', 'cancelled', 'unknown'] as const;
export const COMPACTION_OUTCOMES = ['completed', 'failed', 'aborted', 'unknown'] as const;
