'use client';

import { useRouter } from 'next/navigation';
import { parseAsStringLiteral, useQueryState } from 'nuqs';
import { useCallback, useEffect } from 'react';
import { PayloadView } from '@/components/payload/payload-view';
import { formatBytes } from '@/lib/view/format';
import { CALL_TABS, CallTabs, type CallTab } from './call-tabs';
import { ConversationView } from './conversation-view';
import { DeltaView, type CompareTarget } from './delta-view';
import { RawView } from './raw-view';
import { useCallKeys } from './use-call-keys';
import { parseRecord, useFetched } from './use-fetched';
import { clearHash, useHashPointer } from './use-hash-pointer';

export interface CallViewProps {
  apiHref: string;
  /** Whether the call has a stored capture line (calls from a rollout line's attachment have none). */
  stored: boolean;
  prevHref: string | null;
  nextHref: string | null;
  compare: CompareTarget | null;
}

/** The call's payloads, loaded by the browser from the API, in five URL-addressable tabs. */
export function CallView({ apiHref, stored, prevHref, nextHref, compare }: CallViewProps) {
  const router = useRouter();
  const [tab, setTab] = useQueryState('tab', parseAsStringLiteral(CALL_TABS).withDefault('conversation'));
  const pointer = useHashPointer();
  const record = useFetched(apiHref, parseRecord);
  const shown = record.status === 'ready';
  // The neighbouring calls (j/k) are prefetched once this call's payloads are shown, when the browser is idle:
  // prefetched by their links at hydration, their server renders went first and the payload request waited
  // behind them; prefetched in the effects of the render that shows the payload, the router's work ran before
  // that render's first paint.
  useEffect(() => {
    if (!shown) return;
    const prefetch = () => {
      for (const href of [prevHref, nextHref]) if (href) router.prefetch(href);
    };
    if (typeof requestIdleCallback !== 'function') {
      const t = setTimeout(prefetch, 200);
      return () => clearTimeout(t);
    }
    const id = requestIdleCallback(prefetch, { timeout: 2000 });
    return () => cancelIdleCallback(id);
  }, [shown, router, prevHref, nextHref]);
  useEffect(() => {
    if (pointer) void setTab(pointer === '/request' || pointer.startsWith('/request/') || pointer.startsWith('/request_raw') ? 'request' : 'response');
  }, [pointer, setTab]);
  const select = useCallback(
    (t: CallTab) => {
      clearHash();
      void setTab(t);
    },
    [setTab],
  );
  const go = useCallback((href: string | null) => href && router.push(tab === 'conversation' ? href : `${href}?tab=${tab}`), [router, tab]);
  useCallKeys({ prev: useCallback(() => go(prevHref), [go, prevHref]), next: useCallback(() => go(nextHref), [go, nextHref]), tab: useCallback((k: number) => CALL_TABS[k] && select(CALL_TABS[k]), [select]) });

  return (
    <section className="space-y-3">
      <CallTabs tab={tab} onSelect={select} />
      <div id="call-tabpanel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'raw' ? (
          <RawView rawHref={stored ? `${apiHref}/raw` : null} />
        ) : record.status === 'ready' ? (
          <>
            <p className="mb-3 text-xs text-muted">
              {formatBytes(record.bytes)} loaded in {Math.round(record.ms)} ms · keys: j/→ next call, k/← previous, 1–5 tabs
            </p>
            {tab === 'conversation' ? <ConversationView record={record.value} /> : null}
            {tab === 'request' || tab === 'response' ? <PayloadView key={tab} record={record.value} part={tab} target={pointer} /> : null}
            {tab === 'delta' ? <DeltaView record={record.value} compare={compare} /> : null}
          </>
        ) : record.status === 'error' ? (
          <p className="text-sm text-bad">The call could not be loaded: {record.message}</p>
        ) : (
          <p className="text-sm text-muted">Loading the payloads…</p>
        )}
      </div>
    </section>
  );
}
