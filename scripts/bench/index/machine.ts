// bench:index's machine block: the shared facts, with 'unknown' where they are missing (as its reports have always
// written them), and the checkout dirty only where the figures depend on it.
import { machine } from '../machine';

/** The code the index figures depend on: uncommitted changes there make them another commit's. */
const MEASURED_PATHS = ['lib/index', 'lib/capture', 'lib/rollouts', 'scripts/bench-index.ts', 'scripts/bench'];

export function indexMachine() {
  const m = machine({ dirtyPaths: MEASURED_PATHS });
  return { ...m, cpu_model: m.cpu_model ?? 'unknown', commit: m.commit ?? 'unknown' };
}
