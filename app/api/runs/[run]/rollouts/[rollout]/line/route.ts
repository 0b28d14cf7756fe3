// GET /api/runs/{run}/rollouts/{rollout}/line: the rollout's own line of its rollouts file, byte for byte, streamed
// from the byte span the index keeps (the file is the index's, never a path from the request).
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { RolloutKeySchema, RunIdSchema } from '@/lib/api/schemas';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest, ctx: { params: Promise<{ run: string; rollout: string }> }) => {
  const params = await ctx.params;
  const run = RunIdSchema.parse(params.run);
  const rollout = RolloutKeySchema.parse(params.rollout);
  const { index } = await getInstance();
  const span = index.lineLocation(run, rollout);
  if (!span) throw notFound(`rollout line of '${rollout}'`);
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson', 'content-length': String(span.length) };
  if (req.nextUrl.searchParams.get('download') !== null) headers['content-disposition'] = `attachment; filename="${rollout}.rollout.jsonl"`;
  if (span.length === 0) return new Response('', { headers });
  const stream = createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 });
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { headers });
});
