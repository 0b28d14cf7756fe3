'use client';

import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';

export default function RolloutError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <EmptyState title="This rollout could not be shown">
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
