import Link from 'next/link';
import { callHref } from '@/components/calls/call-href';
import { callName, describeItem } from '@/lib/view/trajectory-describe';
import { ItemKind, type TrajectoryLayout } from '@/lib/view/trajectory-layout';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { invocationHref } from './trajectory-href';
import { FactList } from './trajectory-tooltip';

interface Props {
  run: string;
  rollout: string;
  parts: TrajectoryParts;
  layout: TrajectoryLayout;
  item: number;
  href: string | null;
}

function CallLink({ run, rollout, parts, call, label }: { run: string; rollout: string; parts: TrajectoryParts; call: number; label: string }) {
  if (call < 0) return null;
  const id = parts.modelCalls[call].model_call_id;
  return (
    <span>
      {label}{' '}
      {id ? (
        <Link href={callHref(run, rollout, id)} prefetch={false} className="font-mono text-accent hover:underline">
          {id}
        </Link>
      ) : (
        <span className="font-mono">{callName(parts, call)}</span>
      )}
    </span>
  );
}

/** The selected item's details, with links to its page, its invocation and the calls it is linked to. */
export function TrajectorySelection({ run, rollout, parts, layout: l, item, href }: Props) {
  const d = describeItem(parts, l, item);
  const g = l.groups[l.group[item]];
  const j = l.src[item];
  const links = { run, rollout, parts };
  return (
    <section aria-label="selected item" className="space-y-1.5 rounded-md border border-accent/40 bg-accent/5 px-3 py-2 text-xs">
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-semibold break-all">
          {d.kind}: {d.title}
        </span>
        {href ? (
          <Link href={href} prefetch={false} className="text-accent hover:underline">
            open the {d.kind}
          </Link>
        ) : null}
        {g?.id && g.kind === 'invocation' ? (
          <span>
            in{' '}
            <Link href={invocationHref(run, rollout, g.id)} prefetch={false} className="font-mono text-accent hover:underline">
              {g.id}
            </Link>
          </span>
        ) : (
          <span className="text-muted">in {d.group}</span>
        )}
        {l.kind[item] === ItemKind.toolCall ? (
          <>
            <CallLink {...links} call={l.requesting[j]} label="requested by" />
            <CallLink {...links} call={l.nextCall[j]} label="next call" />
          </>
        ) : null}
        {l.kind[item] === ItemKind.compaction ? (
          <>
            <CallLink {...links} call={l.compactionCalls[j].before} label="before:" />
            <CallLink {...links} call={l.compactionCalls[j].after} label="after:" />
          </>
        ) : null}
      </p>
      <p className="text-muted">{d.when}</p>
      <FactList facts={d.facts} className="grid-cols-[88px_1fr] sm:grid-cols-[88px_1fr_88px_1fr]" />
    </section>
  );
}
