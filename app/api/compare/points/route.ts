// Per-rollout points for the compare page's reward-vs-tokens scatter: for each run, columns of rollout key,
// tokens_total (as the views show it: the captured sum, or a call-less rollout's response.usage) and reward
// (null when unknown), at most `limit` rollouts per run in rollout order.
import { NextResponse, type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { PointsQuerySchema, type Points } from '@/lib/api/compare-schemas';
import { responseUsage } from '@/lib/index/queries/rollouts';
import { getInstance } from '@/lib/server/instance';
import { shownTokens } from '@/lib/view/table';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest) => {
  const { runs, limit } = PointsQuerySchema.parse(Object.fromEntries(req.nextUrl.searchParams));
  const { index } = await getInstance();
  const out = await Promise.all([...new Set(runs)].map(async (run) => {
    const page = await index.listRollouts(run, { sort: 'rollout', order: 'asc', limit });
    if (!page) throw notFound(`run '${run}'`);
    return {
      run,
      total: page.total,
      truncated: page.next_cursor !== null,
      keys: page.rollouts.map((r) => r.key),
      tokens_total: page.rollouts.map((r) => shownTokens({ ...r, response_usage: responseUsage(r) }, r.num_calls, 'tokens_total').value),
      reward: page.rollouts.map((r) => r.reward),
    };
  }));
  return NextResponse.json({ runs: out } satisfies Points);
});
