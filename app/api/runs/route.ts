import { NextResponse } from 'next/server';
import { handle } from '@/lib/api/errors';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { index } = await getInstance();
  return NextResponse.json({ runs: index.listRuns() });
});
