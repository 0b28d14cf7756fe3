import { NotFoundState } from '@/components/ui/not-found-state';

export default function CallNotFound() {
  return (
    <NotFoundState title="Call not found">
      This rollout has no call with that id (a model_call_id, or i followed by a call index).
    </NotFoundState>
  );
}
