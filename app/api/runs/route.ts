import { runsEndpoint } from '@/lib/api/endpoints/runs';
import { handle } from '@/lib/api/errors';
import { webResponse } from '@/lib/api/web-answer';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => webResponse(await runsEndpoint((await getInstance()).index)));
