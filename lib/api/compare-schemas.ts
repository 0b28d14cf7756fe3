// GET /api/compare and /api/compare/points: runs side by side (totals, per model server, per-rollout distributions,
// latency and TTFT percentiles, errors, gaps, reward, tool calls), their tasks paired where the runs are over the same
// tasks, NeMo Gym's pass@k per run and the tasks whose pass@1 changed; and the scatter's per-rollout points.
import { z } from 'zod';
import type { TaskChanges } from '../rollouts/task-changes';
import { RunIdSchema, RunSchema } from './schemas';
import type { Expect, Same } from './same-type';

export const CompareQuerySchema = z.object({
  runs: z
    .string()
    .transform((s) => s.split(',').filter(Boolean))
    .pipe(z.array(RunIdSchema).min(1).max(8)),
  pair_by: z
    .enum(['index', 'task'])
    .optional()
    .describe("how task_changes pairs the first two runs' tasks: by _ng_task_index, or by what names the task (default: index when the runs are over the same tasks)"),
});

const nullableNumber = z.number().nullable();

export const DistributionSchema = z.object({
  count: z.number().int().describe('rollouts whose figure is known'),
  mean: nullableNumber,
  quantiles: z.array(nullableNumber).describe("at the answer's `quantiles`; null when count is 0"),
});
export type Distribution = z.infer<typeof DistributionSchema>;

const ServerUsageSchema = z.object({
  model_server: z.string().nullable(),
  calls: z.number().int(),
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  tokens_reasoning: nullableNumber,
  tokens_total: nullableNumber,
  cached_tokens: nullableNumber,
  errors: z.number().int(),
});

export const RunComparisonSchema = z.object({
  run: z.string(),
  totals: RunSchema.shape.totals,
  rollout_tokens: z.object({ tokens_in: DistributionSchema, tokens_out: DistributionSchema, tokens_reasoning: DistributionSchema, tokens_total: DistributionSchema }),
  reward: DistributionSchema,
  rollout_tool_calls: DistributionSchema.describe('per rollout with a trajectory: its tool calls'),
  rollout_tool_time: DistributionSchema.describe('per rollout with a measured tool time: that time, ms'),
  gaps: z.record(z.string(), z.number()).describe('rollouts per gap code'),
  calls: z.object({
    servers: z.array(ServerUsageSchema),
    error_categories: z.record(z.string(), z.number()).describe('calls per error category'),
    latency_ms: z.array(nullableNumber).describe("at the answer's `percentiles`"),
    ttft_ms: z.array(nullableNumber),
  }),
});

export const TaskRelationSchema = z.object({
  same: z.boolean().describe('whether the runs are over the same tasks, so that pairing them by task index means something'),
  basis: z.enum(['task_names', 'inputs_file']).nullable().describe('what decided it: the tasks the lines name, the materialized inputs files, or nothing to go on'),
  reason: z.string(),
});

export const TaskPairSchema = z.object({
  task_index: z.number().int(),
  runs: z.array(z.object({ rollouts: z.number().int(), mean_tokens_total: nullableNumber, mean_reward: nullableNumber })),
  delta_tokens_total: nullableNumber,
  delta_reward: nullableNumber,
});
export type TaskPair = z.infer<typeof TaskPairSchema>;

const TaskSideSchema = z.object({
  task_index: z.number().int(),
  pass_at_1: z.number(),
  rewards: z.array(z.number()),
  best: z.string().describe('the key of its best rollout: what a diff opens'),
});

export const TaskChangesSchema = z.object({
  pair_by: z.enum(['index', 'task']),
  paired: z.number().int().describe('tasks found in both runs'),
  unchanged: z.number().int(),
  only_a: z.number().int(),
  only_b: z.number().int(),
  unpairable: z.number().int().describe('tasks of either run with no pairing key (no name, when pairing by name), or a name several tasks share'),
  changes: z.array(
    z.object({
      task: z.string().nullable(),
      a: TaskSideSchema,
      b: TaskSideSchema,
      delta: z.number().describe("b's pass@1 − a's, percentage points"),
      kind: z.enum(['newly_unsolved', 'newly_solved', 'fell', 'rose']),
    }),
  ),
});
// lib/rollouts/task-changes.ts computes them (it is pure and imports no API): its types and the schema's are one.
type _TaskChangesMatch = Expect<Same<TaskChanges, z.infer<typeof TaskChangesSchema>>>;

export const CompareSchema = z.object({
  quantiles: z.array(z.number()).describe("the quantiles of every distribution's `quantiles`"),
  percentiles: z.array(z.number()).describe("the percentiles of latency_ms and ttft_ms"),
  runs: z.array(RunComparisonSchema),
  task_relation: TaskRelationSchema,
  tasks: z.array(TaskPairSchema).describe('paired by task index; empty unless task_relation.same'),
  pass_at_k: z
    .array(
      z.object({
        run: z.string(),
        pending: z.boolean().describe('its task groups are being built'),
        agents: z.array(z.object({ agent: z.string().nullable(), max_k: z.number().int(), tasks: z.number().int(), metrics: z.record(z.string(), z.number()) })),
      }),
    )
    .describe("each run's NeMo Gym pass@k metrics per agent"),
  task_changes: TaskChangesSchema.extend({ agent_a: z.string().nullable(), agent_b: z.string().nullable() })
    .nullable()
    .describe('the tasks whose pass@1 changed from the first run to the second; null with one run, no task groups, or groups pending'),
});
export type Compare = z.infer<typeof CompareSchema>;

export const PointsQuerySchema = z.object({ runs: CompareQuerySchema.shape.runs, limit: z.coerce.number().int().min(1).max(50_000).default(50_000) }).strict();
export const PointsSchema = z.object({
  runs: z.array(z.object({ run: z.string(), total: z.number(), truncated: z.boolean(), keys: z.array(z.string()), tokens_total: z.array(z.number().nullable()), reward: z.array(z.number().nullable()) })),
});
export type Points = z.infer<typeof PointsSchema>;
