import Link from 'next/link';
import { GapEntry } from '@/components/rollouts/gap-entry';
import type { TrajectoryNotes } from '@/lib/view/trajectory-summary';
import { invocationHref } from './trajectory-href';

/** The gaps of the trajectory and of the agent's observations, explained like the capture gaps (one vocabulary). */
export function TrajectoryGaps({ run, rollout, notes, invocationIds }: { run: string; rollout: string; notes: TrajectoryNotes; invocationIds: ReadonlySet<string> }) {
  return (
    <section aria-label="trajectory gaps" className="space-y-2">
      <h3 className="text-sm font-semibold">Gaps of the trajectory ({notes.gaps.length})</h3>
      {notes.gaps.length === 0 ? (
        <p className="text-sm text-muted">Neither the trajectory nor the agent&apos;s observations report a gap: the producer and the collector say no evidence about the agent is missing.</p>
      ) : (
        <ul className="space-y-3">
          {notes.gaps.map(({ gap: g, from }, k) => (
            <GapEntry
              key={`${g.code}-${k}`}
              code={g.code}
              detail={g.detail}
              where={
                <>
                  in <code>{from}</code>
                  {g.invocation_id ? (
                    <>
                      {' '}
                      · invocation{' '}
                      {invocationIds.has(g.invocation_id) ? (
                        <Link href={invocationHref(run, rollout, g.invocation_id)} prefetch={false} className="font-mono text-accent hover:underline">
                          {g.invocation_id}
                        </Link>
                      ) : (
                        <code>{g.invocation_id}</code>
                      )}
                    </>
                  ) : null}
                </>
              }
            />
          ))}
        </ul>
      )}
    </section>
  );
}
