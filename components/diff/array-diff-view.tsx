'use client';

import type { ComponentType } from 'react';
import type { ArrayRun, JsonDiff } from '@/lib/rollouts/diff-json';
import { DiffValue } from './diff-value';
import { Fold } from './fold';

/** How a changed item's own diff is drawn: JsonDiffView, which draws this view (passed in, not imported: no cycle). */
type Nested = ComponentType<{ diff: JsonDiff }>;

const span = (from: number, count: number) => (count === 1 ? `${from}` : `${from}–${from + count - 1}`);

function Run({ r, Nested }: { r: ArrayRun; Nested: Nested }) {
  if (r.op === 'same') {
    const label = `${r.count} item${r.count === 1 ? '' : 's'} unchanged${r.b_values ? ' (ids and timestamps aside)' : ''} · a[${span(r.a_index, r.count)}] = b[${span(r.b_index, r.count)}]`;
    return (
      <Fold label={label} className="rounded bg-panel px-2 py-1">
        {() => (
          <div className="space-y-1">
            {r.values.map((_, k) => (
              <DiffValue key={k} holder={r.values} at={k} />
            ))}
          </div>
        )}
      </Fold>
    );
  }
  if (r.op === 'changed') {
    return (
      <div className="min-w-0">
        <p className="font-mono text-xs font-semibold text-warn">
          a[{r.a_index}] → b[{r.b_index}]
        </p>
        <div className="border-l border-warn/50 pl-3">
          <Nested diff={r.diff} />
        </div>
      </div>
    );
  }
  const tone = r.op === 'added' ? 'added' : 'removed';
  const from = r.op === 'added' ? r.b_index : r.a_index;
  return (
    <div className="space-y-0.5">
      {r.values.map((_, k) => (
        <div key={k} className="min-w-0">
          <p className={`font-mono text-xs ${tone === 'added' ? 'text-good' : 'text-bad'}`}>
            {tone === 'added' ? `only in b: b[${from + k}]` : `only in a: a[${from + k}]`}
          </p>
          <DiffValue holder={r.values} at={k} tone={tone} />
        </div>
      ))}
    </div>
  );
}

/** An array diff's runs in order: unchanged runs (a conversation's shared history) folded with their length. */
export function ArrayDiffView({ diff, Nested }: { diff: Extract<JsonDiff, { op: 'array' }>; Nested: Nested }) {
  return (
    <div className="space-y-1.5">
      <p className="text-xs text-muted">
        {diff.a_length} item{diff.a_length === 1 ? '' : 's'} in a, {diff.b_length} in b
      </p>
      {diff.runs.map((r) => (
        <Run key={`${r.op}-${r.a_index}-${r.b_index}`} r={r} Nested={Nested} />
      ))}
    </div>
  );
}
