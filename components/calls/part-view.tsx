import { ArrowLeft, ArrowRight, Brain } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { JsonLite } from '@/components/payload/json-lite';
import { LongText } from '@/components/payload/long-text';
import type { Part } from '@/lib/view/conversation';
import { formatBytes, formatCount } from '@/lib/view/format';

function Box({ children, tone = 'border-line' }: { children: React.ReactNode; tone?: string }) {
  return <div className={`space-y-1 rounded-md border ${tone} bg-panel/60 px-3 py-2`}>{children}</div>;
}

/** One part of a message: text, reasoning, a tool call with its arguments, a tool result, media, or JSON. */
export function PartView({ part }: { part: Part }) {
  switch (part.kind) {
    case 'text':
      return (
        <div>
          {part.refusal ? <Badge tone="warn">refusal</Badge> : null}
          <LongText text={part.text} />
        </div>
      );
    case 'reasoning':
      return part.encrypted || !part.text ? (
        <p className="flex items-center gap-1.5 text-xs text-muted italic">
          <Brain size={13} /> {part.encrypted ? 'encrypted or redacted reasoning (not readable)' : 'reasoning without readable text'}
        </p>
      ) : (
        <details open={part.text.length < 1500} className="rounded-md border-l-2 border-muted/40 pl-3">
          <summary className="flex cursor-pointer items-center gap-1.5 text-xs text-muted">
            <Brain size={13} /> reasoning ({formatCount(part.text.length)} chars)
          </summary>
          <LongText text={part.text} className="mt-1 text-muted italic" />
        </details>
      );
    case 'tool_call':
      return (
        <Box tone="border-accent/40">
          <p className="flex items-center gap-1.5 text-xs">
            <ArrowRight size={13} className="text-accent" /> tool call <code className="font-mono font-semibold">{part.name ?? '(no name)'}</code>
            {part.id ? <code className="font-mono text-muted">{part.id}</code> : null}
          </p>
          {typeof part.arguments === 'string' ? <LongText text={part.arguments} className="font-mono" /> : <JsonLite value={part.arguments} />}
        </Box>
      );
    case 'tool_result':
      return (
        <Box tone={part.isError ? 'border-bad/50' : 'border-good/40'}>
          <p className="flex items-center gap-1.5 text-xs">
            <ArrowLeft size={13} className="text-good" /> result of <code className="font-mono font-semibold">{part.name ?? 'a tool call'}</code>
            {part.id ? <code className="font-mono text-muted">{part.id}</code> : null}
            {part.isError ? <Badge tone="bad">error</Badge> : null}
          </p>
          <LongText text={part.text} className="font-mono" />
        </Box>
      );
    case 'media':
      return (
        <p className="text-xs text-muted">
          [{part.media}
          {part.size !== null ? ` · ${formatBytes(part.size)}` : ''} · not displayed]
        </p>
      );
    default:
      return (
        <Box>
          <p className="text-xs text-muted">
            <code className="font-mono">{part.type}</code> item
          </p>
          <JsonLite value={part.value} />
        </Box>
      );
  }
}
