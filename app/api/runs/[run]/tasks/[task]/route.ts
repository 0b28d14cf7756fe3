import { NextResponse, type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { presentTaskDetail } from '@/lib/api/present';
import { RunIdSchema } from '@/lib/api/schemas';
import { TaskDetailQuerySchema, TaskIndexSchema } from '@/lib/api/task-schemas';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string; task: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const task = TaskIndexSchema.parse(params.task);
  const { agent } = TaskDetailQuerySchema.parse(Object.fromEntries(req.nextUrl.searchParams));
  const { index } = await getInstance();
  const groups = await index.taskGroups(run); // once: while a pass runs, each read builds them anew
  const detail = await index.task(run, agent ?? groups?.[0]?.agent ?? '', task, groups);
  if (!detail) throw notFound(`task ${task} of run '${run}'`);
  return NextResponse.json(presentTaskDetail(detail));
});
