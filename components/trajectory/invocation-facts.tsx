import Link from 'next/link';
import type { ReactNode } from 'react';
import { callHref } from '@/components/calls/call-href';
import { Badge } from '@/components/ui/badge';
import { formatCount, formatMs } from '@/lib/view/format';
import { callName } from '@/lib/view/trajectory-describe';
import type { InvocationDetail } from '@/lib/view/trajectory-invocation';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { invocationHref, toolCallHref } from './trajectory-href';
import { Fact } from './fact';

const TONE = { completed: 'good', failed: 'bad', timeout: 'bad', incomplete: 'warn', cancelled: 'warn', unknown: 'neutral' } as const;
const SHOWN = 100;

/** A long list shows its first entries and folds the rest behind a toggle: nothing is cut. */
function Folded<T>({ items, render }: { items: T[]; render: (item: T) => ReactNode }) {
  return (
    <>
      {items.slice(0, SHOWN).map(render)}
      {items.length > SHOWN ? (
        <details className="basis-full">
          <summary className="cursor-pointer text-xs text-accent">{formatCount(items.length - SHOWN)} more</summary>
          <div className="mt-1 flex flex-wrap gap-x-3 gap-y-1">{items.slice(SHOWN).map(render)}</div>
        </details>
      ) : null}
    </>
  );
}

/** The invocation's status, duration and error, where it sits in the tree, and links to its calls and tool calls. */
export function InvocationFacts({ run, rollout, parts, d }: { run: string; rollout: string; parts: TrajectoryParts; d: InvocationDetail }) {
  const inv = parts.invocations[d.index];
  const link = (id: string) => (
    <Link key={id} href={invocationHref(run, rollout, id)} prefetch={false} className="mr-2 font-mono text-accent hover:underline">
      {id}
    </Link>
  );
  const spawner = d.spawnedBy >= 0 ? parts.toolCalls[d.spawnedBy] : null;
  return (
    <div className="space-y-4">
      <dl aria-label="invocation" className="grid grid-cols-2 gap-x-8 gap-y-3 rounded-lg border border-line bg-panel px-4 py-3 text-sm sm:grid-cols-3 lg:grid-cols-6">
        <Fact label="Status">
          <Badge tone={TONE[inv.status]}>{inv.status}</Badge>
        </Fact>
        <Fact label="Duration">{inv.duration_ms === null ? 'not recorded' : formatMs(inv.duration_ms)}</Fact>
        <Fact label="Error type">{inv.error_type ?? '—'}</Fact>
        <Fact label="Parent">{d.parent >= 0 ? link(parts.invocations[d.parent].invocation_id) : d.missingParent ? <span className="text-warn">{d.missingParent} (not in the record)</span> : 'none: a root'}</Fact>
        <Fact label="Spawned by">
          {spawner ? (
            <Link href={toolCallHref(run, rollout, spawner.invocation_id, spawner.tool_call_id)} prefetch={false} className="font-mono text-accent hover:underline">
              {spawner.tool_name ?? 'tool call'} {spawner.tool_call_id}
            </Link>
          ) : (
            (inv.spawned_by_tool_call_id ?? '—')
          )}
        </Fact>
        <Fact label="Subagents">{d.children.length ? d.children.map((k) => link(parts.invocations[k].invocation_id)) : '—'}</Fact>
      </dl>
      <section aria-label="model calls" className="space-y-1 text-sm">
        <h2 className="font-semibold">Model calls ({formatCount(d.modelCalls.length)})</h2>
        <div className="flex flex-wrap gap-x-3 gap-y-1 text-xs">
          {d.modelCalls.length === 0 ? <span className="text-muted">No model call of the trajectory is owned by this invocation.</span> : null}
          <Folded
            items={d.modelCalls}
            render={(i) => {
              const id = parts.modelCalls[i].model_call_id;
              return id ? (
                <Link key={i} href={callHref(run, rollout, id)} prefetch={false} className="font-mono text-accent hover:underline">
                  {id}
                </Link>
              ) : (
                <span key={i} className="font-mono">{callName(parts, i)}</span>
              );
            }}
          />
        </div>
      </section>
      <section aria-label="tool calls" className="space-y-1 text-sm">
        <h2 className="font-semibold">Tool calls ({formatCount(d.toolCalls.length)})</h2>
        <div className="flex flex-wrap gap-x-3 gap-y-1 text-xs">
          {d.toolCalls.length === 0 ? <span className="text-muted">The trajectory records no tool call of this invocation.</span> : null}
          <Folded
            items={d.toolCalls}
            render={(j) => {
              const t = parts.toolCalls[j];
              return (
                <span key={j} className="inline-flex items-center gap-1">
                  <Link href={toolCallHref(run, rollout, t.invocation_id, t.tool_call_id)} prefetch={false} className="font-mono text-accent hover:underline">
                    {t.tool_name ?? t.tool_call_id}
                  </Link>
                  {t.status !== 'completed' ? <Badge tone={TONE[t.status]}>{t.status}</Badge> : null}
                </span>
              );
            }}
          />
        </div>
      </section>
      {d.compactions.length ? <p className="text-sm text-muted">{formatCount(d.compactions.length)} context compaction{d.compactions.length === 1 ? '' : 's'} in this invocation (on the rollout&apos;s timeline).</p> : null}
    </div>
  );
}
