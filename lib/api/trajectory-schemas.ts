// GET /api/runs/{run}/rollouts/{rollout}/trajectory: the rollout's ng_trajectory (as stored on the line, or
// projected as the collector would), with the compactions and sandbox runs that only ng_agent_observations carries.
import { z } from 'zod';
import { TRAJECTORY_SOURCES } from '../capture/vocabulary';
import { ContextCompactionObservationSchema, ObservationGapSchema, SandboxObservationSchema } from '../rollouts/observations';

export const TrajectoryQuerySchema = z
  .object({
    include_payloads: z
      .enum(['0', '1', 'true', 'false'])
      .optional()
      .transform((v) => v === '1' || v === 'true')
      .describe("1: model_calls[*].request / .response as stored; otherwise null (the calls' payloads are a call page away)"),
  })
  .strict();

const Json = z.record(z.string(), z.unknown());

export const TrajectoryResponseSchema = z.object({
  source: z.enum(TRAJECTORY_SOURCES),
  /**
   * The TrajectoryRecord (schema 1.0) as stored or projected; null for source "none", and for "projected" when the
   * projection failed (the collector leaves none: `projection_error` says why).
   */
  trajectory: Json.nullable(),
  /** Problems of a stored trajectory that does not validate as schema 1.0 (it is still returned as stored). */
  problems: z.array(z.string()),
  /** The projection's exception class (`ValidationError`, `KeyError`, ...) when a projection failed; else null. */
  projection_error: z.string().nullable(),
  /**
   * From the line's ng_agent_observations (after the merge's join for "projected"): what the trajectory does not
   * carry. Null when the line has no bundle or it does not validate (`problems` of the bundle in observation_problems).
   */
  observations: z
    .object({
      source: z.string(),
      compactions: z.array(ContextCompactionObservationSchema),
      sandboxes: z.array(SandboxObservationSchema),
      gaps: z.array(ObservationGapSchema),
    })
    .nullable(),
  observation_problems: z.array(z.string()),
  /**
   * For each model_call_id, the tool_call_ids its response asked for (spec §3.3, from the call's response payload):
   * where an unmeasured tool call belongs. Empty for calls whose payloads are redacted or absent.
   */
  requested_tools: z.record(z.string(), z.array(z.string())),
});
export type TrajectoryResponse = z.infer<typeof TrajectoryResponseSchema>;
