import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { DiffQuerySchema } from '@/lib/api/diff-schemas';
import type { JsonObject } from '@/lib/capture/json-value';
import { serialize } from '@/lib/capture/json-serialize';
import { rolloutDiff, rolloutDiffPair } from '@/lib/index/compare/rollout-diff';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest) => {
  const params = req.nextUrl.searchParams;
  const { a, b, pair } = DiffQuerySchema.parse({ a: params.get('a') ?? undefined, b: params.get('b') ?? undefined, pair: params.get('pair') ?? undefined });
  const { index } = await getInstance();
  const body = pair === undefined ? await rolloutDiff(index, a, b) : await rolloutDiffPair(index, a, b, pair);
  if (!body) throw notFound(pair === undefined ? `rollout '${a.run}/${a.rollout}' or '${b.run}/${b.rollout}'` : `pair ${pair} of this diff, or one of its rollouts,`);
  // The pair's payload values keep the format's exact numbers (1.0 stays 1.0), so they are written by its library.
  return new Response(serialize(body as unknown as JsonObject), { headers: { 'content-type': 'application/json' } });
});
