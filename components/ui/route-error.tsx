'use client';

import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';

export interface RouteErrorProps {
  error: Error & { digest?: string };
  reset: () => void;
}

/** What a route's error.tsx shows: what could not be shown, the server's reference or the message, a retry. */
export function RouteError({ title, error, reset }: RouteErrorProps & { title: string }) {
  return (
    <EmptyState title={title}>
      <p>{error.digest ? `The server failed to render it (reference ${error.digest}).` : error.message}</p>
      <div className="mt-4 flex justify-center gap-3">
        <Button onClick={reset}>Try again</Button>
        <Link href="/" className="self-center text-accent hover:underline">
          Back to the runs
        </Link>
      </div>
    </EmptyState>
  );
}
