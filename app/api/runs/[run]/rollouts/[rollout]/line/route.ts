// GET /api/runs/{run}/rollouts/{rollout}/line: the rollout's own line of its rollouts file, byte for byte, streamed
// from the byte span the index keeps.
import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { spanResponse } from '@/lib/api/span-response';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { index } = await getInstance();
  const span = index.lineLocation(run, rollout);
  if (!span) throw notFound(`rollout line of '${rollout}'`);
  return spanResponse(span, req.nextUrl.searchParams.get('download') !== null ? `${rollout}.rollout.jsonl` : null);
});
