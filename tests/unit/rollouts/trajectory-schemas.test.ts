// The zod schemas (the plain-JSON view readers use) against upstream's outputs: whatever NeMo Gym writes as a
// normalized bundle or an ng_trajectory parses unchanged, and the named upstream rejections are rejected too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentObservationBundleSchema, ModelCallRefSchema, ToolCallObservationSchema } from '@/lib/rollouts/observations';
import { TrajectoryRecordSchema } from '@/lib/rollouts/trajectory-model';

const dir = path.join(__dirname, '../../fixtures/trajectory');
const cases = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8')) as { name: string; op: string; input?: unknown }[];
const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { name: string; json?: string; error?: string }[];

describe('zod schemas over what NeMo Gym writes', () => {
  it('every normalized bundle and every projected ng_trajectory parses to itself', () => {
    let bundles = 0;
    let trajectories = 0;
    expected.forEach((e, i) => {
      if (!e.json) return;
      const value = JSON.parse(e.json) as Record<string, unknown>;
      if (cases[i].op === 'bundle') {
        expect(AgentObservationBundleSchema.parse(value), e.name).toEqual(value);
        bundles++;
      } else {
        // a rewritten (joined) bundle, i.e. a merge that raised no agent_observation_join_failed
        if (cases[i].op === 'merge' && !(e as { gaps?: unknown[] }).gaps?.length) {
          expect(AgentObservationBundleSchema.parse(value.ng_agent_observations), e.name).toEqual(value.ng_agent_observations);
          bundles++;
        }
        if (value.ng_trajectory) {
          expect(TrajectoryRecordSchema.parse(value.ng_trajectory), e.name).toEqual(value.ng_trajectory);
          trajectories++;
        }
      }
    });
    expect(bundles).toBeGreaterThan(50);
    expect(trajectories).toBeGreaterThan(50);
  });

  it('rejects what upstream rejects in its named tests (§10.2)', () => {
    for (const [i, c] of cases.entries()) {
      if (c.op !== 'bundle' || !c.name.startsWith('test_') || !expected[i].error) continue;
      expect(AgentObservationBundleSchema.safeParse(c.input).success, c.name).toBe(false);
    }
  });

  it('the ModelCallRef rule, the timing rule and the trajectory identity rules', () => {
    expect(ModelCallRefSchema.safeParse({ response_id: 'r' }).success).toBe(false);
    expect(ModelCallRefSchema.safeParse({ model_call_id: '' }).success).toBe(false);
    expect(ModelCallRefSchema.safeParse({ model_ref: { type: 'responses_api_models', name: 's' }, response_id: 'r' }).success).toBe(true);
    expect(ToolCallObservationSchema.safeParse({ invocation_id: 'a', tool_call_id: 't', started_at: 2, completed_at: 1 }).success).toBe(false);
    const call = (id: string) => ({ model_call_id: id });
    expect(TrajectoryRecordSchema.safeParse({ task_id: 't', rollout_id: 'r', model_calls: [call('a'), call('a')] }).success).toBe(false);
    expect(TrajectoryRecordSchema.safeParse({ task_id: 't', rollout_id: 'r', model_calls: [call(''), call('')] }).success).toBe(true);
    const turn = { invocation_id: 'i', task_id: 't', rollout_id: 'r', turn_no: 1, timestamp: 1, step_count: 0 };
    expect(TrajectoryRecordSchema.safeParse({ task_id: 't', rollout_id: 'r', turns: [turn, turn] }).success).toBe(false);
    expect(TrajectoryRecordSchema.safeParse({ task_id: 't', rollout_id: 'other', turns: [turn] }).success).toBe(false);
  });
});
