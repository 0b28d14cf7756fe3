import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';

export default function NotFound() {
  return (
    <EmptyState title="Page not found">
      <p>Nothing lives at this address.</p>
      <p className="mt-3">
        <Link href="/" className="text-accent hover:underline">
          Back to the runs
        </Link>
      </p>
    </EmptyState>
  );
}
