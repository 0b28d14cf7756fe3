// Every /api path that no route file answers, for every method: a 404 in the API's error shape, where Next
// would send its HTML not-found page. Route files beside it are matched first.
import type { NextRequest } from 'next/server';
import { errorResponse } from '@/lib/api/errors';

const noRoute = (req: NextRequest) => errorResponse('not_found', `no API route at ${req.nextUrl.pathname}`);

export const dynamic = 'force-dynamic';
export { noRoute as GET, noRoute as HEAD, noRoute as POST, noRoute as PUT, noRoute as PATCH, noRoute as DELETE, noRoute as OPTIONS };
