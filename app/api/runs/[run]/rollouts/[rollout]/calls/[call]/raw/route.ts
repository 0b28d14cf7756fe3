import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { CallIdSchema, RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
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
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'content-length': String(span.length) };
  if (req.nextUrl.searchParams.get('download') !== null) headers['content-disposition'] = `attachment; filename="${rollout}-${call}.jsonl"`;
  if (span.length === 0) return new Response('', { headers });
  const stream = createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 });
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { headers });
});
