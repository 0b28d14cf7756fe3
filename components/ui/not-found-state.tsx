import Link from 'next/link';
import type { ReactNode } from 'react';
import { EmptyState } from '@/components/ui/empty-state';

/** What a route's not-found.tsx shows: what is missing, why, and a way back to the runs. */
export function NotFoundState({ title, children, back = 'Back to the runs' }: { title: string; children: ReactNode; back?: string }) {
  return (
    <EmptyState title={title}>
      <p>{children}</p>
      <p className="mt-3">
        <Link href="/" className="text-accent hover:underline">
          {back}
        </Link>
      </p>
    </EmptyState>
  );
}
