'use client';

import { LongText } from '@/components/payload/long-text';
import { cx } from '@/components/ui/cn';
import { numberText, stringifyKeepingNumbers } from '@/lib/view/json-source';

/**
 * One side's value in a diff, as text (never markup): a number as the stored line wrote it, a string that spans
 * lines as its text, anything else as indented JSON; long text folds (LongText).
 */
export function DiffValue({ holder, at, tone, className }: { holder: object; at: string | number; tone?: 'added' | 'removed'; className?: string }) {
  const v = (holder as Record<string | number, unknown>)[at];
  let text: string;
  if (typeof v === 'number' || typeof v === 'bigint') text = numberText(holder, at, v);
  else if (typeof v === 'string' && (v.includes('\n') || v.length > 120)) text = v;
  else text = typeof v === 'string' ? JSON.stringify(v) : stringifyKeepingNumbers(v);
  return (
    <div className={cx('min-w-0 rounded px-2 py-0.5 font-mono text-xs', tone === 'added' && 'bg-good/10', tone === 'removed' && 'bg-bad/10', className)}>
      {tone ? <span aria-hidden className={cx('mr-1 select-none', tone === 'added' ? 'text-good' : 'text-bad')}>{tone === 'added' ? '+' : '\u2212'}</span> : null}
      <LongText text={text} className="inline-block max-w-full align-top [&>p]:font-mono [&>p]:text-xs" />
    </div>
  );
}
