'use client';

import type { JsonDiff } from '@/lib/rollouts/diff-json';
import { ignoreVolatile } from '@/lib/rollouts/diff-volatile';
import { cx } from '@/components/ui/cn';
import { ArrayDiffView } from './array-diff-view';
import { DiffValue } from './diff-value';
import { Fold } from './fold';
import { TextDiffView } from './text-diff-view';

type Entry = Extract<JsonDiff, { op: 'object' }>['entries'][number];

/** Consecutive unchanged keys of an object, folded together and named. */
function SameKeys({ entries }: { entries: Entry[] }) {
  const names = entries.map((e) => e.key);
  const label = `${entries.length} unchanged key${entries.length === 1 ? '' : 's'}: ${names.slice(0, 6).join(', ')}${names.length > 6 ? ', …' : ''}`;
  return (
    <Fold label={label}>
      {() => (
        <div className="space-y-1">
          {entries.map((e) => (
            <div key={e.key}>
              <p className="font-mono text-xs text-muted">{e.key}</p>
              <DiffValue holder={e.diff} at="value" />
            </div>
          ))}
        </div>
      )}
    </Fold>
  );
}

function ObjectDiffView({ entries }: { entries: Entry[] }) {
  // Which keys each side's object has, for the policy (an `id` is an API id only beside a type, role or object).
  const sideKeys = (skip: JsonDiff['op']) => Object.fromEntries(entries.filter((e) => e.diff.op !== skip).map((e) => [e.key, true]));
  const [keysA, keysB] = [sideKeys('added'), sideKeys('removed')];
  const volatile = (k: string) => ignoreVolatile(k, keysA) || ignoreVolatile(k, keysB);
  const groups: (Entry | Entry[])[] = [];
  for (const e of entries) {
    const last = groups[groups.length - 1];
    if (e.diff.op === 'same' && Array.isArray(last)) last.push(e);
    else groups.push(e.diff.op === 'same' ? [e] : e);
  }
  return (
    <div className="space-y-1.5">
      {groups.map((g) =>
        Array.isArray(g) ? (
          <SameKeys key={`same-${g[0].key}`} entries={g} />
        ) : (
          <div key={g.key} className={cx('min-w-0', volatile(g.key) && 'opacity-60')}>
            <p className="font-mono text-xs font-semibold">
              {g.key}
              {volatile(g.key) ? <span className="ml-2 font-sans font-normal text-muted">differs between any two runs (ids, timestamps, usage): not a divergence</span> : null}
              {g.diff.op === 'added' ? <span className="ml-2 font-sans font-normal text-good">only in b</span> : g.diff.op === 'removed' ? <span className="ml-2 font-sans font-normal text-bad">only in a</span> : null}
            </p>
            <div className="border-l border-line pl-3">
              <JsonDiffView diff={g.diff} />
            </div>
          </div>
        ),
      )}
    </div>
  );
}

/** A structural diff (lib/rollouts/diff-json.ts) drawn as it is: changes highlighted, unchanged parts folded with their size. */
export function JsonDiffView({ diff }: { diff: JsonDiff }) {
  switch (diff.op) {
    case 'same':
      return <Fold label="unchanged">{() => <DiffValue holder={diff} at="value" />}</Fold>;
    case 'added':
      return <DiffValue holder={diff} at="b" tone="added" />;
    case 'removed':
      return <DiffValue holder={diff} at="a" tone="removed" />;
    case 'changed':
      return (
        <div className="space-y-0.5">
          <DiffValue holder={diff} at="a" tone="removed" />
          <DiffValue holder={diff} at="b" tone="added" />
        </div>
      );
    case 'object':
      return <ObjectDiffView entries={diff.entries} />;
    case 'array':
      return <ArrayDiffView diff={diff} Nested={JsonDiffView} />;
    case 'text':
      return <TextDiffView runs={diff.runs} />;
  }
}
