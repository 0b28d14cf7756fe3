import Link from 'next/link';
import { Badge } from '@/components/ui/badge';
import { formatCount } from '@/lib/view/format';
import { groupLabel } from '@/lib/view/trajectory-describe';
import { ItemKind, type TrajectoryLayout } from '@/lib/view/trajectory-layout';
import type { TrajectoryParts } from '@/lib/view/trajectory-read';
import { invocationHref } from './trajectory-href';

const STATUS_TONE = { completed: 'good', failed: 'bad', incomplete: 'warn', unknown: 'neutral' } as const;

/** Per group: its model calls, tool calls and failed tool calls (every item of the group, drawn or not). */
function groupCounts(parts: TrajectoryParts, l: TrajectoryLayout) {
  const counts = l.groups.map(() => ({ calls: 0, tools: 0, failed: 0 }));
  for (let i = 0; i < l.kind.length; i++) {
    const c = counts[l.group[i]];
    if (!c) continue;
    if (l.kind[i] === ItemKind.modelCall) c.calls++;
    if (l.kind[i] === ItemKind.toolCall) {
      c.tools++;
      if (parts.toolCalls[l.src[i]].status === 'failed') c.failed++; // as the index counts them: a timeout is its own status
    }
  }
  return counts;
}

/** The lane groups as a nested list: each invocation's status and counts, a link to it, and a fold toggle. */
export function LaneGroupList({ run, rollout, parts, layout: l, collapsed, toggle }: { run: string; rollout: string; parts: TrajectoryParts; layout: TrajectoryLayout; collapsed: ReadonlySet<number>; toggle: (g: number) => void }) {
  const counts = groupCounts(parts, l);
  const hidden = (g: number): boolean => {
    for (let p = l.groups[g].parent; p >= 0; p = l.groups[p].parent) if (collapsed.has(p)) return true;
    return false;
  };
  return (
    <ul aria-label="invocations" className="space-y-0.5 text-xs">
      {[...l.groupOrder].filter((g) => !hidden(g)).map((g) => {
        const group = l.groups[g];
        const inv = group.invocation >= 0 ? parts.invocations[group.invocation] : null;
        const c = counts[g];
        const folds = l.descendants[g] > 0;
        return (
          <li key={g} className="flex flex-wrap items-center gap-x-2 gap-y-0.5" style={{ paddingLeft: Math.min(group.depth, 6) * 14 }}>
            <button
              type="button"
              onClick={() => toggle(g)}
              disabled={!folds}
              aria-expanded={folds ? !collapsed.has(g) : undefined}
              aria-label={`${collapsed.has(g) ? 'Unfold' : 'Fold'} ${groupLabel(l, g)}`}
              className="w-4 text-muted hover:text-fg disabled:invisible"
            >
              {collapsed.has(g) ? '▸' : '▾'}
            </button>
            {group.id && group.kind === 'invocation' ? (
              <Link href={invocationHref(run, rollout, group.id)} prefetch={false} className="font-mono text-accent hover:underline">
                {group.id}
              </Link>
            ) : (
              <span className={group.id ? 'font-mono' : 'text-muted italic'}>{groupLabel(l, g)}</span>
            )}
            {inv ? <Badge tone={STATUS_TONE[inv.status]}>{inv.status}</Badge> : null}
            {group.kind === 'missing' ? <Badge tone="warn" title="Tool calls or compactions name this invocation, but the trajectory's invocations do not include it">not in the record</Badge> : null}
            {group.missingParent ? <Badge tone="warn" title="Its parent_invocation_id names an invocation the trajectory does not have">parent {group.missingParent} not in the record</Badge> : null}
            {inv?.error_type ? <span className="text-bad">{inv.error_type}</span> : null}
            <span className="text-muted">
              {formatCount(c.calls)} call{c.calls === 1 ? '' : 's'} · {formatCount(c.tools)} tool call{c.tools === 1 ? '' : 's'}
              {c.failed ? <span className="text-bad"> ({formatCount(c.failed)} failed)</span> : null}
              {group.spawnedBy >= 0 ? ` · spawned by ${parts.toolCalls[group.spawnedBy].tool_call_id}` : ''}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
