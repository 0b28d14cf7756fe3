import { NotFoundState } from '@/components/ui/not-found-state';

export default function InvocationNotFound() {
  return <NotFoundState title="Invocation not found">This rollout&apos;s trajectory has no agent invocation with that invocation_id.</NotFoundState>;
}
