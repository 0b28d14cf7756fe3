'use client';

import { useMemo } from 'react';
import { ConversationMessages } from '@/components/calls/conversation-view';
import { useHashPointer } from '@/components/calls/use-hash-pointer';
import { JsonTree } from '@/components/payload/json-tree';
import { Card } from '@/components/ui/card';
import { useHydrated } from '@/components/ui/use-hydrated';
import { invocationConversation } from '@/lib/view/trajectory-invocation';

/**
 * The invocation's model-visible conversation with the call page's conversation view, and the invocation record as
 * a JSON tree: each message links to its item there (`#/invocation/conversation/<i>`).
 */
export function InvocationConversation({ record }: { record: Record<string, unknown> }) {
  const items = useMemo(() => (Array.isArray(record.conversation) ? record.conversation : []), [record]);
  const c = useMemo(() => invocationConversation(items), [items]);
  const target = useHashPointer();
  // the tree is virtualized: it measures the page, so it renders in the browser only (never in the server's HTML)
  const hydrated = useHydrated();
  return (
    <>
      <Card title={`Conversation (${items.length} item${items.length === 1 ? '' : 's'})`}>
        <ConversationMessages c={c} empty="The invocation's conversation holds no items (the producer recorded none)." responseLabel="" />
      </Card>
      <Card title="Invocation record">
        {hydrated ? (
          <JsonTree value={record} basePointer="/invocation" target={target !== null && target.startsWith('/invocation') ? target : null} label="invocation record" />
        ) : (
          <p className="text-sm text-muted">Loading the tree…</p>
        )}
      </Card>
    </>
  );
}
