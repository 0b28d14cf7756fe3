// The task groups' API shapes (GET /api/runs/{run}/tasks and /tasks/{task}): the query, the page and one task.
import { z } from 'zod';
import { AgentTasksSchema, SOLVED, TaskGroupSchema } from '../rollouts/task-groups';
import { RolloutRowSchema } from './schemas';

/** What a task page sorts by (lib/index/aggregates/tasks.ts sorts). */
export const TASK_SORTS = ['task', 'rollouts', 'reward_mean', 'reward_std', 'reward_min', 'reward_max', 'pass@1', 'pass@k', 'tokens', 'latency', 'failed'] as const;
export type TaskSortKey = (typeof TASK_SORTS)[number];

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const TaskQuerySchema = z
  .object({
    agent: z.string().max(200).optional().describe("only this agent's tasks (agent_ref.name; '' for lines without one)"),
    sort: z.enum(TASK_SORTS).default('task').describe('pass@k: at the agent’s largest group size; tokens and latency: the mean over the task’s rollouts'),
    order: z.enum(['asc', 'desc']).default('asc'),
    zero_variance: bool.optional(),
    solved: z.enum(SOLVED).optional(),
    partial: bool.optional().describe("true: tasks with fewer rollouts than the agent's largest group"),
    failed: bool.optional().describe('true: tasks with failure rows in the sidecar'),
    q: z.string().max(200).optional().describe('text in what names the task, or its task index'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: z.string().max(100).optional(),
  })
  .strict();
export type TaskQuery = z.infer<typeof TaskQuerySchema>;

export const TaskPageSchema = z.object({
  agents: z.array(AgentTasksSchema.extend({ total_tasks: z.number().int(), matching_tasks: z.number().int() })),
  next_cursor: z.string().nullable(),
});
export type TaskPage = z.infer<typeof TaskPageSchema>;

export const TaskIndexSchema = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const TaskDetailQuerySchema = z.object({ agent: TaskQuerySchema.shape.agent }).strict();

export const TaskDetailSchema = z.object({
  group: TaskGroupSchema,
  rollouts: z.array(RolloutRowSchema.extend({ tool_calls_requested: z.number().nullable().describe('tool calls its captured responses asked for; null without captured calls') })).describe('best to worst: reward, then rollout index'),
  failures: z.array(z.object({ key: z.string(), rollout_index: z.number().nullable(), attempt: z.number().nullable(), failure_class: z.string().nullable() })),
});
export type TaskDetail = z.infer<typeof TaskDetailSchema>;
