'use client';

import { ChevronRight } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { cx } from '@/components/ui/cn';

/** An unchanged stretch folded to one line that says how long it is; its content is rendered only once opened. */
export function Fold({ label, children, className }: { label: ReactNode; children: () => ReactNode; className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className={className}>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} className="flex items-center gap-1 text-xs text-muted hover:text-fg">
        <ChevronRight size={12} aria-hidden className={cx('transition-transform', open && 'rotate-90')} />
        {label}
      </button>
      {open ? <div className="mt-1">{children()}</div> : null}
    </div>
  );
}
