// GET /api/diff and the /diff page: two rollouts' calls read for lib/rollouts/diff.ts, from the index's call
// columns and the byte spans of their payloads. A capture file is read in one pass over the range its calls'
// lines cover (not one read per call: a 1,000-call rollout is 2,000 payload spans); calls that come from a rollout
// line's attachment take their payloads from its trajectory (spec §5.2), as the call page does. A rollout with no
// calls at all is its line's conversation as one call: `responses_create_params` as the request, `response` as the
// response (source 'line').
//
// The pairs of two rollouts are kept (a few, per process, keyed by both rollouts' versions), so that opening one
// pair after another reads just that pair's two calls.
import { promises as fsp } from 'node:fs';
import type { Diff, DiffSideInfo } from '../../api/diff-schemas';
import type { JsonObject, JsonValue } from '../../capture/json-value';
import { serialize } from '../../capture/json-serialize';
import { diffPair, diffRollouts, type DiffCall, type DiffSide, type PairSummary } from '../../rollouts/diff';
import type { CallPayload } from '../../rollouts/diff-shape';
import type { IndexReader } from '../reader';
import { loadRolloutLine, trajectoryPayloads, type CallLocation } from '../queries/payload';
import type { RolloutRow } from '../queries/rollouts';
import { alignTools, toolsById } from '../../rollouts/diff-tools';
import { rolloutTrajectory } from '../queries/trajectory';
import { skippedContainerEnd } from '../scan/fast-scan';

export interface RolloutRef {
  run: string;
  rollout: string;
}

const CACHE_SIZE = 4;
/** Bytes of consecutive capture lines read at once. */
const READ_CHUNK = 64 << 20;
const CACHE = Symbol.for('callscope.rolloutDiffCache');
type Cached = { key: string; body: Diff };
const cache = (): Cached[] => ((globalThis as { [CACHE]?: Cached[] })[CACHE] ??= []);

const versionOf = (r: RolloutRow) => [r.pk, r.num_calls, r.tokens_total, r.latency_sum, r.errors, r.unreadable, r.marker, r.line_no].join('|');

/** The pairs of two rollouts (every pair, as summaries), or null when either is unknown. */
export async function rolloutDiff(index: IndexReader, a: RolloutRef, b: RolloutRef): Promise<Diff | null> {
  const [ra, rb] = await Promise.all([index.rollout(a.run, a.rollout), index.rollout(b.run, b.rollout)]);
  if (!ra || !rb) return null;
  const key = `${a.run}/${a.rollout}\u0000${versionOf(ra)}\u0000${b.run}/${b.rollout}\u0000${versionOf(rb)}`;
  const hit = cache().find((c) => c.key === key);
  if (hit) return hit.body;
  const [sa, sb] = await Promise.all([readSide(index, a, ra), readSide(index, b, rb)]);
  const body: Diff = { a: sa.info, b: sb.info, ...diffRollouts(sa.side, sb.side, skippedContainerEnd) };
  await addTools(index, body, [a, ra], [b, rb]);
  const list = cache();
  list.unshift({ key, body });
  list.length = Math.min(list.length, CACHE_SIZE);
  return body;
}

/** Each pair's tool calls, from the two trajectories (when either rollout has one). */
async function addTools(index: IndexReader, body: Diff, [a, ra]: [RolloutRef, RolloutRow], [b, rb]: [RolloutRef, RolloutRow]): Promise<void> {
  if (ra.trajectory_source === null && rb.trajectory_source === null) return;
  const [ta, tb] = await Promise.all([rolloutTrajectory(index, a.run, a.rollout, { includePayloads: false }), rolloutTrajectory(index, b.run, b.rollout, { includePayloads: false })]);
  const toolsA = toolsById((ta?.trajectory ?? null) as JsonObject | null);
  const toolsB = toolsById((tb?.trajectory ?? null) as JsonObject | null);
  const requested = (t: typeof ta, ref: string | null) => (ref !== null && t ? t.requested_tools[ref] ?? [] : []);
  for (const p of body.pairs) p.tools = alignTools(requested(ta, p.a_ref), requested(tb, p.b_ref), toolsA, toolsB);
}

/** One pair with its full request and response diffs; null when either rollout, or the pair, is unknown. */
export async function rolloutDiffPair(index: IndexReader, a: RolloutRef, b: RolloutRef, pair: number): Promise<Diff | null> {
  const body = await rolloutDiff(index, a, b);
  const p = body?.pairs[pair];
  if (!body || !p) return null;
  const [pa, pb] = await Promise.all([onePayload(index, a, body.a, p.a_call), onePayload(index, b, body.b, p.b_call)]);
  const full: PairSummary = { ...p, ...diffPair(pa, pb) };
  return { ...body, pairs: [full], pair };
}

async function onePayload(index: IndexReader, ref: RolloutRef, info: DiffSideInfo, callIndex: number | null): Promise<CallPayload | null> {
  if (callIndex === null) return null;
  const row = await index.rollout(ref.run, ref.rollout);
  if (!row) return null;
  if (info.source === 'line') return (await lineSide(index, ref, row)).side.payloads[0] ?? null;
  const loc = await index.callLocation(ref.run, ref.rollout, `i${callIndex}`);
  if (!loc) return null;
  return (await payloadsOf(index, ref, row, [loc], [loc.dialect]))[0] ?? null;
}

async function readSide(index: IndexReader, ref: RolloutRef, row: RolloutRow): Promise<{ info: DiffSideInfo; side: DiffSide }> {
  const rows = (await index.rolloutCalls(ref.run, ref.rollout)) ?? [];
  if (rows.length === 0) return lineSide(index, ref, row);
  const calls: DiffCall[] = rows.map((c) => ({
    call_index: c.call_index,
    ref: c.model_call_id ?? `i${c.call_index}`,
    model_server: c.model_server,
    tokens_total: c.tokens_total,
    latency_ms: c.latency_ms,
  }));
  const payloads = await payloadsOf(index, ref, row, (await index.callLocations(ref.run, ref.rollout)) ?? [], rows.map((c) => c.dialect));
  const source = row.source === 'attachment' ? 'attachment' : 'capture';
  return { info: { ...ref, source, calls: calls.length, reward: row.reward, task_index: row.task_index }, side: { calls, payloads } };
}

const bytesOf = (v: JsonValue | undefined): Buffer | null => {
  if (v === undefined || v === null) return null;
  try {
    return Buffer.from(serialize(v));
  } catch {
    return null;
  }
};

async function lineSide(index: IndexReader, ref: RolloutRef, row: RolloutRow): Promise<{ info: DiffSideInfo; side: DiffSide }> {
  const line = await lineOf(index, ref);
  const info: DiffSideInfo = { ...ref, source: line ? 'line' : 'none', calls: 0, reward: row.reward, task_index: row.task_index };
  if (!line) return { info, side: { calls: [], payloads: [] } };
  const call: DiffCall = { call_index: 0, ref: 'line', model_server: null, tokens_total: row.usage_total, latency_ms: null };
  return { info, side: { calls: [call], payloads: [{ request: bytesOf(line.responses_create_params), response: bytesOf(line.response), dialect: 'responses' }] } };
}

async function lineOf(index: IndexReader, ref: RolloutRef): Promise<JsonObject | null> {
  const span = await index.lineLocation(ref.run, ref.rollout);
  if (!span) return null;
  try {
    return await loadRolloutLine(span.path, span.start, span.length);
  } catch {
    return null;
  }
}

/** Each location's request and response bytes, in the given order. */
async function payloadsOf(index: IndexReader, ref: RolloutRef, row: RolloutRow, locs: CallLocation[], dialects: (string | null)[]): Promise<CallPayload[]> {
  const out: CallPayload[] = locs.map((_, i) => ({ request: null, response: null, dialect: dialects[i] ?? null }));
  const byPath = new Map<string, number[]>();
  locs.forEach((l, i) => {
    if (l.kind !== 'capture') return;
    const list = byPath.get(l.path);
    if (list) list.push(i);
    else byPath.set(l.path, [i]);
  });
  for (const [file, which] of byPath) {
    let handle: fsp.FileHandle | null = null;
    try {
      handle = await fsp.open(file, 'r');
      which.sort((x, y) => locs[x].line_offset - locs[y].line_offset);
      // Consecutive lines read together, up to READ_CHUNK at a time (one line alone may be longer).
      for (let k = 0; k < which.length; ) {
        const from = locs[which[k]].line_offset;
        let to = from + locs[which[k]].line_length;
        let end = k + 1;
        for (; end < which.length; end++) {
          const l = locs[which[end]];
          if (l.line_offset + l.line_length - from > READ_CHUNK) break;
          to = Math.max(to, l.line_offset + l.line_length);
        }
        const buf = await readRange(handle, from, to - from);
        for (; k < end; k++) {
          const l = locs[which[k]];
          const span = (off: number | null, len: number | null) => (off === null || len === null || off + len - from > buf.length ? null : buf.subarray(off - from, off - from + len));
          out[which[k]].request = span(l.req_off, l.req_len);
          out[which[k]].response = span(l.resp_off, l.resp_len);
        }
      }
    } catch {
      // A capture file gone under the index: its calls have no payloads to compare.
    } finally {
      await handle?.close();
    }
  }
  if (locs.some((l) => l.kind !== 'capture') && row.line_no !== null) {
    const line = await lineOf(index, ref);
    locs.forEach((l, i) => {
      if (l.kind === 'capture' || !line) return;
      const p = trajectoryPayloads(line, l.model_call_id);
      out[i].request = bytesOf(p?.request ?? undefined);
      out[i].response = bytesOf(p?.response ?? undefined);
    });
  }
  return out;
}

/** Up to `length` bytes at `start` (fewer when the file shrank under the index). */
async function readRange(handle: fsp.FileHandle, start: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buf, done, length - done, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}
