'use client';

import { RolloutPageSchema, type RolloutItem, type RolloutPage } from '@/lib/api/schemas';
import { rolloutsApiUrl, type RolloutView } from '@/lib/view/table';

/** One page of a view from the JSON API; the API's `{error: {message}}` becomes the thrown message. */
export async function fetchRolloutPage(run: string, view: RolloutView, limit: number, cursor: string | null, signal?: AbortSignal): Promise<RolloutPage> {
  const res = await fetch(rolloutsApiUrl(run, view, limit, cursor), { cache: 'no-store', signal });
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!res.ok) throw new Error(body?.error?.message ?? `the server answered ${res.status}`);
  return RolloutPageSchema.parse(body);
}

/** Every row of a view, page by page (for exports), reporting progress. */
export async function fetchAllRollouts(run: string, view: RolloutView, onProgress: (done: number, total: number) => void, signal: AbortSignal): Promise<RolloutItem[]> {
  const rows: RolloutItem[] = [];
  let cursor: string | null = null;
  do {
    const page: RolloutPage = await fetchRolloutPage(run, view, 500, cursor, signal);
    rows.push(...page.rollouts);
    cursor = page.next_cursor;
    onProgress(rows.length, page.total);
  } while (cursor);
  return rows;
}
