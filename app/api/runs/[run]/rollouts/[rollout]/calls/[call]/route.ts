import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { CallIdSchema, RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { serialize } from '@/lib/capture/json';
import { streamParts } from '@/lib/index/payload';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string; call: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const call = CallIdSchema.parse(params.call);
  const { index } = await getInstance();
  const body = await index.callDetail(run, rollout, call);
  if (!body) throw notFound(`call '${call}' of rollout '${rollout}'`);
  const headers = { 'content-type': 'application/json' };
  if (body.kind === 'json') return new Response(serialize(body.record), { headers });
  const parts = streamParts(body.parts);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await parts.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value));
    },
    async cancel() {
      await parts.return(undefined);
    },
  });
  return new Response(stream, { headers });
});
