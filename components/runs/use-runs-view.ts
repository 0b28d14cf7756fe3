'use client';

// The runs page's search, agent filter and sort in the URL query string. The page holds every run, so the
// updates are shallow (no server render) and replace the history entry rather than push one per keystroke.
import { parseAsString, parseAsStringLiteral, useQueryStates } from 'nuqs';
import { RUN_SORT_KEYS, type RunsView } from '@/lib/view/runs';

const parsers = {
  q: parseAsString,
  agent: parseAsString,
  sort: parseAsStringLiteral(RUN_SORT_KEYS).withDefault('run'),
  order: parseAsStringLiteral(['asc', 'desc'] as const).withDefault('asc'),
};

export type RunsViewPatch = { [K in keyof RunsView]?: RunsView[K] | null };

export function useRunsView(): [RunsView, (patch: RunsViewPatch) => void] {
  const [state, setState] = useQueryStates(parsers, { history: 'replace' });
  return [state, (patch) => void setState(patch)];
}
