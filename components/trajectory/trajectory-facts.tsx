import { TRAJECTORY_SOURCE_INFO } from '@/lib/capture/vocabulary';
import { formatCount } from '@/lib/view/format';
import type { TrajectorySummary } from '@/lib/view/trajectory-summary';

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** Where the trajectory comes from, in plain words, its counts, and what could not be read of it. */
export function TrajectoryFacts({ s }: { s: TrajectorySummary }) {
  const c = s.counts;
  return (
    <div className="space-y-2 text-sm">
      <p className="text-muted">
        <span className="font-medium text-fg">{TRAJECTORY_SOURCE_INFO[s.source].title}: </span>
        {TRAJECTORY_SOURCE_INFO[s.source].meaning}
        {s.observationSource ? (
          <>
            {' '}
            Compactions and sandbox runs come from the line&apos;s <code>ng_agent_observations</code> (source <code>{s.observationSource}</code>): the trajectory does not carry them.
          </>
        ) : null}
      </p>
      {c ? (
        <p aria-label="trajectory counts" className="tabular-nums">
          {plural(c.invocations, 'invocation')} · {plural(c.modelCalls, 'model call')} · {plural(c.toolCalls, 'tool call')}
          {c.toolCalls ? (
            <span className="text-muted">
              {' '}
              (<span className={c.failedToolCalls ? 'text-bad' : undefined}>{formatCount(c.failedToolCalls)} failed</span>, {formatCount(c.unmeasuredToolCalls)} not measured)
            </span>
          ) : null}{' '}
          · {plural(c.turns, 'turn')} · {plural(c.compactions, 'compaction')} · {plural(c.sandboxes, 'sandbox run')}
        </p>
      ) : null}
      {s.projectionError ? (
        <p role="alert" className="rounded-md border border-bad/40 bg-bad/10 px-3 py-2 text-bad">
          The collector&apos;s projection fails for this line ({s.projectionError}): NeMo Gym would write no <code>ng_trajectory</code> for it, and records the gap{' '}
          <code>trajectory_projection_failed</code> instead.
        </p>
      ) : null}
      {s.problems.length ? (
        <div role="alert" className="rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-warn">
          <p>This trajectory does not validate as NeMo Gym&apos;s TrajectoryRecord (schema 1.0): it is shown as stored, and entries that cannot be read are left out.</p>
          <ul className="mt-1 list-disc pl-5">
            {s.problems.map((p, k) => (
              <li key={k} className="break-words">
                {p}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
