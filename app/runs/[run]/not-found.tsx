import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';

export default function RunNotFound() {
  return (
    <EmptyState title="Not found">
      <p>This run (or the rollout or call inside it) is not one this server knows.</p>
      <p className="mt-3">
        <Link href="/" className="text-accent hover:underline">
          Back to the runs
        </Link>
      </p>
    </EmptyState>
  );
}
