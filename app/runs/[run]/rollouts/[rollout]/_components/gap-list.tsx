import { Card } from '@/components/ui/card';
import { GapEntry } from '@/components/rollouts/gap-entry';
import type { RolloutSource } from '@/lib/capture/vocabulary';
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
