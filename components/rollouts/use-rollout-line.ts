'use client';

// The rollout's own line, fetched once per page for every view that reads it (its conversation and its tree): the
// line can be hundreds of KB, and both open at once on a rollout without calls (one shared load, use-fetched.ts).
import { useFetched, type Fetched } from '@/components/calls/use-fetched';
import { parseKeepingNumbers } from '@/lib/view/json-source';

export type Line = { value: unknown; text: null } | { value: null; text: string };

/** The line parsed (numbers kept as written); a line JSON.parse cannot read (NaN, a BOM: Python's json reads those) is kept as text. */
export function parseLine(text: string): Line {
  try {
    return { value: parseKeepingNumbers(text), text: null };
  } catch {
    return { value: null, text };
  }
}

export const useRolloutLine = (url: string | null): Fetched<Line> => useFetched(url, parseLine, { shared: true });

export const rolloutLineUrl = (run: string, rollout: string) => `/api/runs/${encodeURIComponent(run)}/rollouts/${encodeURIComponent(rollout)}/line`;
