'use client';

import Link from 'next/link';
import { useMemo } from 'react';
import { normalizeConversation } from '@/lib/view/conversation';
import { requestDelta, type JsonChange } from '@/lib/view/delta';
import { hashFromPointer, parsePointer } from '@/lib/view/json-pointer';
import { MessageCard } from './message-card';
import { parseRecord, useFetched, type CallRecord } from './use-fetched';

export interface CompareTarget {
  href: string;
  apiHref: string;
  callIndex: number;
}

const short = (v: unknown) => {
  const s = v === undefined ? '' : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 160)}…` : s;
};

function ChangeRow({ c }: { c: JsonChange }) {
  return (
    <li className="grid grid-cols-[minmax(160px,auto)_70px_1fr] gap-3 border-b border-line/60 py-1 font-mono text-xs">
      <a href={hashFromPointer(c.pointer)} className="text-accent hover:underline">{c.pointer}</a>
      <span className={c.change === 'removed' ? 'text-bad' : c.change === 'added' ? 'text-good' : 'text-warn'}>{c.change}</span>
      <span className="break-all text-muted">{c.change === 'changed' ? `${short(c.before)} → ${short(c.after)}` : short(c.change === 'added' ? c.after : c.before)}</span>
    </li>
  );
}

/** What this call's request adds to the previous request of the same model server (lib/view/delta). */
export function DeltaView({ record, compare }: { record: CallRecord; compare: CompareTarget | null }) {
  const previous = useFetched(compare?.apiHref ?? null, parseRecord);
  const dialect = typeof record.dialect === 'string' ? record.dialect : null;
  const ready = !compare || previous.status === 'ready';
  const delta = useMemo(() => (ready ? requestDelta(dialect, previous.status === 'ready' ? previous.value.request : null, record.request) : null), [ready, dialect, previous, record]);
  const added = useMemo(() => {
    if (!delta || delta.kind !== 'messages') return [];
    const from = delta.commonPrefix;
    const indexOf = (pointer: string) => (pointer === delta.listPointer ? 0 : Number(parsePointer(pointer)[2] ?? -1));
    return normalizeConversation(dialect, record.request, null).messages.filter((m) => m.source === 'request' && m.pointer.startsWith(delta.listPointer!) && indexOf(m.pointer) >= from);
  }, [delta, dialect, record]);
  if (previous.status === 'loading') return <p className="text-sm text-muted">Loading the previous call…</p>;
  if (previous.status === 'error') return <p className="text-sm text-bad">The previous call could not be loaded: {previous.message}</p>;
  if (!delta) return null;
  return (
    <div className="space-y-4 text-sm">
      <p>
        {compare ? (
          <>
            Compared with <Link href={compare.href} className="text-accent hover:underline">call #{compare.callIndex}</Link>, the previous call of the same model server.{' '}
          </>
        ) : (
          'This is the first call of its model server in the rollout, so its whole request is new. '
        )}
        {delta.kind === 'messages'
          ? `Of its ${delta.currentLength} ${delta.listPointer?.endsWith('input') ? 'input items' : 'messages'}, the first ${delta.commonPrefix} repeat the previous request unchanged; ${delta.added.length} are new.`
          : 'The request has no message list, so the whole request is compared as JSON.'}
      </p>
      {delta.removed > 0 ? (
        <p role="note" className="rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-warn">
          The previous request had {delta.removed} more item{delta.removed === 1 ? '' : 's'} after the common part that this one does not resend: the agent rewrote or truncated its history (for example a compaction).
        </p>
      ) : null}
      {delta.kind === 'messages' ? (
        <section className="space-y-2">
          <h3 className="font-semibold">Added ({delta.added.length})</h3>
          {added.map((m, k) => <MessageCard key={`${m.pointer}-${k}`} m={m} />)}
        </section>
      ) : null}
      <section>
        <h3 className="mb-1 font-semibold">{delta.kind === 'messages' ? 'Other changes to the request' : 'Changes'} ({delta.changes.length}{delta.truncated ? '+' : ''})</h3>
        {delta.changes.length ? <ul>{delta.changes.map((c) => <ChangeRow key={c.pointer} c={c} />)}</ul> : <p className="text-muted">None: the rest of the request is identical.</p>}
      </section>
    </div>
  );
}
