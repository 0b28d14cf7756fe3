// GET /api/openapi.json: the API described from the same zod schemas the routes parse with.
import { z } from 'zod';
import pkg from '../../package.json';
import * as S from './schemas';
import * as T from './task-schemas';
import * as TR from './trajectory-schemas';

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema: z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) } } });
const errors = { 400: { description: 'bad input', ...json(S.ErrorSchema) }, 404: { description: 'unknown id', ...json(S.ErrorSchema) }, 503: { description: 'not ready', ...json(S.ErrorSchema) } };
const pathParam = (name: string, schema: z.ZodType) => ({ name, in: 'path', required: true, schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) });
const queryParams = (schema: z.ZodObject) =>
  Object.entries(schema.shape).map(([name, s]) => ({ name, in: 'query', required: false, schema: z.toJSONSchema(s as z.ZodType, { io: 'input', unrepresentable: 'any' }) }));

export function openApiDocument() {
  const run = pathParam('run', S.RunIdSchema);
  const rollout = pathParam('rollout', S.RolloutKeySchema);
  const call = pathParam('call', S.CallIdSchema);
  return {
    openapi: '3.1.0',
    info: { title: 'callscope', version: pkg.version, description: 'NeMo Gym model-call capture: runs, rollouts, calls and comparisons.' },
    paths: {
      '/api/health': { get: { summary: 'Liveness and version', responses: { 200: { description: 'ok', ...json(S.HealthSchema) } } } },
      '/api/runs': { get: { summary: 'Runs with totals and indexing progress', responses: { 200: { description: 'runs', ...json(S.RunsResponseSchema) } } } },
      '/api/runs/{run}/rollouts': {
        get: { summary: 'A keyset page of rollouts', parameters: [run, ...queryParams(S.RolloutQuerySchema)], responses: { 200: { description: 'page', ...json(S.RolloutPageSchema) }, ...errors } },
      },
      '/api/runs/{run}/rollouts/{rollout}': {
        get: { summary: "A rollout's fields and its capture in the attachment shape", parameters: [run, rollout], responses: { 200: { description: 'rollout', ...json(S.RolloutDetailSchema) }, ...errors } },
      },
      '/api/runs/{run}/rollouts/{rollout}/calls': {
        get: { summary: "Every call of a rollout as compact columns, without payloads", parameters: [run, rollout, ...queryParams(S.CallColumnsQuerySchema)], responses: { 200: { description: 'columns', ...json(S.CallColumnsSchema) }, ...errors } },
      },
      '/api/runs/{run}/rollouts/{rollout}/calls/{call}': {
        get: { summary: 'One normalized record with its payloads', parameters: [run, rollout, call], responses: { 200: { description: 'call', ...json(S.CallSchema) }, ...errors } },
      },
      '/api/runs/{run}/rollouts/{rollout}/calls/{call}/raw': {
        get: {
          summary: 'The stored capture line, byte for byte',
          parameters: [run, rollout, call],
          responses: { 200: { description: 'the line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, ...errors },
        },
      },
      '/api/runs/{run}/rollouts/{rollout}/line': {
        get: {
          summary: "The rollout's own line of its rollouts file, byte for byte",
          parameters: [run, rollout],
          responses: { 200: { description: 'the line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, ...errors },
        },
      },
      '/api/runs/{run}/rollouts/{rollout}/trajectory': {
        get: {
          summary: "The rollout's ng_trajectory (as stored on its line, or projected as NeMo Gym's collector would), with its compactions and sandbox runs",
          parameters: [run, rollout, ...queryParams(TR.TrajectoryQuerySchema)],
          responses: { 200: { description: 'trajectory', ...json(TR.TrajectoryResponseSchema) }, ...errors },
        },
      },
      '/api/runs/{run}/tasks': {
        get: {
          summary: "Task groups: per agent, NeMo Gym's pass@k metrics and a page of tasks (reward spread, pass@k, zero variance)",
          parameters: [run, ...queryParams(T.TaskQuerySchema)],
          responses: { 200: { description: 'page', ...json(T.TaskPageSchema) }, ...errors },
        },
      },
      '/api/runs/{run}/tasks/{task}': {
        get: {
          summary: "One task's group and its rollouts, best to worst",
          parameters: [run, pathParam('task', T.TaskIndexSchema), ...queryParams(T.TaskDetailQuerySchema)],
          responses: { 200: { description: 'task', ...json(T.TaskDetailSchema) }, ...errors },
        },
      },
      '/api/compare': {
        get: { summary: 'Token usage and the rest, side by side', parameters: queryParams(S.CompareQuerySchema), responses: { 200: { description: 'comparison', ...json(S.CompareSchema) }, ...errors } },
      },
      '/api/compare/points': {
        get: { summary: 'Per-rollout (tokens_total, reward) points per run, for the scatter', parameters: queryParams(S.PointsQuerySchema), responses: { 200: { description: 'points', ...json(S.PointsSchema) }, ...errors } },
      },
      '/api/diff': {
        get: {
          summary: 'Two rollouts aligned call by call: per pair whether requests and responses differ, token and latency deltas, the first divergence; with pair, that pair\'s structural diffs',
          parameters: queryParams(S.DiffQuerySchema).map((p) => (p.name === 'pair' ? p : { ...p, required: true })),
          responses: { 200: { description: 'diff', ...json(S.DiffSchema) }, ...errors },
        },
      },
      '/api/events': { get: { summary: 'Server-Sent Events of index changes', responses: { 200: { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } } } },
    },
  };
}
