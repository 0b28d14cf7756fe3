// Index rows as the API (and the pages) present them: gaps parsed, tag lists split, flags as booleans. An adapter
// over the index (it reads its rows), typed by the API's schemas.
import type { IndexTaskDetail } from '../index/callscope-index';
import { responseUsage, type RolloutRow } from '../index/queries/rollouts';
import type { RolloutItem } from './schemas';
import type { TaskDetail } from './task-schemas';

const tags = (t: string | null) => (t ? t.split('|').filter(Boolean) : []);

/**
 * A stamp that changes whenever a rollout's calls change: capture files only grow, and any change moves one of
 * these aggregates. The rollout page refetches its calls on a new stamp; the calls route caches by it.
 */
export function rolloutVersion(r: RolloutRow): string {
  return [r.num_calls, r.tokens_total, r.latency_sum, r.errors, r.started_at, r.completed_at, r.unreadable, r.marker].join('|');
}

export function presentRollout(r: RolloutRow): RolloutItem {
  return {
    key: r.key,
    rollout_id: r.rollout_id,
    line_no: r.line_no,
    reward: r.reward,
    task_index: r.task_index,
    rollout_index: r.rollout_index,
    attempt: r.attempt,
    failure_class: r.failure_class,
    agent: r.agent,
    task: r.task,
    source: r.source,
    num_calls: r.num_calls,
    tokens_in: r.tokens_in,
    tokens_out: r.tokens_out,
    tokens_reasoning: r.tokens_reasoning,
    tokens_total: r.tokens_total,
    cached_tokens: r.cached_tokens,
    latency_sum: r.latency_sum,
    latency_max: r.latency_max,
    ttft_p50: r.ttft_p50,
    errors: r.errors,
    gaps: r.gaps ? (JSON.parse(r.gaps) as { code: string; detail?: string }[]) : [],
    model_servers: tags(r.model_servers),
    dialects: tags(r.dialects),
    error_categories: tags(r.error_categories),
    started_at: r.started_at,
    completed_at: r.completed_at,
    incomplete: r.marker === 1,
    unreadable: r.unreadable,
    attachment_mismatch: r.mismatch === 1,
    response_usage: responseUsage(r),
    line_problem: r.line_problem,
    prompt: r.prompt,
    expected_answer: r.expected,
    extracted_answer: r.extracted,
    outcome: r.outcome ? (JSON.parse(r.outcome) as Record<string, string | number | boolean | null>) : null,
    trajectory: r.trajectory_source === null ? null : {
      source: r.trajectory_source,
      invocations: r.invocations ?? 0,
      subagent_depth: r.subagent_depth ?? 0,
      turns: r.turns ?? 0,
      tool_calls: r.tool_calls ?? 0,
      tool_failed: r.tool_failed ?? 0,
      tool_time_ms: r.tool_time,
      tool_time_max_ms: r.tool_time_max,
      tool_unmeasured: r.tool_unmeasured ?? 0,
      compactions: r.compactions ?? 0,
      sandboxes: r.sandboxes ?? 0,
      gaps: r.trajectory_gaps ? (JSON.parse(r.trajectory_gaps) as { code: string; detail?: string }[]) : [],
      tool_names: tags(r.tool_names),
      tool_statuses: tags(r.tool_statuses),
    },
  };
}

/** GET /api/runs/{run}/tasks/{task}: the task's group and failures as they are, its rollouts presented. */
export function presentTaskDetail(d: IndexTaskDetail): TaskDetail {
  return { ...d, rollouts: d.rollouts.map((r) => ({ ...presentRollout(r), tool_calls_requested: r.tool_calls_requested })) };
}
