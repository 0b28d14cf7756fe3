import { NotFoundState } from '@/components/ui/not-found-state';

export default function RolloutNotFound() {
  return (
    <NotFoundState title="Rollout not found">
      This run has no rollout (or call) with that id.
    </NotFoundState>
  );
}
