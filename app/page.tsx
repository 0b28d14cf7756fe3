import { listRuns, servedPaths, type RolloutSummary } from '@/lib/rollouts/overview';

export const dynamic = 'force-dynamic';

const fmt = (n: number | null) => (n === null ? '—' : n.toLocaleString('en-US'));

function RolloutRow({ r }: { r: RolloutSummary }) {
  return (
    <tr>
      <td>{r.rolloutId ?? <span className="muted">line {r.line}</span>}</td>
      <td className="num">{r.reward === null ? '—' : r.reward.toFixed(2)}</td>
      <td className="num">{fmt(r.numCalls)}</td>
      <td className="num">{fmt(r.tokensIn)}</td>
      <td className="num">{fmt(r.tokensOut)}</td>
      <td>
        {r.failed ? <span className="gap">failed </span> : null}
        {r.gaps.map((g) => (
          <span key={g} className="gap">
            {g}{' '}
          </span>
        ))}
      </td>
    </tr>
  );
}

export default async function RunsPage() {
  const runs = await listRuns(servedPaths());
  return (
    <>
      <h1>Runs</h1>
      {runs.length === 0 ? <p className="muted">No runs found in the served paths.</p> : null}
      {runs.map((run) => (
        <section key={run.id} aria-label={`run ${run.id}`}>
          <h2>
            {run.id} <span className="muted">· {run.rollouts.length} rollouts · {fmt(run.rollouts.reduce((s, r) => s + r.numCalls, 0))} calls</span>
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
              {run.rollouts.map((r, i) => (
                <RolloutRow key={`${r.rolloutId}-${r.line}-${i}`} r={r} />
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}
