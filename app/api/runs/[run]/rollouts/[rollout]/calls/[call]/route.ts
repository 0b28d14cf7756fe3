import { callRecordEndpoint } from '@/lib/api/endpoints/call-record';
import type { CallPathParams } from '@/lib/api/endpoints/call-params';
import { handle } from '@/lib/api/errors';
import { webResponse } from '@/lib/api/web-answer';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, ctx: { params: Promise<CallPathParams> }) => {
  const params = await ctx.params;
  return webResponse(await callRecordEndpoint((await getInstance()).index, params));
});
