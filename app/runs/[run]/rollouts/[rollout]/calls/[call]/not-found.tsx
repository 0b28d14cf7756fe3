import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';

export default function CallNotFound() {
  return (
    <EmptyState title="Call not found">
      <p>This rollout has no call with that id (a model_call_id, or i followed by a call index).</p>
      <p className="mt-3">
        <Link href="/" className="text-accent hover:underline">
          Back to the runs
        </Link>
      </p>
    </EmptyState>
  );
}
