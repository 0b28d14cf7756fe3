'use client';

import { useMemo, useState } from 'react';
import { normalizeConversation, type Conversation } from '@/lib/view/conversation';
import { formatCount } from '@/lib/view/format';
import { MessageCard } from './message-card';
import type { CallRecord } from './use-fetched';

// A long agent history renders its start and its end; the middle opens on request, a batch at a time.
const HEAD = 10;
const TAIL = 40;
const BATCH = 200;

const ERROR_NOTES: Record<string, string> = {
  stream_truncated: 'The stream ended without its terminal event (stream_truncated): the response shown is the partial reassembly; the raw stream is on the Response tab.',
  incomplete: 'The stream ended with an incomplete terminal event: the model stopped before finishing (see the finish reason).',
  capture_parse_error: 'The response body could not be parsed as a JSON object (capture_parse_error); its text is on the Response tab.',
};

function errorNote(record: CallRecord): string | null {
  const category = typeof record.error_category === 'string' ? record.error_category : null;
  if (!category) return null;
  return ERROR_NOTES[category] ?? `This call failed: ${category}${typeof record.status_code === 'number' ? ` (HTTP ${record.status_code})` : ''}.`;
}

/** The call's request and response as one conversation, in any of the three dialects. */
export function ConversationView({ record }: { record: CallRecord }) {
  const c = useMemo(() => {
    const conversation = normalizeConversation(typeof record.dialect === 'string' ? record.dialect : null, record.request, record.response);
    const note = errorNote(record);
    return note ? { ...conversation, notes: [note, ...conversation.notes] } : conversation;
  }, [record]);
  return <ConversationMessages c={c} empty="No messages could be read from this call's payloads." />;
}

/** A conversation's notes and messages: a long one shows its start and its end, the middle on request. */
export function ConversationMessages({ c, empty, responseLabel = "the model's response" }: { c: Conversation; empty: string; responseLabel?: string }) {
  const [head, setHead] = useState(HEAD);
  const n = c.messages.length;
  const hidden = Math.max(0, n - TAIL - head);
  const shown = hidden > 0 ? [...c.messages.slice(0, head).map((m, k) => [m, k] as const), ...c.messages.slice(n - TAIL).map((m, k) => [m, n - TAIL + k] as const)] : c.messages.map((m, k) => [m, k] as const);
  const firstResponse = c.messages.findIndex((m) => m.source === 'response');
  return (
    <div className="space-y-3">
      {c.notes.map((note) => (
        <p key={note} role="note" className="rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm text-warn">
          {note}
        </p>
      ))}
      <p className="text-xs text-muted">
        {n} messages{c.tools.length ? <> · tools offered ({c.tools.length}): <span className="font-mono text-fg">{c.tools.join(', ')}</span></> : null}
      </p>
      {shown.map(([m, k]) => (
        <div key={`${m.pointer}-${k}`}>
          {hidden > 0 && k === n - TAIL ? (
            <button type="button" onClick={() => setHead(head + BATCH)} className="mb-3 w-full rounded-md border border-dashed border-line py-2 text-sm text-accent hover:bg-panel">
              {formatCount(hidden)} messages hidden · show {Math.min(BATCH, hidden)} more
            </button>
          ) : null}
          {k === firstResponse ? <p className="my-3 border-t border-dashed border-line pt-2 text-xs font-medium text-muted">{responseLabel}</p> : null}
          <MessageCard m={m} />
        </div>
      ))}
      {!n ? <p className="text-sm text-muted">{empty}</p> : null}
    </div>
  );
}
