// GET /api/runs/{run}/rollouts/{rollout}/line: the rollout's own line of its rollouts file, byte for byte, streamed
// from the byte span the index keeps.
import { spanAnswer } from '@/lib/api/answer';
import { handle, notFound } from '@/lib/api/errors';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { webResponse } from '@/lib/api/web-answer';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { index } = await getInstance();
  const span = await index.lineLocation(run, rollout);
  const what = `rollout line of '${rollout}'`;
  if (!span) throw notFound(what);
  return webResponse(await spanAnswer(span, what, new URL(req.url).searchParams.get('download') !== null ? `${rollout}.rollout.jsonl` : null));
});
