'use client';

import { useMemo, useState } from 'react';
import { cx } from '@/components/ui/cn';
import type { TextRun } from '@/lib/rollouts/diff-json';
import { shownLines } from '@/lib/view/diff';

const SIGN = { same: ' ', removed: '\u2212', added: '+' } as const;

/** Two strings diffed by lines: changed lines shown, long unchanged runs folded to their length (one click opens them). */
export function TextDiffView({ runs }: { runs: TextRun[] }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const rows = useMemo(() => shownLines(runs, 3, open), [runs, open]);
  return (
    <div className="overflow-x-auto rounded border border-line font-mono text-xs" role="group" aria-label="line diff">
      {rows.map((row) =>
        row.kind === 'fold' ? (
          <button
            key={`fold-${row.run}`}
            type="button"
            onClick={() => setOpen(new Set([...open, row.run]))}
            className="block w-full bg-panel px-2 py-0.5 text-left text-muted hover:text-fg"
          >
            {row.count} unchanged line{row.count === 1 ? '' : 's'}
          </button>
        ) : (
          row.lines.map((line, k) => (
            <div
              key={`${row.op}-${row.aLine + k}-${row.bLine + k}`}
              className={cx('flex whitespace-pre-wrap break-all', row.op === 'added' && 'bg-good/10', row.op === 'removed' && 'bg-bad/10')}
            >
              <span aria-hidden className="w-10 shrink-0 pr-2 text-right text-muted select-none">{row.op === 'added' ? '' : row.aLine + k + 1}</span>
              <span aria-hidden className="w-10 shrink-0 pr-2 text-right text-muted select-none">{row.op === 'removed' ? '' : row.bLine + k + 1}</span>
              <span aria-hidden className={cx('w-4 shrink-0 select-none', row.op === 'added' ? 'text-good' : row.op === 'removed' ? 'text-bad' : 'text-muted')}>{SIGN[row.op]}</span>
              <span className="min-w-0">{line}</span>
            </div>
          ))
        ),
      )}
    </div>
  );
}
