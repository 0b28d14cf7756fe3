import { NotFoundState } from '@/components/ui/not-found-state';

export default function ToolCallNotFound() {
  return (
    <NotFoundState title="Tool call not found">
      This rollout&apos;s trajectory has no tool call with that tool_call_id (in the invocation the link names, when it names one).
    </NotFoundState>
  );
}
