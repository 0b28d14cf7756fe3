import { NotFoundState } from '@/components/ui/not-found-state';

export default function CompareNotFound() {
  return (
    <NotFoundState title="Run not found" back="Pick runs to compare">
      At least one of the runs in this comparison is not one this server knows.
    </NotFoundState>
  );
}
