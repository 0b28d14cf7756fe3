// Addresses of the trajectory's pages: a tool call (by tool_call_id; `?invocation=` tells apart the same id in two
// invocations) and an invocation, under their rollout's page.
import { rolloutApiHref, rolloutHref } from '@/components/calls/call-href';

export const toolCallHref = (run: string, rollout: string, invocationId: string, toolCallId: string) =>
  `${rolloutHref(run, rollout)}/tool-calls/${encodeURIComponent(toolCallId)}?invocation=${encodeURIComponent(invocationId)}`;
export const invocationHref = (run: string, rollout: string, invocationId: string) => `${rolloutHref(run, rollout)}/invocations/${encodeURIComponent(invocationId)}`;
export const trajectoryApiHref = (run: string, rollout: string) => `${rolloutApiHref(run, rollout)}/trajectory`;
