import type { TrajectoryNotes } from '@/lib/view/trajectory-summary';

/** What could not be read of the trajectory, and a projection that fails: said on the page, never a crash. */
export function TrajectoryProblems({ notes }: { notes: TrajectoryNotes }) {
  return (
    <>
      {notes.projectionError ? (
        <p role="alert" className="rounded-md border border-bad/40 bg-bad/10 px-3 py-2 text-sm text-bad">
          The collector&apos;s projection fails for this line ({notes.projectionError}): NeMo Gym would write no <code>ng_trajectory</code> for it, and records the gap{' '}
          <code>trajectory_projection_failed</code> instead.
        </p>
      ) : null}
      {notes.problems.length ? (
        <div role="alert" className="rounded-md border border-warn/40 bg-warn/10 px-3 py-2 text-sm text-warn">
          <p>This trajectory does not validate as NeMo Gym&apos;s TrajectoryRecord (schema 1.0): it is shown as stored, and entries that cannot be read are left out.</p>
          <ul className="mt-1 list-disc pl-5">
            {notes.problems.map((p, k) => (
              <li key={k} className="break-words">
                {p}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
