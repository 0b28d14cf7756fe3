import { CopyButton } from './copy-button';
import { linkTo } from './copy-text';
import { cn } from '@/components/ui/cn';
import type { ConversationMessage } from '@/lib/view/conversation';
import { hashFromPointer } from '@/lib/view/json-pointer';
import { PartView } from './part-view';

const ROLE_TONE: Record<string, string> = {
  system: 'border-l-muted',
  developer: 'border-l-muted',
  user: 'border-l-accent',
  assistant: 'border-l-good',
  tool: 'border-l-warn',
};

/** A message of the conversation with its role, where it sits in the payload, and its parts. */
export function MessageCard({ m }: { m: ConversationMessage }) {
  return (
    <article className={cn('rounded-md border border-l-4 border-line bg-bg px-4 py-3', ROLE_TONE[m.role] ?? 'border-l-line', m.source === 'response' && 'bg-good/5')}>
      <header className="mb-2 flex items-center gap-2 text-xs">
        <span className="font-semibold tracking-wide uppercase">{m.role}</span>
        {m.source === 'response' ? <span className="rounded bg-good/15 px-1.5 text-good">response</span> : null}
        <a href={hashFromPointer(m.pointer)} className="ml-auto font-mono text-muted hover:text-accent" title="Open this node in the payload tree">
          {m.pointer}
        </a>
        <CopyButton kind="link" label="Copy link to this message" text={() => linkTo(hashFromPointer(m.pointer))} />
      </header>
      <div className="space-y-2">
        {m.parts.length ? m.parts.map((p, k) => <PartView key={`${p.pointer}-${k}`} part={p} />) : <p className="text-xs text-muted italic">(empty)</p>}
      </div>
    </article>
  );
}
