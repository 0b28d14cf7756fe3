'use client';

import { useState } from 'react';
import { formatBytes } from '@/lib/view/format';
import { classifyString } from '@/lib/view/json-tree';

const SHOWN = 2000;
const LIMIT = 6000;

/** Payload text as text (never markup): long text and base64 are folded behind a button. */
export function LongText({ text, className }: { text: string; className?: string }) {
  const [all, setAll] = useState(false);
  const clip = text.length > LIMIT || (text.length > 256 && classifyString(text)?.reason === 'base64') ? classifyString(text, LIMIT) : null;
  if (clip && clip.reason === 'base64' && !all) {
    return (
      <p className="text-xs text-muted">
        [base64{clip.mime ? ` ${clip.mime}` : ''} · {formatBytes(clip.bytes)} · not displayed]{' '}
        <button type="button" onClick={() => setAll(true)} className="text-accent hover:underline">show text</button>
      </p>
    );
  }
  const folded = clip !== null && !all;
  return (
    <div className={className}>
      <p className="text-sm break-words whitespace-pre-wrap">{folded ? `${text.slice(0, SHOWN)}…` : text}</p>
      {clip ? (
        <button type="button" onClick={() => setAll(!all)} className="mt-1 text-xs text-accent hover:underline">
          {all ? 'show less' : `show all (${formatBytes(clip.bytes)})`}
        </button>
      ) : null}
    </div>
  );
}
