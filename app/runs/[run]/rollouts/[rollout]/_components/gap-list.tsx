import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import { gapCount, gapInfo, type RolloutSource } from '@/lib/capture/vocabulary';
import { formatCount } from '@/lib/view/format';

interface Props {
  gaps: { code: string; detail?: string }[];
  source: RolloutSource;
  calls: number;
  rolloutId: string | null;
}

/** What the evidence says when there are no gaps: it depends on where the calls come from (`source`). */
function NoGaps({ source, calls, rolloutId }: Omit<Props, 'gaps'>) {
  if (source === 'capture') {
    return (
      <p className="text-sm text-muted">
        No gaps: the capture dir holds {formatCount(calls)} readable call{calls === 1 ? '' : 's'} for this rollout, no damaged line and no{' '}
        <code>.capture.incomplete</code> marker, so as far as the evidence shows every call was captured.
      </p>
    );
  }
  if (source === 'attachment') {
    return (
      <p className="text-sm text-muted">
        No gaps in the rollout line&apos;s <code>ng_model_call_capture</code>: its {formatCount(calls)} call{calls === 1 ? ' is' : 's are'} what NeMo Gym&apos;s
        collector attached. The run is served without a capture dir, so the calls are read from the line.
      </p>
    );
  }
  return (
    <p className="text-sm text-muted">
      No capture evidence:{' '}
      {rolloutId === null
        ? 'this rollout line has no rollout id (no _ng_rollout_id, and no task and rollout index), so no capture file can be its own and NeMo Gym attaches none.'
        : "the rollout line has no ng_model_call_capture and the run was served without a capture dir, so nothing records which model calls it made."}{' '}
      Its calls, tokens and latency are unknown, not zero.
    </p>
  );
}

/** One gap, explained: its title and code, what it means, and what it means for the numbers; `where` names its place. */
export function GapEntry({ code, detail, where }: { code: string; detail?: string | null; where?: ReactNode }) {
  const m = gapInfo(code);
  const count = gapCount(detail ?? undefined);
  return (
    <li className="rounded-md border border-warn/40 bg-warn/5 px-3 py-2 text-sm">
      <p className="font-medium">
        {m.title}
        {count !== null ? `: ${count} line${count === 1 ? '' : 's'}` : null} <code className="ml-1 font-mono text-xs text-muted">{code}</code>
        {detail ? <code className="ml-1 font-mono text-xs text-muted">({detail})</code> : null}
        {where ? <span className="ml-2 text-xs font-normal text-muted">{where}</span> : null}
      </p>
      <p className="mt-1 text-muted">{m.meaning}</p>
      <p className="mt-1">
        <span className="font-medium text-warn">For the numbers: </span>
        {count !== null ? `${count} damaged line${count === 1 ? ' is' : 's are'} excluded from the metrics. ` : null}
        {m.numbers}
      </p>
    </li>
  );
}

/** The rollout's gaps, each explained with what it means for the numbers; what the evidence says when there are none. */
export function GapList({ gaps, ...rest }: Props) {
  return (
    <Card title={`Gaps (${gaps.length})`}>
      {gaps.length === 0 ? (
        <NoGaps {...rest} />
      ) : (
        <ul className="space-y-3">
          {gaps.map((g, k) => (
            <GapEntry key={`${g.code}-${k}`} code={g.code} detail={g.detail} />
          ))}
        </ul>
      )}
    </Card>
  );
}
