// The collector's `ng_trajectory` projection (_build_trajectory_record in nemo_gym/rollout_collection.py,
// spec §5.4): producer trajectory, agent observations and capture calls merged into one TrajectoryRecord. A
// Python exception becomes a ProjectionError carrying the class name upstream's gaps record as `detail`.
import { isJsonObject, JsonFloat, keysOf, setKey, type JsonObject, type JsonValue } from '../capture/json-value';
import { rolloutIdFromBody } from '../capture/ids';
import { dedupGaps, gap } from './join';
import { observationGap, validateBundle } from './observations';
import { withoutNulls } from './pymodel';
import { trajectoryModelCall, trajectoryRecord, trajectoryToolCall, validateTrajectory } from './trajectory-model';

export class ProjectionError extends Error {
  constructor(
    message: string,
    readonly pythonClass: string,
  ) {
    super(message);
    this.name = 'ProjectionError';
  }
}

function check(r: ReturnType<typeof trajectoryModelCall.validate>): JsonObject {
  if (!r.ok) throw new ProjectionError(r.problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; '), 'ValidationError');
  return r.value as JsonObject;
}

/** Python's repr() of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const [mantissa, exp] = n.toExponential().split('e');
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  const s = String(n); // JS writes plain digits in this range
  return s.includes('.') ? s : `${s}.0`;
}

/** Python's str() of a JSON scalar (enough for ids: str, int, float, bool). */
function pyStr(v: JsonValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? String(v) : pyFloatRepr(v);
  if (v instanceof JsonFloat) return pyFloatRepr(v.value);
  return JSON.stringify(v); // containers: not an id upstream would meet (Python would write their repr)
}

export function trajectoryIdentity(row: JsonObject): { task_id: string; rollout_id: string } {
  // next(...)'s default is evaluated first, so a row without _ng_task_index raises even with a task_id
  if (!Object.prototype.hasOwnProperty.call(row, '_ng_task_index')) throw new ProjectionError("'_ng_task_index'", 'KeyError');
  const fallback = pyStr(row._ng_task_index);
  const key = ['task_id', 'problem_id', 'instance_id'].find((k) => row[k] !== undefined && row[k] !== null);
  const task_id = key ? pyStr(row[key]) : fallback;
  let id: string | null;
  try {
    id = rolloutIdFromBody(row);
  } catch (err) {
    throw new ProjectionError((err as Error).message, 'ValueError');
  }
  if (!id) {
    if (!Object.prototype.hasOwnProperty.call(row, '_ng_rollout_index')) throw new ProjectionError("'_ng_rollout_index'", 'KeyError');
    id = `${pyStr(row._ng_task_index)}-${pyStr(row._ng_rollout_index)}`;
  }
  return { task_id, rollout_id: id };
}

const copy = (o: JsonObject): JsonObject => {
  const out: JsonObject = {};
  for (const k of keysOf(o)) setKey(out, k, o[k]);
  return out;
};
const update = (target: JsonObject, source: JsonObject) => {
  for (const k of keysOf(source)) setKey(target, k, source[k]);
};
/** Python iteration of `x or []` over a JSON value; a truthy number or bool is not iterable. */
function iterate(v: JsonValue | undefined): JsonValue[] {
  if (Array.isArray(v)) return v;
  if (v === undefined || v === null || v === false || v === 0 || v === '') return [];
  if (typeof v === 'string') return [...v];
  if (isJsonObject(v)) return keysOf(v);
  if (typeof v === 'object' && v.value === 0) return [];
  throw new ProjectionError('object is not iterable', 'TypeError');
}
const META_KEYS = ['response_id', 'model_ref', 'model', 'dialect', 'status_code', 'response_status', 'finish_reason', 'error_category', 'latency_ttft_ms'];
const nonNegativeInt = (v: JsonValue | undefined): JsonValue => ((typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'bigint' && v >= 0n) ? v : null);

/** _build_trajectory_record(row, result): the dumped TrajectoryRecord. Throws ProjectionError. */
export function buildTrajectoryRecord(row: JsonObject, result: JsonObject): JsonObject {
  const { task_id, rollout_id } = trajectoryIdentity(row);
  const gaps: JsonObject[] = [];
  let invocations: JsonObject[] = [];
  let turns: JsonObject[] = [];
  let tools: JsonObject[] = [];
  let modelCalls: JsonObject[] = [];

  const rawTrajectory = result.ng_trajectory;
  if (isJsonObject(rawTrajectory)) {
    const t = validateTrajectory(rawTrajectory);
    if (t.ok) {
      const traj = t.value;
      const mismatches = (['task_id', 'rollout_id'] as const).filter((f) => traj[f] !== (f === 'task_id' ? task_id : rollout_id));
      turns = traj.turns as JsonObject[];
      if (mismatches.length) {
        gaps.push(gap('producer_trajectory_identity_mismatch', null, mismatches.join(',')));
        turns = turns.map((turn) => Object.assign(copy(turn), { task_id, rollout_id }));
      }
      gaps.push(...(traj.gaps as JsonObject[]));
      invocations = traj.invocations as JsonObject[];
      tools = traj.tool_calls as JsonObject[];
      modelCalls = traj.model_calls as JsonObject[];
    } else gaps.push(gap('producer_trajectory_invalid', null, 'ValidationError'));
  }

  const rawObservations = result.ng_agent_observations;
  if (rawObservations !== undefined && rawObservations !== null) {
    const v = validateBundle(rawObservations);
    if (!v.ok) gaps.push(gap('agent_observations_invalid', null, 'ValidationError'));
    else {
      const records = v.value.records as JsonObject[];
      gaps.push(...(v.value.gaps as JsonObject[]));
      const producerIds = new Set(invocations.map((i) => i.invocation_id));
      invocations.push(...records.filter((r) => r.kind === 'agent_invocation' && !producerIds.has(r.invocation_id)));
      const observed = records.filter((r) => r.kind === 'tool_call');
      if (observed.length) {
        const outputs = new Map<string, JsonValue>();
        for (const inv of invocations)
          for (const item of inv.conversation as JsonObject[])
            if (item.type === 'function_call_output') outputs.set(JSON.stringify([inv.invocation_id, item.call_id]), item.output);
        const positions = new Map(tools.map((t, i) => [JSON.stringify([t.invocation_id, t.tool_call_id]), i]));
        for (const obs of observed) {
          const key = JSON.stringify([obs.invocation_id, obs.tool_call_id]);
          const position = positions.get(key);
          const existing = position !== undefined ? tools[position] : undefined;
          const merged = existing ? copy(existing) : {};
          const upd = withoutNulls(obs);
          if (existing && obs.status === 'unknown' && existing.status !== 'unknown') delete upd.status;
          update(merged, upd);
          if (outputs.has(key)) setKey(merged, 'output', outputs.get(key)!);
          const r = trajectoryToolCall.validate(merged, []);
          if (!r.ok) {
            gaps.push(gap('agent_observations_invalid', null, 'ValidationError'));
            break;
          }
          if (position === undefined) {
            positions.set(key, tools.length);
            tools.push(r.value as JsonObject);
          } else tools[position] = r.value as JsonObject;
        }
      }
    }
  }

  turns = [...turns].sort((a, b) => {
    const ta = (a.timestamp as { value: number }).value;
    const tb = (b.timestamp as { value: number }).value;
    if (ta !== tb) return ta < tb ? -1 : 1;
    if (a.invocation_id !== b.invocation_id) return (a.invocation_id as string) < (b.invocation_id as string) ? -1 : 1;
    return Number(a.turn_no) - Number(b.turn_no);
  });

  const capture = isJsonObject(result.ng_model_call_capture) ? result.ng_model_call_capture : {};
  const callPositions = new Map<string, number>();
  modelCalls.forEach((c, i) => typeof c.model_call_id === 'string' && callPositions.set(c.model_call_id, i));
  for (const raw of iterate(capture.calls)) {
    if (!isJsonObject(raw)) continue;
    const metadata: JsonObject = {};
    for (const k of META_KEYS) if (raw[k] !== undefined && raw[k] !== null) setKey(metadata, k, raw[k]);
    const response = raw.response;
    if (isJsonObject(response) && typeof response.status === 'string' && metadata.response_status === undefined) setKey(metadata, 'response_status', response.status);
    const got = (k: string) => (raw[k] === undefined ? null : raw[k]);
    let projected = check(
      trajectoryModelCall.validate(
        {
          model_call_id: got('model_call_id'),
          started_at: got('started_at'),
          completed_at: got('completed_at'),
          duration_ms: got('latency_total_ms'),
          request: got('request') !== null ? got('request') : got('request_raw'),
          response: got('response') !== null ? got('response') : got('response_raw'),
          response_metadata: metadata,
          token_stats: {
            prompt_tokens: nonNegativeInt(raw.tokens_in),
            completion_tokens: nonNegativeInt(raw.tokens_out),
            reasoning_tokens: nonNegativeInt(raw.tokens_reasoning),
            total_tokens: nonNegativeInt(raw.tokens_total),
            cached_tokens: nonNegativeInt(raw.cached_tokens),
          },
        },
        [],
      ),
    );
    const id = projected.model_call_id;
    const position = typeof id === 'string' ? callPositions.get(id) : undefined;
    if (typeof id === 'string') callPositions.delete(id);
    if (position === undefined) modelCalls.push(projected);
    else {
      const merged = copy(modelCalls[position]);
      const upd = withoutNulls(projected);
      for (const k of ['response_metadata', 'token_stats']) {
        const inner = copy(merged[k] as JsonObject);
        update(inner, withoutNulls(upd[k] as JsonObject));
        merged[k] = inner;
        delete upd[k];
      }
      update(merged, upd);
      projected = check(trajectoryModelCall.validate(merged, []));
      modelCalls[position] = projected;
    }
  }

  for (const raw of iterate(capture.gaps)) {
    if (!isJsonObject(raw)) continue;
    const r = observationGap.validate(raw, []);
    gaps.push(r.ok ? (r.value as JsonObject) : gap('model_call_capture_gap_invalid'));
  }
  if (!modelCalls.length) gaps.push(gap('model_calls_unavailable'));
  if (!turns.length) gaps.push(gap('turns_unavailable'));
  if (!invocations.some((i) => (i.conversation as JsonValue[]).length > 0)) gaps.push(gap('conversation_unavailable'));

  const record = trajectoryRecord.validate(
    { task_id, rollout_id, invocations, turns, model_calls: modelCalls, tool_calls: tools, gaps: dedupGaps(gaps) },
    [],
  );
  if (!record.ok) throw new ProjectionError(record.problems.map((p) => p.message).join('; '), 'ValidationError');
  return record.value as JsonObject;
}
