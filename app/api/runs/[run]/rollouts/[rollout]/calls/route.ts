// GET /api/runs/{run}/rollouts/{rollout}/calls: every call of a rollout as compact columns (lib/view/series,
// strings coded), without payloads. The rollout page fetches it after it paints: a 30,000-call rollout is a
// few MB of JSON that would cost seconds of HTML parsing if inlined.
// The last few answers are kept, keyed by the rollout's aggregates, so a reload or a return costs nothing
// until the rollout changes (capture files only grow, and any change moves the aggregates).
import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { rolloutVersion } from '@/lib/api/present';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { toCallColumns } from '@/lib/view/series';

export const dynamic = 'force-dynamic';

const KEPT = 4;
const cache = new Map<string, { stamp: string; body: string }>();

export const GET = handle(async (_req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { index } = await getInstance();
  const row = index.rollout(run, rollout);
  if (!row) throw notFound(`rollout '${rollout}' of run '${run}'`);
  const key = `${run}/${rollout}`;
  const stamp = rolloutVersion(row);
  let hit = cache.get(key);
  if (hit?.stamp !== stamp) {
    hit = { stamp, body: JSON.stringify(toCallColumns(index.rolloutCalls(run, rollout) ?? [])) };
    cache.delete(key);
    cache.set(key, hit);
    if (cache.size > KEPT) cache.delete(cache.keys().next().value!);
  }
  return new Response(hit.body, { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
});
