// A rollout line read as a conversation: `responses_create_params` is the Responses request the agent started from
// (its `input`: the task's messages) and `response` the agent's final Responses object (its `output`: messages,
// function calls and their outputs, reasoning). For a run collected without capture this is the whole trajectory
// there is. The messages point into the line (`/line/...`), so each opens its node in the rollout line's tree.
import { normalizeConversation, type Conversation } from './conversation';
import { isObj } from './json-object';

const LINE = { request: '/line/responses_create_params', response: '/line/response' };

/** The line's conversation, or null when the line has neither a request nor a response object. */
export function lineConversation(line: unknown): Conversation | null {
  if (!isObj(line)) return null;
  const request = line.responses_create_params;
  const response = line.response;
  if (!isObj(request) && !isObj(response)) return null;
  const c = normalizeConversation('responses', request ?? null, response ?? null, LINE);
  const notes = c.notes.map((n) =>
    n.startsWith('The request is not')
      ? 'The line has no responses_create_params object: the task prompt is not on the line.'
      : n.startsWith('No response object')
        ? 'The line has no response object: the agent left no final response (a failed or timed-out rollout).'
        : n,
  );
  return { ...c, notes };
}
