import { Badge } from '@/components/ui/badge';
import type { SharedFacts } from '@/lib/view/runs';

/** What every run (or most) has in common, said once instead of as the same chip on each row. */
export function SharedFactsLine({ facts, runs }: { facts: SharedFacts; runs: number }) {
  const items: [string, string[]][] = [];
  if (facts.agents?.length) items.push([facts.agents.length === 1 ? 'agent' : 'agents', facts.agents]);
  if (facts.model_servers?.length) items.push([facts.model_servers.length === 1 ? 'model server' : 'model servers', facts.model_servers]);
  const flags = [facts.capture_only ? ['capture only', 'No rollouts file: no rewards or task indices'] : null].filter((f): f is string[] => f !== null);
  const most = facts.rollouts_only > 0 && facts.rollouts_only < runs;
  if (facts.rollouts_only === runs) flags.unshift(['rollouts only', "No capture dir: calls come from the rollout lines' attachments"]);
  if (!items.length && !flags.length && !most) return null;
  return (
    <p aria-label="shared by the runs" className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted">
      {items.length || flags.length ? <span>All {runs} runs:</span> : null}
      {flags.map(([label, title]) => (
        <Badge key={label} title={title}>{label}</Badge>
      ))}
      {items.map(([label, names]) => (
        <span key={label} className="inline-flex flex-wrap items-center gap-1">
          {label}
          {names.map((n) => (
            <Badge key={n} title={n}>{n}</Badge>
          ))}
        </span>
      ))}
      {most ? (
        <span>
          {facts.rollouts_only} of {runs} runs are <Badge title="No capture dir: calls come from the rollout lines' attachments">rollouts only</Badge>; the
          others are marked <Badge tone="accent">captured</Badge>
        </span>
      ) : null}
    </p>
  );
}
