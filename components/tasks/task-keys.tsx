'use client';

import { useRouter } from 'next/navigation';
import { useCallKeys } from '@/components/calls/use-call-keys';
import { useCallback } from 'react';

/** `j`/`k` open the next or previous task of the page (the open task is in the URL). */
export function TaskKeys({ items, open }: { items: { task: number; href: string }[]; open: number | null }) {
  const router = useRouter();
  const at = items.findIndex((i) => i.task === open);
  const go = useCallback(
    (step: number) => {
      const next = items[at < 0 ? (step > 0 ? 0 : items.length - 1) : at + step];
      if (next) router.push(next.href, { scroll: false });
    },
    [items, at, router],
  );
  const next = useCallback(() => go(1), [go]);
  const prev = useCallback(() => go(-1), [go]);
  const tab = useCallback(() => undefined, []);
  useCallKeys({ prev, next, tab });
  return null;
}
