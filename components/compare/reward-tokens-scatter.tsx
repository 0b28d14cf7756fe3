'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { formatCompact, formatCount, formatReward } from '@/lib/view/format';
import { runColor, scatterLayout, type PointsRun } from '@/lib/view/compare';
import { ScatterCanvas } from './scatter-canvas';

const HEIGHT = 340;

/** Reward against tokens per rollout for the compared runs; hover for a rollout, click to open it. */
export function RewardTokensScatter({ runs }: { runs: string[] }) {
  const router = useRouter();
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [logX, setLogX] = useState(false);
  const [data, setData] = useState<PointsRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [hover, setHover] = useState<number | null>(null);

  const runList = runs.join(',');
  useEffect(() => {
    const controller = new AbortController();
    fetch(`/api/compare/points?runs=${runList.split(',').map(encodeURIComponent).join(',')}`, { signal: controller.signal, cache: 'no-store' })
      .then(async (res) => {
        const body = await res.json();
        if (!res.ok) throw new Error(body?.error?.message ?? `the server answered ${res.status}`);
        setData((body as { runs: PointsRun[] }).runs);
      })
      .catch((err: Error) => !controller.signal.aborted && setError(err.message));
    return () => controller.abort();
  }, [runList]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry.contentRect.width)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const layout = useMemo(() => (data && width ? scatterLayout(data, width, HEIGHT, logX) : null), [data, width, logX]);
  const colors = useMemo(() => runList.split(',').map((_, i) => runColor(i)), [runList]);
  const hovered = layout && data && hover !== null ? { series: data[layout.run[hover]], at: layout.at[hover], key: layout.keys[hover], x: layout.xs[hover], y: layout.ys[hover] } : null;

  return (
    <Card title="Reward vs tokens per rollout" actions={<Button variant="ghost" onClick={() => setLogX((v) => !v)} aria-pressed={logX}>{logX ? 'Linear axis' : 'Log axis'}</Button>}>
      <div ref={box} className="relative" style={{ minHeight: HEIGHT }}>
        {error ? <p className="text-sm text-bad">Could not load the points: {error}</p> : null}
        {!error && !layout ? <p className="text-sm text-muted">Loading points…</p> : null}
        {layout && layout.keys.length === 0 ? <p className="text-sm text-muted">No rollout has both a known reward and known tokens.</p> : null}
        {layout && layout.keys.length > 0 ? (
          <ScatterCanvas layout={layout} width={width} height={HEIGHT} colors={colors} fmtX={formatCompact} onHover={setHover} onPick={(i) => router.push(`/runs/${encodeURIComponent(runs[layout.run[i]])}/rollouts/${encodeURIComponent(layout.keys[i])}`)} />
        ) : null}
        {hovered ? (
          <div className="pointer-events-none absolute z-10 rounded-md border border-line bg-bg px-2 py-1 text-xs shadow" style={{ left: Math.min(hovered.x + 10, width - 180), top: Math.max(0, hovered.y - 40) }}>
            <div className="font-mono">{hovered.key}</div>
            <div className="text-muted">
              {hovered.series.run} · {formatCount(hovered.series.tokens_total[hovered.at])} tok · reward {formatReward(hovered.series.reward[hovered.at])}
            </div>
          </div>
        ) : null}
      </div>
      {data && layout ? (
        <ul className="mt-2 flex flex-wrap gap-x-5 gap-y-1 text-xs text-muted">
          {data.map((d, i) => (
            <li key={d.run} className="flex items-center gap-1.5">
              <span className="size-2.5 rounded-full" style={{ background: colors[i] }} />
              <span className="text-fg">{d.run}</span> {formatCount(d.keys.length - layout.skipped[i])} drawn
              {layout.skipped[i] ? ` · ${formatCount(layout.skipped[i])} without reward or tokens` : ''}
              {d.truncated ? ` · first ${formatCount(d.keys.length)} of ${formatCount(d.total)}` : ''}
            </li>
          ))}
          {layout.jittered ? <li>Rewards are spread vertically a little so that equal values stay visible.</li> : null}
        </ul>
      ) : null}
    </Card>
  );
}
