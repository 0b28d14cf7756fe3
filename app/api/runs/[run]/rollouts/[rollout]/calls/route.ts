// GET /api/runs/{run}/rollouts/{rollout}/calls[?fields=a,b]: every call of a rollout as compact columns
// (lib/view/series, strings coded), without payloads, or only the columns asked for. The rollout page fetches
// them after it paints: a 30,000-call rollout is a few MB of JSON that would cost seconds of HTML parsing if
// inlined. The last few answers are kept, column by column, keyed by the rollout's aggregates, so a reload or
// a return costs nothing until the rollout changes (capture files only grow, and any change moves them).
import { type NextRequest } from 'next/server';
import { columnsBody, columnTexts, type ColumnTexts } from '@/lib/api/call-columns-body';
import { handle, notFound } from '@/lib/api/errors';
import { rolloutVersion } from '@/lib/api/present';
import { CallColumnsQuerySchema } from '@/lib/api/call-schemas';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';
import { toCallColumns } from '@/lib/view/series';

export const dynamic = 'force-dynamic';

const KEPT = 4;
const cache = new Map<string, { stamp: string; texts: ColumnTexts }>();

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { fields } = CallColumnsQuerySchema.parse(Object.fromEntries(req.nextUrl.searchParams));
  const { index } = await getInstance();
  const row = await index.rollout(run, rollout);
  if (!row) throw notFound(`rollout '${rollout}' of run '${run}'`);
  const key = `${run}/${rollout}`;
  const stamp = rolloutVersion(row);
  let hit = cache.get(key);
  if (hit?.stamp !== stamp) {
    hit = { stamp, texts: columnTexts(toCallColumns((await index.rolloutCalls(run, rollout)) ?? [])) };
    cache.delete(key);
    cache.set(key, hit);
    if (cache.size > KEPT) cache.delete(cache.keys().next().value!);
  }
  return new Response(columnsBody(hit.texts, fields), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
});
