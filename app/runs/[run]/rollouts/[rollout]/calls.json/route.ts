// The rollout page's calls as compact columns (lib/view/series), fetched by the browser after the page
// paints: a 30,000-call rollout is a few MB of JSON that would cost seconds of HTML parsing if inlined.
import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { toCallColumns } from '@/lib/view/series';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { index } = await getInstance();
  const calls = index.rolloutCalls(run, rollout);
  if (!calls) throw notFound(`rollout '${rollout}' of run '${run}'`);
  return new Response(JSON.stringify(toCallColumns(calls)), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
});
