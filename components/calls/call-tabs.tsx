'use client';

import { cn } from '@/components/ui/cn';

export const CALL_TABS = ['conversation', 'request', 'response', 'raw', 'delta'] as const;
export type CallTab = (typeof CALL_TABS)[number];

const LABELS: Record<CallTab, string> = { conversation: 'Conversation', request: 'Request', response: 'Response', raw: 'Raw line', delta: 'Delta' };

/** The tab bar of the call page; the active tab lives in the URL (?tab=), keys 1–5 switch. */
export function CallTabs({ tab, onSelect }: { tab: CallTab; onSelect: (t: CallTab) => void }) {
  return (
    <div role="tablist" aria-label="call views" className="flex gap-1 border-b border-line">
      {CALL_TABS.map((t, k) => (
        <button
          key={t}
          type="button"
          role="tab"
          id={`tab-${t}`}
          aria-selected={tab === t}
          aria-controls="call-tabpanel"
          onClick={() => onSelect(t)}
          className={cn('-mb-px border-b-2 px-3 py-1.5 text-sm', tab === t ? 'border-accent font-medium text-fg' : 'border-transparent text-muted hover:text-fg')}
        >
          {LABELS[t]} <kbd className="ml-1 hidden font-mono text-[10px] text-muted sm:inline">{k + 1}</kbd>
        </button>
      ))}
    </div>
  );
}
