import { NotFoundState } from '@/components/ui/not-found-state';

export default function NotFound() {
  return (
    <NotFoundState title="Page not found">
      Nothing lives at this address.
    </NotFoundState>
  );
}
