'use client';

import { useState } from 'react';
import { cn, cx } from '@/components/ui/cn';
import { CheckIcon, CopyIcon, LinkIcon } from '@/components/ui/row-icons';
import { copyText } from './copy-text';

/** A small button that copies what `text()` returns and confirms it for a moment. */
export function CopyButton({ text, label, kind = 'value', className, showLabel = false }: { text: () => string; label: string; kind?: 'value' | 'link'; className?: string; showLabel?: boolean }) {
  const [done, setDone] = useState(false);
  const Icon = done ? CheckIcon : kind === 'link' ? LinkIcon : CopyIcon;
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={async (e) => {
        e.stopPropagation();
        if (await copyText(text())) {
          setDone(true);
          setTimeout(() => setDone(false), 1200);
        }
      }}
      // tailwind-merge only for a caller's overrides: trees render two of these per row.
      className={(className ? cn : cx)('inline-flex items-center gap-1 rounded px-1 py-0.5 hover:bg-line hover:text-fg', done ? 'text-good' : 'text-muted', className)}
    >
      <Icon size={12} />
      {showLabel ? <span className="text-xs">{done ? 'copied' : label}</span> : null}
    </button>
  );
}
