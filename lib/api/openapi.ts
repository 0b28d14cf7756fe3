// GET /api/openapi.json: the API described from the same zod schemas the routes parse with. API_ROUTES is the one
// list of routes: the document is written from it, and the end-to-end suite requests each of its paths and parses the
// answer with the schema it names (tests/e2e/api-schemas.test.ts).
import { z } from 'zod';
import pkg from '../../package.json';
import * as C from './call-schemas';
import * as CM from './compare-schemas';
import * as D from './diff-schemas';
import * as S from './schemas';
import * as T from './task-schemas';
import * as TR from './trajectory-schemas';

export interface ApiRoute {
  summary: string;
  /** The path's parameters, in order. */
  path?: readonly (readonly [name: string, schema: z.ZodType])[];
  query?: z.ZodObject;
  /** Query parameters a request must carry. */
  required?: readonly string[];
  /** The 200 answer: JSON of a schema, or text of a content type. */
  ok: { description: string; schema: z.ZodType } | { description: string; text: string };
  /** Whether the route answers 400, 404 and 503 in the error shape (all but the ones that take no input). */
  errors: boolean;
}

const run = ['run', S.RunIdSchema] as const;
const rollout = ['rollout', S.RolloutKeySchema] as const;
const call = ['call', S.CallIdSchema] as const;

export const API_ROUTES = {
  '/api/health': { summary: 'Liveness and version', ok: { description: 'ok', schema: S.HealthSchema }, errors: false },
  '/api/runs': { summary: 'Runs with totals and indexing progress', ok: { description: 'runs', schema: S.RunsResponseSchema }, errors: false },
  '/api/runs/{run}/rollouts': { summary: 'A keyset page of rollouts', path: [run], query: S.RolloutQuerySchema, ok: { description: 'page', schema: S.RolloutPageSchema }, errors: true },
  '/api/runs/{run}/rollouts/{rollout}': {
    summary: "A rollout's fields and its capture in the attachment shape",
    path: [run, rollout],
    ok: { description: 'rollout', schema: S.RolloutDetailSchema },
    errors: true,
  },
  '/api/runs/{run}/rollouts/{rollout}/calls': {
    summary: 'Every call of a rollout as compact columns, without payloads',
    path: [run, rollout],
    query: C.CallColumnsQuerySchema,
    ok: { description: 'columns', schema: C.CallColumnsAnswerSchema },
    errors: true,
  },
  '/api/runs/{run}/rollouts/{rollout}/calls/{call}': { summary: 'One normalized record with its payloads', path: [run, rollout, call], ok: { description: 'call', schema: C.CallSchema }, errors: true },
  '/api/runs/{run}/rollouts/{rollout}/calls/{call}/raw': {
    summary: 'The stored capture line, byte for byte',
    path: [run, rollout, call],
    ok: { description: 'the line', text: 'application/x-ndjson' },
    errors: true,
  },
  '/api/runs/{run}/rollouts/{rollout}/line': {
    summary: "The rollout's own line of its rollouts file, byte for byte",
    path: [run, rollout],
    ok: { description: 'the line', text: 'application/x-ndjson' },
    errors: true,
  },
  '/api/runs/{run}/rollouts/{rollout}/trajectory': {
    summary: "The rollout's ng_trajectory (as stored on its line, or projected as NeMo Gym's collector would), with its compactions and sandbox runs",
    path: [run, rollout],
    query: TR.TrajectoryQuerySchema,
    ok: { description: 'trajectory', schema: TR.TrajectoryResponseSchema },
    errors: true,
  },
  '/api/runs/{run}/tasks': {
    summary: "Task groups: per agent, NeMo Gym's pass@k metrics and a page of tasks (reward spread, pass@k, zero variance)",
    path: [run],
    query: T.TaskQuerySchema,
    ok: { description: 'page', schema: T.TaskPageSchema },
    errors: true,
  },
  '/api/runs/{run}/tasks/{task}': {
    summary: "One task's group and its rollouts, best to worst",
    path: [run, ['task', T.TaskIndexSchema]],
    query: T.TaskDetailQuerySchema,
    ok: { description: 'task', schema: T.TaskDetailSchema },
    errors: true,
  },
  '/api/compare': { summary: 'Token usage and the rest, side by side', query: CM.CompareQuerySchema, ok: { description: 'comparison', schema: CM.CompareSchema }, errors: true },
  '/api/compare/points': {
    summary: 'Per-rollout (tokens_total, reward) points per run, for the scatter',
    query: CM.PointsQuerySchema,
    ok: { description: 'points', schema: CM.PointsSchema },
    errors: true,
  },
  '/api/diff': {
    summary: "Two rollouts aligned call by call: per pair whether requests and responses differ, token and latency deltas, the first divergence; with pair, that pair's structural diffs",
    query: D.DiffQuerySchema,
    required: ['a', 'b'],
    ok: { description: 'diff', schema: D.DiffSchema },
    errors: true,
  },
  '/api/events': { summary: 'Server-Sent Events of index changes', ok: { description: 'event stream', text: 'text/event-stream' }, errors: false },
} as const satisfies Record<string, ApiRoute>;

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema: z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) } } });
const pathParam = (name: string, schema: z.ZodType) => ({ name, in: 'path', required: true, schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) });
const queryParams = (schema: z.ZodObject, required: readonly string[] = []) =>
  Object.entries(schema.shape).map(([name, s]) => ({ name, in: 'query', required: required.includes(name), schema: z.toJSONSchema(s as z.ZodType, { io: 'input', unrepresentable: 'any' }) }));

function operation(r: ApiRoute) {
  const parameters = [...(r.path ?? []).map(([name, schema]) => pathParam(name, schema)), ...(r.query ? queryParams(r.query, r.required) : [])];
  const ok = 'schema' in r.ok ? { description: r.ok.description, ...json(r.ok.schema) } : { description: r.ok.description, content: { [r.ok.text]: { schema: { type: 'string' } } } };
  const errors = { 400: { description: 'bad input', ...json(S.ErrorSchema) }, 404: { description: 'unknown id', ...json(S.ErrorSchema) }, 503: { description: 'not ready', ...json(S.ErrorSchema) } };
  return { get: { summary: r.summary, ...(parameters.length ? { parameters } : {}), responses: { 200: ok, ...(r.errors ? errors : {}) } } };
}

/**
 * A schema that names a part of itself (JsonDiffSchema: a z.lazy with a meta id) is written with `$defs` and refs to
 * `#/$defs/<id>`, which inside this document would point at its root: the parts move to components.schemas and the
 * refs follow them.
 */
function hoistDefs<T>(node: T, into: Record<string, unknown>): T {
  if (Array.isArray(node)) return node.map((v) => hoistDefs(v, into)) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$defs') for (const [id, def] of Object.entries(v as Record<string, unknown>)) into[id] = hoistDefs(def, into);
    else if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out[k] = `#/components/schemas/${v.slice('#/$defs/'.length)}`;
    else out[k] = hoistDefs(v, into);
  }
  return out as T;
}

export function openApiDocument() {
  const schemas: Record<string, unknown> = {};
  const paths = hoistDefs(Object.fromEntries(Object.entries(API_ROUTES as Record<string, ApiRoute>).map(([path, r]) => [path, operation(r)])), schemas);
  return {
    openapi: '3.1.0',
    info: { title: 'callscope', version: pkg.version, description: 'NeMo Gym model-call capture: runs, rollouts, calls and comparisons.' },
    paths,
    components: { schemas },
  };
}
