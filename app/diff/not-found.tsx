import { DiffPicker } from '@/components/diff/diff-picker';
import { NotFoundState } from '@/components/ui/not-found-state';

export default function DiffNotFound() {
  return (
    <div className="space-y-4">
      <NotFoundState title="Rollout not found">
        A diff names two rollouts as run/rollout; at least one of these is not a rollout this server knows.
      </NotFoundState>
      <DiffPicker />
    </div>
  );
}
