'use client';

import { useEffect } from 'react';

/** j or → for the next call, k or ← for the previous one, 1–9 for the tabs; ignored while typing. */
export function useCallKeys({ prev, next, tab }: { prev: () => void; next: () => void; tab: (k: number) => void }): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      if (e.key === 'j' || e.key === 'ArrowRight') next();
      else if (e.key === 'k' || e.key === 'ArrowLeft') prev();
      else if (/^[1-9]$/.test(e.key)) tab(Number(e.key) - 1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [prev, next, tab]);
}
