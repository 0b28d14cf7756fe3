'use client';

import Link from 'next/link';
import { useMemo } from 'react';
import { callHref } from '@/components/calls/call-href';
import { Badge } from '@/components/ui/badge';
import { formatCount } from '@/lib/view/format';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { callRefIndex } from '@/lib/view/trajectory-refs';

/** A turn's question or answer as text: strings as they are, anything else as JSON (rendered as text, never markup). */
function textOf(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function Said({ label, value }: { label: string; value: unknown }) {
  const text = textOf(value);
  return (
    <p className="line-clamp-3 break-words whitespace-pre-wrap" title={text ? text.slice(0, 4000) : undefined}>
      <span className="font-medium text-muted">{label}: </span>
      {text ?? <span className="text-muted italic">none recorded</span>}
    </p>
  );
}

/** The trajectory's semantic turns, in order: question, answer, resolved, step count, and links to their calls. */
export function TurnStrip({ run, rollout, parts }: { run: string; rollout: string; parts: TrajectoryParts }) {
  const refs = useMemo(() => callRefIndex(parts.modelCalls), [parts]);
  if (!parts.turns.length) return null;
  return (
    <section aria-label="turns" className="space-y-1.5">
      <h3 className="text-xs font-medium text-muted">Turns ({formatCount(parts.turns.length)})</h3>
      <ol className="flex gap-2 overflow-x-auto pb-1">
        {parts.turns.map((t, k) => {
          const calls = t.model_calls.map((r) => refs.resolve(r));
          return (
            <li key={`${t.invocation_id}-${t.turn_no}-${k}`} aria-label={`turn ${t.turn_no} of ${t.invocation_id}`} className="w-72 shrink-0 space-y-1 rounded-md border border-line bg-bg p-2 text-xs">
              <p className="flex flex-wrap items-center gap-1.5">
                <span className="font-semibold">Turn {t.turn_no}</span>
                <span className="truncate font-mono text-muted">{t.invocation_id}</span>
                {t.resolved === null ? <Badge>resolved unknown</Badge> : <Badge tone={t.resolved ? 'good' : 'bad'}>{t.resolved ? 'resolved' : 'not resolved'}</Badge>}
                <span className="ml-auto text-muted">{formatCount(t.step_count)} step{t.step_count === 1 ? '' : 's'}</span>
              </p>
              <Said label="Q" value={t.question} />
              <Said label="A" value={t.answer} />
              {textOf(t.reasoning_content) ? <Said label="reasoning" value={t.reasoning_content} /> : null}
              <p className="flex flex-wrap gap-1">
                <span className="text-muted">calls:</span>
                {calls.length === 0 ? <span className="text-muted italic">none named</span> : null}
                {calls.map((i, n) => {
                  const id = i >= 0 ? parts.modelCalls[i].model_call_id : null;
                  return id ? (
                    <Link key={n} href={callHref(run, rollout, id)} prefetch={false} className="font-mono text-accent hover:underline">
                      {id}
                    </Link>
                  ) : (
                    <span key={n} className="text-muted" title="This ref names no one model call of the trajectory">
                      (unresolved)
                    </span>
                  );
                })}
              </p>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
