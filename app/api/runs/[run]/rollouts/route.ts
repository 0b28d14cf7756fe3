import { NextResponse, type NextRequest } from 'next/server';
import { ApiError, handle, notFound } from '@/lib/api/errors';
import { presentRollout } from '@/lib/api/present';
import { RolloutQuerySchema, RunIdSchema, type RolloutPage } from '@/lib/api/schemas';
import { isCursorError } from '@/lib/index/queries/rollouts';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string }> }) => {
  const run = RunIdSchema.parse((await ctx.params).run);
  const query = RolloutQuerySchema.parse(Object.fromEntries(req.nextUrl.searchParams));
  const { index } = await getInstance();
  let page;
  try {
    page = await index.listRollouts(run, query);
  } catch (err) {
    if (isCursorError(err)) throw new ApiError('bad_request', `cursor: ${(err as Error).message}`);
    throw err;
  }
  if (!page) throw notFound(`run '${run}'`);
  return NextResponse.json({ total: page.total, rollouts: page.rollouts.map(presentRollout), next_cursor: page.next_cursor } satisfies RolloutPage);
});
