'use client';

import { parseAsInteger, useQueryState } from 'nuqs';
import { useCallback } from 'react';
import type { Diff } from '@/lib/api/diff-schemas';
import { PairDetail } from './pair-detail';
import { PairList } from './pair-list';
import { usePairKeys } from './use-pair-keys';

/**
 * The aligned calls and the open pair. The open pair is in the URL (`pair`); without one, the first divergence is
 * open (or the first pair), so a link to a diff shows where it diverges. j/k move between pairs.
 */
export function DiffView({ diff }: { diff: Diff }) {
  const [pair, setPair] = useQueryState('pair', parseAsInteger.withOptions({ history: 'replace', scroll: false }));
  const n = diff.pairs.length;
  const selected = pair !== null && pair >= 0 && pair < n ? pair : n ? (diff.first_divergence?.pair ?? 0) : null;
  const move = useCallback((by: number) => selected !== null && void setPair(Math.min(n - 1, Math.max(0, selected + by))), [selected, n, setPair]);
  usePairKeys(move);
  if (n === 0) return <p className="text-sm text-muted">Neither rollout has a call or a line to compare.</p>;
  return (
    <div className="space-y-4">
      <p className="text-xs text-muted">Click a pair (or press j / k) to open its requests and responses side by side.</p>
      <PairList diff={diff} selected={selected} onSelect={(i) => void setPair(i)} />
      {selected !== null ? <PairDetail key={selected} diff={diff} index={selected} /> : null}
    </div>
  );
}
