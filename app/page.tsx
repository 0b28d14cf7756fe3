import { presentRollout, type PresentedRollout } from '@/lib/api/present';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

const ROLLOUTS_SHOWN = 100;
const fmt = (n: number | null) => (n === null ? '—' : n.toLocaleString('en-US'));

function RolloutRow({ r }: { r: PresentedRollout }) {
  return (
    <tr>
      <td>{r.rollout_id ?? <span className="muted">line {r.line_no}</span>}</td>
      <td className="num">{r.reward === null ? '—' : r.reward.toFixed(2)}</td>
      <td className="num">{fmt(r.num_calls)}</td>
      <td className="num">{fmt(r.tokens_in)}</td>
      <td className="num">{fmt(r.tokens_out)}</td>
      <td>
        {r.failure_class ? <span className="gap">failed ({r.failure_class}) </span> : null}
        {r.gaps.map((g) => (
          <span key={g.code} className="gap">
            {g.code}
            {g.detail ? ` (${g.detail})` : ''}{' '}
          </span>
        ))}
      </td>
    </tr>
  );
}

export default async function RunsPage() {
  const { index } = await getInstance();
  const runs = index.listRuns();
  return (
    <>
      <h1>Runs</h1>
      {runs.length === 0 ? <p className="muted">No runs found in the served paths.</p> : null}
      {runs.map((run) => {
        const page = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: ROLLOUTS_SHOWN })!;
        return (
          <section key={run.id} aria-label={`run ${run.id}`}>
            <h2>
              {run.id}{' '}
              <span className="muted">
                · {run.totals.rollouts} rollouts · {fmt(run.totals.calls)} calls · {fmt(run.totals.tokens_total)} tokens
                {run.progress.state !== 'ready' ? ` · ${run.progress.state}` : ''}
              </span>
            </h2>
            <table>
              <thead>
                <tr>
                  <th>rollout</th>
                  <th className="num">reward</th>
                  <th className="num">calls</th>
                  <th className="num">tokens in</th>
                  <th className="num">tokens out</th>
                  <th>gaps</th>
                </tr>
              </thead>
              <tbody>
                {page.rollouts.map((r) => (
                  <RolloutRow key={r.key} r={presentRollout(r)} />
                ))}
              </tbody>
            </table>
            {page.total > ROLLOUTS_SHOWN ? <p className="muted">and {page.total - ROLLOUTS_SHOWN} more</p> : null}
          </section>
        );
      })}
    </>
  );
}
