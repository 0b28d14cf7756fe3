// A results directory laid out as NeMo Gym leaves it (spec §8.1; upstream rollout_collection.py and
// reward_profile.py): `gym eval run --output results/x_rollouts.jsonl ++model_call_capture_dir=results/model-calls`
// writes `x_rollouts.jsonl`, `x_rollouts_materialized_inputs.jsonl`, `x_rollouts_aggregate_metrics.json` (and
// `x_rollouts_failures.jsonl` when rollouts failed) and one `<rollout_id>.capture.jsonl` per rollout in the capture
// dir; `gym eval profile` adds `x_rollouts_reward_profiling.jsonl` and `x_rollouts_agent_metrics.json`. The rollouts
// are a NeMo Gym-shaped fixture; the other files are derived from its lines in the shapes upstream writes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { rolloutIdOfLine } from '../../lib/capture/ids';
import type { JsonObject } from '../../lib/capture/json-value';
import { parsePython } from '../../lib/capture/json-parse';
import { line, makeExchange } from './exchange';

type Row = Record<string, unknown>;

/** The fixture's lines as plain objects (JSON.parse: numbers as numbers). */
export function rolloutRows(file: string): Row[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row);
}

const usageOf = (r: Row) => ((r.response as Row | undefined)?.usage as Row | null | undefined) ?? {};

/** The materialized input row of a rollout line: its request, the indices stamped, its agent (rollout_collection.py). */
function inputRow(r: Row): Row {
  const params = r.responses_create_params as Row;
  return { responses_create_params: { input: params.input }, _ng_task_index: r._ng_task_index, _ng_rollout_index: r._ng_rollout_index, agent_ref: r.agent_ref };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** pandas' std: the sample standard deviation; a single value reports 0 (reward_profile.py, describe_dataframe). */
const std = (xs: number[]) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)));

/** One reward-profiling line per task, as RewardProfiler.profile_from_data and write_to_disk make them. */
export function rewardProfileLines(rows: Row[]): Row[] {
  const byTask = new Map<number, Row[]>();
  for (const r of rows) byTask.set(r._ng_task_index as number, [...(byTask.get(r._ng_task_index as number) ?? []), r]);
  return [...byTask.keys()].sort((a, b) => a - b).map((t) => {
    const group = byTask.get(t)!.sort((a, b) => (a._ng_rollout_index as number) - (b._ng_rollout_index as number));
    const columns: Record<string, number[]> = { reward: group.map((r) => r.reward as number) };
    for (const k of ['input_tokens', 'output_tokens', 'total_tokens']) {
      const vs = group.map((r) => usageOf(r)[k]).filter((v): v is number => typeof v === 'number');
      if (vs.length) columns[k] = vs;
    }
    const out: Row = { _ng_task_index: t };
    for (const [stat, f] of [['mean', mean], ['max', (xs: number[]) => Math.max(...xs)], ['min', (xs: number[]) => Math.min(...xs)], ['median', median], ['std', std]] as const) {
      for (const [k, vs] of Object.entries(columns)) out[`${stat}/${k}`] = f(vs);
    }
    const { _ng_task_index: _t, _ng_rollout_index: _r, ...sample } = inputRow(group[0]);
    out.sample = sample;
    out.num_rollouts = group.length;
    out.expected_num_rollouts = group.length;
    out.missing_num_rollouts = 0;
    out.reward_profile_completion_pct = 100.0;
    out.rollout_infos = group.map((r) => ({ rollout_id: `${t}:${r._ng_rollout_index}`, _ng_task_index: t, _ng_rollout_index: r._ng_rollout_index, reward: r.reward }));
    return out;
  });
}

export interface GymEvalRun {
  /** The rollouts file. */
  rollouts: string;
  /** Rollout ids of its lines (those a capture file was written for). */
  ids: string[];
}

/**
 * Writes `<dir>/<stem>.jsonl` from the fixture and the files NeMo Gym writes beside it; `captureDir` (a path
 * relative to `dir`) gets one capture file per rollout; `profile` adds `gym eval profile`'s two files; `inputsFrom`
 * copies another run's materialized inputs (the same tasks dispatched again) instead of deriving them.
 */
export function writeGymEvalRun(dir: string, stem: string, fixture: string, opts: { captureDir?: string; profile?: boolean; failures?: boolean; inputsFrom?: string; edit?: (r: Row) => Row } = {}): GymEvalRun {
  mkdirSync(dir, { recursive: true });
  const rows = rolloutRows(fixture).map((r) => (opts.edit ? opts.edit(r) : r));
  const rollouts = path.join(dir, `${stem}.jsonl`);
  // The fixture's own bytes unless edited (its floats stay `1.0`).
  writeFileSync(rollouts, opts.edit ? rows.map((r) => JSON.stringify(r) + '\n').join('') : readFileSync(fixture));
  const inputs = path.join(dir, `${stem}_materialized_inputs.jsonl`);
  if (opts.inputsFrom) writeFileSync(inputs, readFileSync(opts.inputsFrom));
  else writeFileSync(inputs, rows.map((r) => JSON.stringify(inputRow(r)) + '\n').join(''));
  const agent = ((rows[0]?.agent_ref as Row | undefined)?.name as string | undefined) ?? 'simple_agent';
  writeFileSync(
    path.join(dir, `${stem}_aggregate_metrics.json`),
    JSON.stringify([{ agent_ref: { name: agent }, agent_metrics: { 'mean/reward': mean(rows.map((r) => r.reward as number)) }, key_metrics: {}, group_level_metrics: rewardProfileLines(rows) }], null, 2),
  );
  if (opts.failures) {
    writeFileSync(path.join(dir, `${stem}_failures.jsonl`), JSON.stringify({ ...rows[0], _ng_rollout_index: 1, _ng_failure_class: 'agent_error' }) + '\n');
  }
  if (opts.profile) {
    writeFileSync(path.join(dir, `${stem}_reward_profiling.jsonl`), rewardProfileLines(rows).map((r) => JSON.stringify(r) + '\n').join(''));
    writeFileSync(path.join(dir, `${stem}_agent_metrics.json`), JSON.stringify([{ agent_ref: { name: agent }, 'mean/reward': mean(rows.map((r) => r.reward as number)) }]));
  }
  const ids = rows.map((r) => rolloutIdOfLine(parsePython(JSON.stringify(r)) as JsonObject)!).filter(Boolean);
  if (opts.captureDir) {
    const captures = path.join(dir, opts.captureDir);
    mkdirSync(captures, { recursive: true });
    for (const id of ids) writeFileSync(path.join(captures, `${id}.capture.jsonl`), line(makeExchange({ model_call_id: `call-${id}` })));
  }
  return { rollouts, ids };
}
