import { Card } from '@/components/ui/card';
import { gapCount, gapMeaning } from './gap-meanings';

/**
 * The rollout's gaps, each explained with what it means for the numbers; says so when there are none, and when
 * there is no capture evidence at all (`source` "line": no attachment on the line, no capture dir for the run).
 */
export function GapList({ gaps, source }: { gaps: { code: string; detail?: string }[]; source: string }) {
  return (
    <Card title={`Gaps (${gaps.length})`}>
      {gaps.length === 0 && source === 'line' ? (
        <p className="text-sm text-muted">
          No capture to judge: the rollout line has no <code>ng_model_call_capture</code> and its run has no capture dir, so no model calls
          were recorded for it (the run was collected without capture).
        </p>
      ) : gaps.length === 0 ? (
        <p className="text-sm text-muted">No gaps: the capture is complete as far as the evidence shows.</p>
      ) : (
        <ul className="space-y-3">
          {gaps.map((g, k) => {
            const m = gapMeaning(g.code);
            const count = gapCount(g.detail);
            return (
              <li key={`${g.code}-${k}`} className="rounded-md border border-warn/40 bg-warn/5 px-3 py-2 text-sm">
                <p className="font-medium">
                  {m.title}
                  {count !== null ? `: ${count} line${count === 1 ? '' : 's'}` : null} <code className="ml-1 font-mono text-xs text-muted">{g.code}</code>
                  {g.detail ? <code className="ml-1 font-mono text-xs text-muted">({g.detail})</code> : null}
                </p>
                <p className="mt-1 text-muted">{m.meaning}</p>
                <p className="mt-1">
                  <span className="font-medium text-warn">For the numbers: </span>
                  {count !== null ? `${count} damaged line${count === 1 ? ' is' : 's are'} excluded from the metrics. ` : null}
                  {m.numbers}
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
