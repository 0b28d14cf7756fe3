import { callRawEndpoint } from '@/lib/api/endpoints/call-raw';
import type { CallPathParams } from '@/lib/api/endpoints/call-params';
import { handle } from '@/lib/api/errors';
import { webResponse } from '@/lib/api/web-answer';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request, ctx: { params: Promise<CallPathParams> }) => {
  const params = await ctx.params;
  const download = new URL(req.url).searchParams.get('download') !== null;
  return webResponse(await callRawEndpoint((await getInstance()).index, { ...params, download }));
});
