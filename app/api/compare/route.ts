import { NextResponse, type NextRequest } from 'next/server';
import { handle, notFound } from '@/lib/api/errors';
import { CompareQuerySchema } from '@/lib/api/compare-schemas';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: NextRequest) => {
  const { runs, pair_by } = CompareQuerySchema.parse({ runs: req.nextUrl.searchParams.get('runs') ?? '', pair_by: req.nextUrl.searchParams.get('pair_by') ?? undefined });
  const { index } = await getInstance();
  const comparison = await index.compare(runs, pair_by);
  if (!comparison) throw notFound(`one of the runs '${runs.join(',')}'`);
  return NextResponse.json(comparison);
});
