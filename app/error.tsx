'use client';

import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';

export default function AppError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <EmptyState title="Something went wrong">
      <p>{error.digest ? `The server failed to render this page (reference ${error.digest}).` : error.message}</p>
      <div className="mt-4 flex justify-center gap-3">
        <Button onClick={reset}>Try again</Button>
        <Link href="/" className="self-center text-accent hover:underline">
          Back to the runs
        </Link>
      </div>
    </EmptyState>
  );
}
