import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { presentRollout } from '@/lib/api/present';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import type { JsonObject } from '@/lib/capture/json-value';
import { serialize } from '@/lib/capture/json-serialize';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { index } = await getInstance();
  const detail = await index.rolloutDetail(run, rollout);
  if (!detail) throw notFound(`rollout '${rollout}' of run '${run}'`);
  // The capture keeps the format's exact numbers (1.0 stays 1.0), so it is serialized by the format library.
  const body = serialize({
    run: detail.run,
    rollout: presentRollout(detail.rollout) as unknown as JsonObject,
    capture: detail.capture,
    attachment: detail.attachment,
    attempts: detail.attempts as unknown as JsonObject[],
  });
  return new Response(body, { headers: { 'content-type': 'application/json' } });
});
