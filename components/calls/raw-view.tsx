'use client';

import { Download } from 'lucide-react';
import { useState } from 'react';
import { buttonClass } from '@/components/ui/button';
import { formatBytes } from '@/lib/view/format';
import { indentKeepingNumbers } from '@/lib/view/json-source';
import { CopyButton } from './copy-button';
import { keepText, useFetched } from './use-fetched';

const SHOWN = 256 * 1024;
const NO_LINE = 'This call has no stored capture line: it comes from the rollout line’s ng_model_call_capture attachment (its payloads from ng_trajectory.model_calls).';

/** The stored capture line, byte for byte as text, with a download of the raw route. */
export function RawView({ rawHref }: { rawHref: string | null }) {
  const raw = useFetched(rawHref, keepText);
  const [all, setAll] = useState(false);
  const [pretty, setPretty] = useState(false);
  if (rawHref === null || (raw.status === 'error' && raw.notFound)) return <p className="text-sm text-muted">{NO_LINE}</p>;
  if (raw.status === 'loading' || raw.status === 'idle') return <p className="text-sm text-muted">Loading the stored line…</p>;
  if (raw.status === 'error') {
    return <p className="text-sm text-muted">The stored line could not be loaded: {raw.message}</p>;
  }
  // Indented with every number as stored where the browser can (JSON.rawJSON); a damaged line stays as stored.
  const indented = pretty ? indentKeepingNumbers(raw.value) : null;
  const text = indented?.text ?? raw.value;
  const folded = !all && text.length > SHOWN;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <span className="text-muted">{formatBytes(raw.bytes)} as stored in the capture file</span>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" checked={pretty} onChange={(e) => setPretty(e.target.checked)} /> indent{indented && !indented.exact ? ' (numbers as JavaScript reads them: this browser cannot keep them as stored)' : ''}
        </label>
        <CopyButton label="Copy the line" text={() => raw.value} showLabel />
        <a href={`${rawHref}?download`} className={buttonClass('outline', 'ml-auto h-7')} download>
          <Download size={14} /> Download
        </a>
      </div>
      <pre className="max-h-[70vh] overflow-auto rounded-md border border-line bg-panel p-3 font-mono text-xs break-all whitespace-pre-wrap">{folded ? `${text.slice(0, SHOWN)}…` : text}</pre>
      {folded ? (
        <button type="button" onClick={() => setAll(true)} className="text-sm text-accent hover:underline">
          show all {formatBytes(text.length)}
        </button>
      ) : null}
    </div>
  );
}
