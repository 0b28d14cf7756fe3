'use client';

import { ChevronDown, ChevronUp, Search } from 'lucide-react';

/** The search box of a payload tree: the query, which match is shown, and stepping through matches. */
export function TreeSearch({ query, setQuery, at, count, more, step }: { query: string; setQuery: (q: string) => void; at: number; count: number; more: boolean; step: (d: 1 | -1) => void }) {
  return (
    <div className="flex items-center gap-1.5">
      <label className="flex items-center gap-1.5 rounded-md border border-line bg-bg px-2 focus-within:border-accent">
        <Search size={13} className="text-muted" />
        <input
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              step(e.shiftKey ? -1 : 1);
            }
          }}
          placeholder="Search keys and values"
          aria-label="Search the payload"
          className="h-7 w-56 bg-transparent text-sm outline-none"
        />
      </label>
      {query ? (
        <span className="text-xs text-muted tabular-nums" aria-live="polite">
          {count ? `${at + 1} / ${count}${more ? '+' : ''}` : 'no match'}
        </span>
      ) : null}
      <button type="button" aria-label="Previous match" disabled={!count} onClick={() => step(-1)} className="rounded p-1 text-muted hover:bg-panel disabled:opacity-40">
        <ChevronUp size={14} />
      </button>
      <button type="button" aria-label="Next match" disabled={!count} onClick={() => step(1)} className="rounded p-1 text-muted hover:bg-panel disabled:opacity-40">
        <ChevronDown size={14} />
      </button>
    </div>
  );
}
