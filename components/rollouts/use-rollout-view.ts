'use client';

// The rollouts view (sort, order, search, filters) in the URL query string. Updates are not shallow: the
// server renders the first page of the new view, so a shared link reproduces it exactly.
import { createParser, parseAsFloat, parseAsString, parseAsStringLiteral, useQueryStates } from 'nuqs';
import type { TransitionStartFunction } from 'react';
import { DIALECTS, ERROR_CATEGORIES, GAP_CODE_LIST } from '@/lib/capture/vocabulary';
import { TOOL_STATUSES } from '@/lib/rollouts/observation-values';
import { SORT_KEYS, type RolloutView } from '@/lib/view/table';

// Booleans and the attempt read exactly as the API schema reads them, so the controls never show a value
// the server ignored.
const parseAsFlag = createParser({
  parse: (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : null),
  serialize: (v: boolean) => String(v),
});
const parseAsCount = createParser({ parse: (v) => (/^\d{1,9}$/.test(v) ? Number(v) : null), serialize: (v: number) => String(v) });

const parsers = {
  sort: parseAsStringLiteral(SORT_KEYS).withDefault('rollout'),
  order: parseAsStringLiteral(['asc', 'desc'] as const).withDefault('asc'),
  q: parseAsString,
  model_server: parseAsString,
  dialect: parseAsStringLiteral(DIALECTS),
  error_category: parseAsStringLiteral(ERROR_CATEGORIES),
  gap: parseAsStringLiteral(GAP_CODE_LIST),
  tool_name: parseAsString,
  tool_status: parseAsStringLiteral(TOOL_STATUSES),
  trajectory_gap: parseAsStringLiteral(GAP_CODE_LIST),
  attempt: parseAsCount,
  reward_min: parseAsFloat,
  reward_max: parseAsFloat,
  has_errors: parseAsFlag,
  failed: parseAsFlag,
  line_problem: parseAsFlag,
};

export type ViewPatch = { [K in keyof typeof parsers]?: RolloutView[K] | null };

export function useRolloutView(startTransition: TransitionStartFunction): [RolloutView, (patch: ViewPatch) => void] {
  const [state, setState] = useQueryStates(parsers, { shallow: false, history: 'push', startTransition });
  const view = Object.fromEntries(Object.entries(state).filter(([, v]) => v !== null)) as RolloutView;
  return [view, (patch) => void setState(patch)];
}
