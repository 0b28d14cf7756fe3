// bench:clickhouse's generated metadata set: runs of rollouts and their calls written straight into the index's own
// ClickHouse tables (lib/index/clickhouse/schema.ts) by INSERT … SELECT over numbers(), no payload files. The calls
// come first, shaped as NeMo Gym writes them (a uuid4().hex id, time.time() floats unrounded, latencies rounded to
// 2 decimals, a conversation that grows call by call, offsets into a capture file per rollout); each rollout row is
// then the aggregate of its calls, as the ingest computes it, so totals, sorts and compare figures are consistent.
// Values are hashes of the row number and a seed: the same arguments give the same set.
import type { ClickHouseClient } from '@clickhouse/client';

export interface GeneratedSet {
  runs: number;
  rolloutsPerRun: number;
  callsPerRollout: number;
  /** Rollouts per task (rollout_index 0..k-1). */
  k: number;
  seed: number;
}

export const runId = (i: number) => `gen-${String(i).padStart(2, '0')}`;
/** The root every generated run claims (the reader serves runs under its PATHs only). */
export const GENERATED_ROOT = '/bench/generated';

/** The runs' registry rows, spread over months (each run's rows are in its month's partition). */
async function writeRuns(client: ClickHouseClient, db: string, s: GeneratedSet): Promise<void> {
  const values = Array.from({ length: s.runs }, (_, i) => {
    const root = `${GENERATED_ROOT}/${runId(i)}`;
    return {
      id: runId(i), root, rollouts_file: `${root}/rollouts.jsonl`, failures_file: null, capture_dir: null, capture_dir_note: null,
      reward_profile_file: null, aggregate_metrics_file: null, inputs_file: null, run_month: 202607 + (i % 6), ord: i, version: 1,
    };
  });
  await client.insert({ table: `${db}.runs`, values, format: 'JSONEachRow' });
}

/** `h(k)`: a 64-bit hash of the row and the seed, one stream per k. */
const h = (k: number, of = 'number') => `cityHash64(${of}, {seed:UInt64}, ${k})`;

function callsInsert(db: string, s: GeneratedSet): string {
  const c = s.callsPerRollout;
  // number → rollout r (0-based within the run) and call i; the rollout's key, task and rollout index from r.
  return `INSERT INTO ${db}.calls (key, run, run_month, rollout_pk, call_index, model_call_id, file_id, line_offset, line_length, req_off, req_len,
      resp_off, resp_len, model_server, model, dialect, status_code, response_status, finish_reason, error_category, started_at, completed_at,
      tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, cache_creation_tokens, cache_hit, latency_ms, ttft_ms, tool_calls, version)
    SELECT key, {run:String}, {month:UInt32}, r + 1, i, model_call_id, r + 2, line_offset, line_length, req_off, req_len, resp_off, resp_len,
      'policy_model', 'Qwen/Qwen3-8B', 'responses', if(err, 500, 200), if(err, NULL, 'completed'), if(err, NULL, if(${h(3)} % 12 = 0, 'length', 'stop')),
      if(err, 'upstream_5xx', NULL), started_at, started_at + latency / 1000 + (${h(4)} % 1000) / 1e7, tokens_in, tokens_out, tokens_reasoning,
      tokens_in + tokens_out, cached, NULL, NULL, latency, if(err, NULL, round(latency * (0.05 + (${h(5)} % 100) / 1000), 2)), if(err, 0, toInt64(${h(6)} % 3)), 1
    FROM (
      SELECT number, intDiv(number, ${c}) AS r, number % ${c} AS i,
        concat('t', toString(intDiv(r, ${s.k})), '-r', toString(r % ${s.k})) AS key,
        lower(hex(reinterpretAsFixedString(${h(1)})) || hex(reinterpretAsFixedString(${h(2)}))) AS model_call_id,
        ${h(7)} % 997 = 0 AS err,
        toInt64(4000 + i * 1500 + ${h(8)} % 3000) AS line_length,
        toInt64(i * 4000 + i * (i - 1) * 750 + ${h(9)} % 1000) AS line_offset,
        toInt64(180 + ${h(10)} % 40) AS req_off, toInt64(line_length * 0.55) AS req_len, req_off + req_len + 21 AS resp_off, line_length - resp_off - 320 AS resp_len,
        1786032153 + {runStart:Float64} + r * 0.731 + i * 4.2 + (${h(11)} % 1000000) / 1e6 + (${h(12)} % 1000) / 1e10 AS started_at,
        round(200 + (${h(13)} % 450000) / 100, 2) AS latency,
        toInt64(600 + i * 450 + ${h(14)} % 400) AS tokens_in, toInt64(40 + ${h(15)} % 900) AS tokens_out, toInt64(${h(16)} % 600) AS tokens_reasoning,
        if(i = 0, toInt64(0), toInt64(intDiv(tokens_in, 64) * 64 - 64)) AS cached
      FROM numbers({calls:UInt64})
    )`;
}

/** Each rollout row from its calls (the ingest's aggregates: sums, max, p50 of TTFT, error and tag columns). */
function rolloutsInsert(db: string, s: GeneratedSet): string {
  return `INSERT INTO ${db}.rollouts (run, run_month, pk, key, rollout_id, line_file, line_no, line_offset, line_length, reward, task_index, rollout_index, agent, task,
      search, source, prompt, order_key, num_calls, tokens_in, tokens_out, tokens_reasoning, tokens_total, cached_tokens, latency_sum, latency_max, ttft_p50,
      errors, gap_count, model_servers, dialects, error_categories, started_at, completed_at, capture_file, line_path, line_kind, version)
    SELECT run, run_month, pk, key, key, 1, pk, (pk - 1) * 9000 + ${h(20, 'pk')} % 500, toInt64(6000 + ${h(21, 'pk')} % 3000),
      if((${h(22, 'pk')} % 1000) / 1000 < difficulty, 1.0, 0.0), task_index, rollout_index, 'simple_agent', task, lower(task), 'capture', task, key,
      n, tin, tout, treason, ttotal, tcached, lsum, lmax, tp50, errs, 0, '|policy_model|', '|responses|', if(errs > 0, '|upstream_5xx|', NULL),
      s0, s1, pk + 1, {linePath:String}, 'rollouts', 1
    FROM (
      SELECT run, run_month, any(rollout_pk) AS pk, key, intDiv(pk - 1, ${s.k}) AS task_index, (pk - 1) % ${s.k} AS rollout_index,
        (${h(23, 'task_index')} % 1000) / 1000 AS difficulty,
        concat('Problem ', toString(task_index), ': find every integer n below ', toString(${h(24, 'task_index')} % 100000), ' such that n^2 + ',
          toString(${h(25, 'task_index')} % 97), ' is divisible by ', toString(3 + ${h(26, 'task_index')} % 40), '.') AS task,
        count() AS n, sum(tokens_in) AS tin, sum(tokens_out) AS tout, sum(tokens_reasoning) AS treason, sum(tokens_total) AS ttotal, sum(cached_tokens) AS tcached,
        sum(latency_ms) AS lsum, max(latency_ms) AS lmax, quantileExactLow(0.5)(ttft_ms) AS tp50, countIf(error_category IS NOT NULL) AS errs,
        min(started_at) AS s0, max(completed_at) AS s1
      FROM ${db}.calls WHERE run = {run:String} GROUP BY run, run_month, key
    )`;
}

/** Writes the set run by run; returns the seconds each part took. */
export async function generate(client: ClickHouseClient, db: string, s: GeneratedSet, log: (m: string) => void): Promise<{ calls_s: number; rollouts_s: number; optimize_s: number }> {
  await writeRuns(client, db, s);
  const took = { calls_s: 0, rollouts_s: 0, optimize_s: 0 };
  // Merged once at the end: background merges of a growing table would otherwise take the cores from the inserts.
  for (const table of ['calls', 'rollouts']) await client.command({ query: `SYSTEM STOP MERGES ${db}.${table}` });
  for (let i = 0; i < s.runs; i++) {
    const params = {
      seed: s.seed + i, run: runId(i), month: 202607 + (i % 6), calls: s.rolloutsPerRun * s.callsPerRollout, runStart: String(i * 86400 * 3),
      linePath: `${GENERATED_ROOT}/${runId(i)}/rollouts.jsonl`,
    };
    let t = performance.now();
    await client.command({ query: callsInsert(db, s), query_params: params, clickhouse_settings: { max_insert_threads: 2, max_threads: 2 } as never });
    took.calls_s += (performance.now() - t) / 1000;
    t = performance.now();
    await client.command({ query: rolloutsInsert(db, s), query_params: params });
    took.rollouts_s += (performance.now() - t) / 1000;
    log(`  ${runId(i)}: ${s.rolloutsPerRun} rollouts, ${s.rolloutsPerRun * s.callsPerRollout} calls`);
  }
  // Merged as a long-lived database would be (a merge runs in the background on a server; chdb merges when asked).
  const t = performance.now();
  for (const table of ['calls', 'rollouts']) {
    await client.command({ query: `SYSTEM START MERGES ${db}.${table}` });
    await client.command({ query: `OPTIMIZE TABLE ${db}.${table} FINAL` });
  }
  took.optimize_s = (performance.now() - t) / 1000;
  return took;
}
