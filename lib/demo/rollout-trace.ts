// What a simulated rollout leaves: its exchanges and line (SimulatedRollout), and the trace of its policy turns and
// tool executions that observing agents report from (TurnTrace, ToolTrace), with the provider faults its calls met.
// A leaf of lib/demo (it imports no simulator): the scenario's interfaces (scenario.ts), the simulators and the
// observers all name these types without importing one another.
import type { JsonObject } from '../capture/json-value';
import type { AssistantTurn } from './conversation';

export type CallFault = 'rate_limit' | 'server_error' | 'truncated' | 'stream_error';

export interface SimulatedRollout {
  rolloutId: string;
  exchanges: JsonObject[];
  line: JsonObject;
  /** The line belongs in the failures file. */
  failed: boolean;
  endAt: number;
}

/** One policy turn as the agent lived it: the faults it retried, when its answer arrived, the tools it ran. */
export interface TurnTrace {
  turn: AssistantTurn;
  faults: CallFault[];
  completedAt: number;
  tools: ToolTrace[];
}

/** A tool call's execution: between the call that requested it and the next call. Unix seconds. */
export interface ToolTrace {
  callId: string;
  name: string;
  args: JsonObject;
  output: string;
  startedAt: number;
  completedAt: number;
}
