// Trajectory answers (the shape GET .../trajectory returns) built from upstream's own projections of producer-shaped
// lines (tests/fixtures/trajectory/expected.json, written by NeMo Gym's code): the line's ng_trajectory, and the
// compactions, sandbox runs and gaps of its validated ng_agent_observations.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TrajectoryResponse } from '../../lib/api/trajectory-schemas';
import type { JsonObject } from '../../lib/capture/json-value';
import { parsePython } from '../../lib/capture/json-parse';
import { validateBundle } from '../../lib/rollouts/observations';

export type TrajectoryAnswer = Pick<TrajectoryResponse, 'trajectory' | 'observations' | 'requested_tools'>;

const FILE = path.join(import.meta.dirname, '../fixtures/trajectory/expected.json');
let lines: Map<string, JsonObject> | null = null;

/** Every upstream-projected line that carries an ng_trajectory, by case name. */
export function projectedLines(): Map<string, JsonObject> {
  if (lines) return lines;
  const expected = JSON.parse(readFileSync(FILE, 'utf8')) as { name: string; json?: string }[];
  lines = new Map();
  for (const e of expected) {
    if (!e.json) continue;
    const v = parsePython(e.json) as JsonObject;
    if (v && typeof v === 'object' && !Array.isArray(v) && v.ng_trajectory && typeof v.ng_trajectory === 'object') lines.set(e.name, v);
  }
  return lines;
}

export function answerOf(line: JsonObject, requested: Record<string, string[]> = {}): TrajectoryAnswer {
  const checked = line.ng_agent_observations ? validateBundle(line.ng_agent_observations) : null;
  const records = checked?.ok ? ((checked.value.records as JsonObject[]) ?? []) : [];
  return {
    trajectory: line.ng_trajectory as Record<string, unknown>,
    observations: checked?.ok
      ? {
          source: checked.value.source as string,
          compactions: records.filter((r) => r.kind === 'context_compaction') as never[],
          sandboxes: records.filter((r) => r.kind === 'sandbox') as never[],
          gaps: checked.value.gaps as never[],
        }
      : null,
    requested_tools: requested,
  };
}

export const fixtureAnswer = (name: string, requested: Record<string, string[]> = {}): TrajectoryAnswer => {
  const line = projectedLines().get(name);
  if (!line) throw new Error(`no projected trajectory named ${name}`);
  return answerOf(line, requested);
};
