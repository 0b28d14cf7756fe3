// GET /api/runs/{run}/rollouts/{rollout}/trajectory[?include_payloads=1]: the rollout's ng_trajectory, as stored on
// its line or projected as NeMo Gym's collector would (lib/index/queries/trajectory.ts), with its compactions and sandboxes.
import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { TrajectoryQuerySchema } from '@/lib/api/trajectory-schemas';
import type { JsonObject } from '@/lib/capture/json-value';
import { serialize } from '@/lib/capture/json-serialize';
import { rolloutTrajectory } from '@/lib/index/queries/trajectory';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const query = TrajectoryQuerySchema.parse(Object.fromEntries(req.nextUrl.searchParams));
  const { index } = await getInstance();
  const answer = await rolloutTrajectory(index, run, rollout, { includePayloads: query.include_payloads });
  if (!answer) throw notFound(`rollout '${rollout}' of run '${run}'`);
  // The trajectory keeps the format's exact numbers (1.0 stays 1.0), so it is serialized by the format library.
  return new Response(serialize(answer as unknown as JsonObject), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
});
