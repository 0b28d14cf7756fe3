import { NotFoundState } from '@/components/ui/not-found-state';

export default function RunNotFound() {
  return (
    <NotFoundState title="Not found">
      This run (or the rollout or call inside it) is not one this server knows.
    </NotFoundState>
  );
}
