// T2: cold ingest of the corpus with a trajectory on every rollout (as the collector writes them: payloads in
// ng_trajectory, see t2-corpus.ts) against the same corpus without, alternating (without, with, without, with) so
// that both see the same machine; the ratio of the medians, wall and CPU.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../paths';
import type { Json } from '../report';
import { median, round } from '../stats';
import { runChild, type ChildParams } from './child';
import { corpusStats } from './corpus';

/** Role `trajectories`: writes (or reuses) the T2 corpus. */
export async function childTrajectories(p: ChildParams) {
  const { ensureTrajectoryCorpus } = await import('./t2-corpus');
  return ensureTrajectoryCorpus(p.corpus!, p.dest!);
}

export async function measureT2(corpus: string, work: string, step: (s: string) => void): Promise<Record<string, Json>> {
  const dest = `${corpus}-trajectories`;
  step(`T2 corpus with trajectories (${path.relative(ROOT, dest)})`);
  const made = await runChild('trajectories', { corpus, dest });
  const runs: Record<'without' | 'with', { wall_ms: number; cpu_ms: number; bytes_read: number }[]> = { without: [], with: [] };
  for (let i = 0; i < 4; i++) {
    const kind = i % 2 === 0 ? 'without' : 'with';
    step(`T2 cold ingest ${kind} trajectories, ${Math.floor(i / 2) + 1} of 2`);
    const indexDir = path.join(work, `t2-index-${i}`);
    const r = await runChild('ingest', { corpus: kind === 'with' ? dest : corpus, indexDir });
    rmSync(indexDir, { recursive: true, force: true });
    runs[kind].push({ wall_ms: round(r.wall_ms), cpu_ms: round(r.cpu_ms), bytes_read: r.runs.reduce((n: number, x: any) => n + x.progress.bytes_read, 0) });
  }
  const m = (kind: 'without' | 'with', k: 'wall_ms' | 'cpu_ms') => median(runs[kind].map((r) => r[k]));
  return {
    corpus_with: { dir: dest, ...made, ...corpusStats(dest) },
    runs,
    ratio_wall: round(m('with', 'wall_ms') / m('without', 'wall_ms')),
    ratio_cpu: round(m('with', 'cpu_ms') / m('without', 'cpu_ms')),
  };
}
