// T2's corpus (docs/design targets.md): the bench corpus with a trajectory on every rollout, written as NeMo Gym's
// collector writes it. Each rollout line gets the ng_agent_observations an observing agent would emit for its
// captured calls (one invocation owning them all by model_call_id, a tool call per function call its responses asked
// for, timed by the harness from the end of the requesting call to the start of the next), then the collector's
// merge (with the observations' join) and projection: payloads move from the capture calls into
// ng_trajectory.model_calls, as in persisted NeMo Gym rollouts. Capture files are hard links to the source's.
import { closeSync, createWriteStream, existsSync, fstatSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { collectCapture } from '../../../lib/capture/attachment';
import { mergeCaptureIntoLine } from '../../../lib/rollouts/merge-capture';
import { rolloutIdFromBody } from '../../../lib/capture/ids';
import { isJsonObject, numericValue, type JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { readLinesSync } from '../../../lib/index/ingest/line-reader';
import { attachTrajectoryRecord } from '../../../lib/rollouts/collector';

const SIDECAR = '.callscope-bench-trajectories.json';

/** The observations an agent that observes itself would emit for these calls. */
export function observationsFor(records: readonly JsonObject[]): JsonObject {
  const tools: JsonObject[] = [];
  const seen = new Set<string>();
  records.forEach((r, i) => {
    const start = numericValue(r.completed_at);
    const next = numericValue(records[i + 1]?.started_at);
    for (const t of Array.isArray(r.tool_calls) ? r.tool_calls.filter(isJsonObject) : []) {
      const id = typeof t.call_id === 'string' && t.call_id ? t.call_id : null;
      if (!id || seen.has(id)) continue;
      seen.add(id);
      const end = start !== null && next !== null && next >= start ? next : start;
      tools.push({
        kind: 'tool_call',
        invocation_id: 'main',
        tool_call_id: id,
        tool_name: typeof t.name === 'string' ? t.name : null,
        started_at: start,
        completed_at: end,
        duration_ms: start !== null && end !== null ? (end - start) * 1000 : null,
        timing_source: start !== null ? 'harness' : null,
        status: 'completed',
      });
    }
  });
  const refs = records.filter((r) => typeof r.model_call_id === 'string' && r.model_call_id).map((r) => ({ model_call_id: r.model_call_id }));
  return {
    source: 'bench',
    records: [{ kind: 'agent_invocation', invocation_id: 'main', status: 'completed', model_calls: refs, conversation: [] }, ...tools],
    gaps: [{ code: 'no_sandbox_runtime' }],
  };
}

/** `dest` as `src` with trajectories (reused when its sidecar names the same source); returns what it holds. */
export async function ensureTrajectoryCorpus(src: string, dest: string): Promise<{ reused: boolean; lines: number; tool_calls: number }> {
  const sidecar = path.join(dest, SIDECAR);
  const source = readFileSync(path.join(src, '.callscope-bench.json'), 'utf8');
  if (existsSync(sidecar)) {
    const have = JSON.parse(readFileSync(sidecar, 'utf8'));
    if (have.source === source) return { reused: true, lines: have.lines, tool_calls: have.tool_calls };
  }
  rmSync(dest, { recursive: true, force: true });
  let lines = 0;
  let toolCalls = 0;
  for (const run of readdirSync(src, { withFileTypes: true })) {
    if (!run.isDirectory()) continue;
    const from = path.join(src, run.name);
    const to = path.join(dest, run.name);
    const captures = path.join(from, 'captures');
    mkdirSync(path.join(to, 'captures'), { recursive: true });
    if (existsSync(captures)) for (const name of readdirSync(captures)) linkSync(path.join(captures, name), path.join(to, 'captures', name));
    const rollouts = path.join(from, 'rollouts.jsonl');
    if (!existsSync(rollouts)) continue;
    const out = createWriteStream(path.join(to, 'rollouts.jsonl'));
    const pending: JsonObject[] = [];
    const fd = openSync(rollouts, 'r');
    try {
      readLinesSync(fd, 0, fstatSync(fd).size, 1, (bytes) => {
        if (bytes.toString('latin1').trim()) pending.push(parsePython(bytes) as JsonObject);
      });
    } finally {
      closeSync(fd);
    }
    for (const line of pending) {
      const id = rolloutIdFromBody(line);
      if (id !== null) {
        const evidence = await collectCapture([captures], id, false);
        const bundle = observationsFor(evidence.records as unknown as JsonObject[]);
        toolCalls += (bundle.records as JsonObject[]).length - 1;
        line.ng_agent_observations = bundle;
        await mergeCaptureIntoLine(line, [captures], true);
        attachTrajectoryRecord(line, line);
      }
      if (!out.write(serialize(line) + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      lines++;
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  writeFileSync(path.join(dest, '.callscope-demo'), '');
  writeFileSync(sidecar, JSON.stringify({ source, lines, tool_calls: toolCalls }, null, 2) + '\n');
  return { reused: false, lines, tool_calls: toolCalls };
}
