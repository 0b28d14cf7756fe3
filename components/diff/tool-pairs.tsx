import { Badge } from '@/components/ui/badge';
import type { DiffTool, ToolPair } from '@/lib/rollouts/diff-tools';
import { formatMs } from '@/lib/view/format';

/** Whether a pair's tool calls differ: a tool only one side called, another status, or another output. */
export function toolsDiffer(tools: readonly ToolPair[] | undefined): boolean {
  return !!tools?.some((t) => !t.a || !t.b || t.a.status !== t.b.status || t.same_output === false);
}

function Tool({ t }: { t: DiffTool | null }) {
  if (!t) return <span className="text-muted italic">not called</span>;
  return (
    <span className="flex min-w-0 items-center gap-2">
      <span className="truncate font-mono">{t.tool_name ?? t.tool_call_id}</span>
      <Badge tone={t.status === 'completed' ? 'good' : t.status === 'unknown' || t.status === null ? 'neutral' : 'bad'}>{t.status ?? 'unknown'}</Badge>
      <span className="ml-auto tabular-nums text-muted">{t.duration_ms === null ? 'not measured' : formatMs(t.duration_ms)}</span>
    </span>
  );
}

/** The tool calls the two calls of a pair asked for, side by side (from the rollouts' trajectories). */
export function ToolPairs({ tools }: { tools: readonly ToolPair[] }) {
  if (!tools.length) return <p className="text-sm text-muted">Neither call asked for a tool.</p>;
  return (
    <table aria-label="tool calls" className="w-full table-fixed text-xs">
      <thead className="text-left text-muted">
        <tr>
          <th className="py-1 font-medium">a</th>
          <th className="w-28 py-1 font-medium">output</th>
          <th className="py-1 font-medium">b</th>
        </tr>
      </thead>
      <tbody>
        {tools.map((t, i) => (
          <tr key={i} className="border-t border-line/60">
            <td className="py-1 pr-3"><Tool t={t.a} /></td>
            <td className="py-1">{t.same_output === null ? <span className="text-muted">—</span> : t.same_output ? 'same' : <span className="text-warn">different</span>}</td>
            <td className="py-1 pl-3"><Tool t={t.b} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
