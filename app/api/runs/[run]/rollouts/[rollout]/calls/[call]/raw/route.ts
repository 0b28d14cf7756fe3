import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { CallIdSchema, RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { spanResponse } from '@/lib/api/span-response';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string; call: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const call = CallIdSchema.parse(params.call);
  const { index } = await getInstance();
  const span = index.rawLocation(run, rollout, call);
  if (!span) throw notFound(`stored capture line of call '${call}'`);
  return spanResponse(span, req.nextUrl.searchParams.get('download') !== null ? `${rollout}-${call}.jsonl` : null);
});
