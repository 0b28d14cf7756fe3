// The roles bench:index runs in children (`bench-index.ts --child ROLE PARAMS`, started by runChild): each
// measurement that needs a clean process, so that the generator, the baseline and the ingest never share a heap,
// and the RSS of the process that answers queries is its own.
import type { ChildParams } from './child';
import { childHuge } from './huge';
import { childBaseline, childIngest } from './i1';
import { childBreakdown } from './i1-breakdown';
import { childLive } from './live';
import { childQuery } from './query';
import { childTrajectories } from './t2';
import { childWatcher } from './watcher';

export const ROLES: Record<string, (p: ChildParams) => Promise<unknown>> = {
  baseline: childBaseline,
  ingest: childIngest,
  query: childQuery,
  huge: childHuge,
  live: childLive,
  breakdown: childBreakdown,
  watcher: childWatcher,
  trajectories: childTrajectories,
};
