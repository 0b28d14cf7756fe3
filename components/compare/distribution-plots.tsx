import type { Comparison } from '@/lib/view/compare';
import { boxDomain, cellText, runColor, TOKEN_KINDS } from '@/lib/view/compare';
import { BoxPlotRow } from './box-plot-row';

/** Per-rollout distributions of tokens (in, out, reasoning, total), reward and, with trajectories, tool calls and tool time; one shared axis per metric. */
export function DistributionPlots({ comparison }: { comparison: Comparison }) {
  const metrics = [
    ...TOKEN_KINDS.map(([key, label]) => ({ label: `${label} per rollout`, kind: 'tokens' as const, dists: comparison.runs.map((r) => r.rollout_tokens[key]), fromZero: true })),
    { label: 'reward', kind: 'reward' as const, dists: comparison.runs.map((r) => r.reward), fromZero: false },
    ...(comparison.runs.some((r) => r.rollout_tool_calls.count > 0)
      ? [
          { label: 'tool calls per rollout (trajectory)', kind: 'count' as const, dists: comparison.runs.map((r) => r.rollout_tool_calls), fromZero: true },
          { label: 'measured tool time per rollout', kind: 'ms' as const, dists: comparison.runs.map((r) => r.rollout_tool_time), fromZero: true },
        ]
      : []),
  ];
  return (
    <div className="space-y-5">
      {metrics.map((m) => {
        const domain = boxDomain(m.dists, m.fromZero);
        return (
          <figure key={m.label} className="space-y-1.5">
            <figcaption className="flex justify-between text-xs font-medium">
              <span>{m.label}</span>
              {domain ? (
                <span className="font-normal text-muted">
                  axis {cellText({ value: domain[0], kind: m.kind })} – {cellText({ value: domain[1], kind: m.kind })}
                </span>
              ) : null}
            </figcaption>
            {comparison.runs.map((r, i) => (
              <BoxPlotRow key={r.run} run={r.run} color={runColor(i)} dist={m.dists[i]} domain={domain} kind={m.kind} />
            ))}
          </figure>
        );
      })}
      <p className="text-xs text-muted">Whiskers p5–p95, box p25–p75, line the median, dot the mean. Hover a row for its numbers.</p>
    </div>
  );
}
