import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';

export default function CompareNotFound() {
  return (
    <EmptyState title="Run not found">
      <p>At least one of the runs in this comparison is not one this server knows.</p>
      <p className="mt-3">
        <Link href="/" className="text-accent hover:underline">
          Pick runs to compare
        </Link>
      </p>
    </EmptyState>
  );
}
