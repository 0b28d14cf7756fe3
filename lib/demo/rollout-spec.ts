// What one simulated rollout is asked to be (lib/demo/rollout.ts simulates it, rollout-line.ts writes its line): its
// own module, so that the line writer needs nothing back from the simulator.
import type { CallFault } from './calls';
import type { Scenario } from './scenario';

export interface RolloutSpec {
  scenario: Scenario;
  taskIndex: number;
  rolloutIndex: number;
  /** Resume retries: 1 for the first retry (`-a1`), 0 otherwise. */
  attempt: number;
  /** An explicit rollout id (captures made outside the collector, e.g. through `callscope proxy`). */
  rolloutId?: string;
  /** Unix seconds. */
  startAt: number;
  /** Exactly this many model calls (benchmark corpora); the task's natural length otherwise. */
  calls?: number;
  /** Faults forced before the successful call of a policy turn, by turn index. */
  faults?: Record<number, CallFault[]>;
  /** Probability that a policy turn first meets a provider fault (natural length only). */
  faultRate?: number;
  /** The attempt dies of an infrastructure failure after this many policy turns (a failures-file row). */
  failAfterTurns?: number;
  /** The agent never reaches a model (its sandbox failed to start). */
  noCalls?: boolean;
  success?: boolean;
  streaming?: boolean;
}
