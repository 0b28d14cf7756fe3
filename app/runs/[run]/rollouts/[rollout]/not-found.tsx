import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';

export default function RolloutNotFound() {
  return (
    <EmptyState title="Rollout not found">
      <p>This run has no rollout (or call) with that id.</p>
      <p className="mt-3">
        <Link href="/" className="text-accent hover:underline">
          Back to the runs
        </Link>
      </p>
    </EmptyState>
  );
}
