// The path parameters of a call's routes, as each transport extracts them (decoded, not yet validated).
import { CallIdSchema, RolloutKeySchema, RunIdSchema } from '../schemas';

export interface CallPathParams {
  run: string;
  rollout: string;
  call: string;
}

export function parseCallParams(params: CallPathParams): CallPathParams {
  return { run: RunIdSchema.parse(params.run), rollout: RolloutKeySchema.parse(params.rollout), call: CallIdSchema.parse(params.call) };
}
