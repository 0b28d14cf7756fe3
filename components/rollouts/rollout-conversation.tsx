'use client';

// The rollout line as a conversation (lib/view/line-conversation.ts): the task's prompt and the agent's final
// output items. Open at once when the rollout has no captured calls (the line is then all there is to read), on
// request otherwise (the calls' own conversations are a click away).
import { useMemo, useState } from 'react';
import { ConversationMessages } from '@/components/calls/conversation-view';
import { buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { lineConversation } from '@/lib/view/line-conversation';
import { rolloutLineUrl, useRolloutLine } from './use-rollout-line';

export function RolloutConversation({ run, rollout, openAtOnce }: { run: string; rollout: string; openAtOnce: boolean }) {
  const [opened, setOpened] = useState(false);
  const open = opened || openAtOnce;
  const line = useRolloutLine(open ? rolloutLineUrl(run, rollout) : null);
  const c = useMemo(() => (line.status === 'ready' && line.value.text === null ? lineConversation(line.value.value) : null), [line]);
  const actions = open ? null : (
    <button type="button" className={buttonClass('outline', undefined, 'sm')} onClick={() => setOpened(true)}>
      Show
    </button>
  );
  return (
    <Card title="Conversation" actions={actions}>
      {!open ? (
        <p className="text-sm text-muted">The rollout line&apos;s conversation: the task&apos;s prompt (responses_create_params.input) and the agent&apos;s final output.</p>
      ) : line.status === 'error' ? (
        <p className="text-sm text-bad">The rollout line could not be loaded: {line.message}</p>
      ) : line.status !== 'ready' ? (
        <p className="text-sm text-muted">Loading the rollout line…</p>
      ) : c ? (
        <ConversationMessages c={c} empty="The line's request and response hold no messages." responseLabel="the agent's final response (response.output)" />
      ) : (
        <p className="text-sm text-muted">The rollout line has no responses_create_params or response object to read a conversation from.</p>
      )}
    </Card>
  );
}
