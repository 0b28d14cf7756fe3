import 'server-only';

// The trajectory as the rollout, tool call and invocation pages load it (lib/index/trajectory.ts, as the API does).
// A rollout line that names neither ng_agent_observations nor ng_trajectory has no agent trajectory: its projection
// would be its captured calls alone (what the call timeline shows), and computing it merges every capture line with
// its payloads. So the line's bytes are searched for the two keys first, and that projection is never computed for
// a page. (A payload that quotes a key only costs the full computation, which then finds no agent trajectory.)
import { open } from 'node:fs/promises';
import type { TrajectoryResponse } from '@/lib/api/trajectory-schemas';
import type { CallscopeIndex } from '@/lib/index/index';
import { rolloutTrajectory } from '@/lib/index/trajectory';
import { readTrajectory, type TrajectoryParts } from '@/lib/view/trajectory-read';

const KEYS = ['"ng_agent_observations"', '"ng_trajectory"'].map((k) => Buffer.from(k));
const CHUNK = 4 << 20;

async function lineNamesTrajectory(span: { path: string; start: number; length: number }): Promise<boolean> {
  const file = await open(span.path, 'r').catch(() => null);
  if (!file) return false;
  try {
    const overlap = Math.max(...KEYS.map((k) => k.length)) - 1;
    const buffer = Buffer.alloc(Math.min(CHUNK, span.length) + overlap);
    let carried = 0;
    for (let at = 0; at < span.length; ) {
      const want = Math.min(CHUNK, span.length - at);
      const { bytesRead } = await file.read(buffer, carried, want, span.start + at);
      if (bytesRead === 0) return false;
      const view = buffer.subarray(0, carried + bytesRead);
      if (KEYS.some((k) => view.includes(k))) return true;
      carried = Math.min(overlap, view.length);
      view.copyWithin(0, view.length - carried);
      at += bytesRead;
    }
    return false;
  } finally {
    await file.close();
  }
}

/** The rollout's trajectory answer, or null when it has no line that could carry an agent trajectory. */
export async function loadTrajectory(index: CallscopeIndex, run: string, rollout: string): Promise<TrajectoryResponse | null> {
  const span = index.lineLocation(run, rollout);
  if (!span || !(await lineNamesTrajectory(span))) return null;
  return rolloutTrajectory(index, run, rollout, { includePayloads: false });
}

/** The rollout's trajectory read for a page, or null when it has none (the page answers 404). */
export async function loadTrajectoryParts(index: CallscopeIndex, run: string, rollout: string): Promise<TrajectoryParts | null> {
  const answer = await loadTrajectory(index, run, rollout);
  return answer ? readTrajectory(answer) : null;
}
