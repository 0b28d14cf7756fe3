// I5: a capture file whose second line is `--huge-mb` MiB, indexed and served in a child with a small heap (no
// part of the line may ever be one string), its raw line and call body checked by size and hash.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { memSampler } from '../memory';
import { hex, stringSeeded } from '../random';
import { pct, round } from '../stats';
import { now } from '../time';
import { runChild, type ChildParams, type HugeInfo } from './child';
import { templateLines } from './corpus';

const MB = 1e6;

/**
 * Writes a capture file with three calls, the second one a line of `mb` MiB: a request holding thousands of
 * messages (a quarter of it) and one huge string with escapes and non-ASCII text (the rest). Written in
 * chunks and hashed on the way; no part of it is ever one string.
 */
function writeHuge(root: string, template: Record<string, unknown>, mb: number, seed: string): HugeInfo {
  rmSync(root, { recursive: true, force: true });
  const dir = path.join(root, 'huge', 'captures');
  mkdirSync(dir, { recursive: true });
  const rand = stringSeeded(`${seed}:huge`);
  const file = path.join(dir, 'huge-0.capture.jsonl');
  const fd = openSync(file, 'w');
  const lineOf = (obj: Record<string, unknown>) => JSON.stringify(obj) + '\n';
  try {
    writeSync(fd, lineOf({ ...template, model_call_id: hex(rand) }));
    const callId = hex(rand);
    const text = JSON.stringify({ ...template, model_call_id: callId, request: '\u0000REQ\u0000' });
    const at = text.indexOf(JSON.stringify('\u0000REQ\u0000'));
    const prefix = Buffer.from(text.slice(0, at));
    const suffix = Buffer.from(text.slice(at + JSON.stringify('\u0000REQ\u0000').length));
    const target = mb * 1024 * 1024 - prefix.length - suffix.length;
    const lineHash = createHash('sha256');
    const reqHash = createHash('sha256');
    let reqBytes = 0;
    const put = (b: Buffer, isReq: boolean) => {
      writeSync(fd, b);
      lineHash.update(b);
      if (isReq) {
        reqHash.update(b);
        reqBytes += b.length;
      }
    };
    put(prefix, false);
    put(Buffer.from('{"model":"bench-huge","input":['), true);
    const words = ['order', 'refund', 'cancel', 'Seattle', 'naïve', 'café', '日本語', 'tool', 'policy', 'user', 'mistake', 'lamp'];
    const sentence = () => {
      let s = '';
      for (let k = 0; k < 12; k++) s += words[Math.floor(rand() * words.length)] + ' ';
      return s;
    };
    // A quarter: many ordinary messages.
    const messagesTarget = Math.floor(target / 4);
    let m = 0;
    while (reqBytes < messagesTarget) {
      const msg = { role: m % 2 ? 'assistant' : 'user', type: 'message', content: `${m}: ${sentence()}\n${sentence()} "quoted" \\ ${sentence()}`.repeat(8) };
      put(Buffer.from(JSON.stringify(msg) + ','), true);
      m++;
    }
    // The rest: one huge string, written as escaped JSON string chunks.
    put(Buffer.from('{"role":"user","type":"message","content":"'), true);
    const closing = Buffer.from('"}],"stream":false}');
    const blockText = (k: number) => JSON.stringify(`[block ${k}] ${sentence()}\n\t"${sentence()}" \\ ${sentence()}\u00e9\u2028 `.repeat(200)).slice(1, -1);
    for (let k = 0; ; k++) {
      const remaining = target - reqBytes - closing.length;
      if (remaining <= 0) break;
      let block = Buffer.from(blockText(k));
      if (block.length > remaining) block = Buffer.from('x'.repeat(remaining));
      put(block, true);
    }
    put(closing, true);
    put(suffix, false);
    writeSync(fd, '\n');
    writeSync(fd, lineOf({ ...template, model_call_id: hex(rand) }));
    const respText = Buffer.from(JSON.stringify(template.response));
    return {
      root,
      rolloutKey: 'huge-0',
      callId,
      lineBytes: prefix.length + reqBytes + suffix.length,
      lineSha256: lineHash.digest('hex'),
      requestBytes: reqBytes,
      requestSha256: reqHash.digest('hex'),
      responseSha256: createHash('sha256').update(respText).digest('hex'),
    };
  } finally {
    closeSync(fd);
  }
}

export async function childHuge(p: ChildParams) {
  const huge = p.huge!;
  const { CallscopeIndex } = await import('../../../lib/index/callscope-index');
  const { streamParts } = await import('../../../lib/index/queries/payload');
  const mem = memSampler(2);
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  const t0 = now();
  const index = await CallscopeIndex.open([{ path: huge.root }], p.indexDir!);
  await index.refresh();
  const ingestMs = now() - t0;
  const run = index.listRuns()[0];
  const afterIngest = { rss: process.memoryUsage().rss, max_rss_bytes: process.resourceUsage().maxRSS * 1024 };
  const checks: Record<string, boolean> = {};
  const row = index.rollout(run.id, huge.rolloutKey);
  checks.rollout_indexed = row !== null && row.num_calls === 3;

  // The raw line, from its byte span.
  const span = index.rawLocation(run.id, huge.rolloutKey, huge.callId);
  checks.raw_span_length = span?.length === huge.lineBytes;
  const rawRuns: number[] = [];
  for (let k = 0; k < 3 && span; k++) {
    const hash = k === 0 ? createHash('sha256') : null;
    const t = now();
    let n = 0;
    for await (const chunk of createReadStream(span.path, { start: span.start, end: span.start + span.length - 1, highWaterMark: 1 << 20 })) {
      n += (chunk as Buffer).length;
      hash?.update(chunk as Buffer);
    }
    const ms = now() - t;
    if (hash) checks.raw_sha256 = hash.digest('hex') === huge.lineSha256 && n === huge.lineBytes;
    else rawRuns.push(ms);
  }

  // The call body: record fields with the request and response spliced in from their spans.
  const body = await index.callDetail(run.id, huge.rolloutKey, huge.callId);
  let bodyBytes = 0;
  let bodyMs = NaN;
  if (body && body.kind === 'parts') {
    const strings = body.parts.filter((x): x is string => typeof x === 'string');
    const spans = body.parts.filter((x): x is { path: string; start: number; length: number } => typeof x !== 'string');
    checks.body_has_request_and_response_spans = spans.length === 2 && spans[0].length === huge.requestBytes;
    const hashes: string[] = [];
    for (const s of spans) {
      const h = createHash('sha256');
      for await (const chunk of createReadStream(s.path, { start: s.start, end: s.start + s.length - 1, highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
      hashes.push(h.digest('hex'));
    }
    checks.body_request_sha256 = hashes[0] === huge.requestSha256;
    checks.body_response_sha256 = hashes[1] === huge.responseSha256;
    // The text around the spans is valid JSON once the spans (themselves valid JSON values) are put back.
    try {
      const skeleton = JSON.parse(strings.join('{}')) as Record<string, unknown>;
      checks.body_json_valid = skeleton.model_call_id === huge.callId && typeof skeleton.request === 'object' && typeof skeleton.response === 'object';
    } catch {
      checks.body_json_valid = false;
    }
    const t = now();
    for await (const chunk of streamParts(body.parts)) bodyBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    bodyMs = now() - t;
    checks.body_length = bodyBytes === strings.reduce((a, s) => a + Buffer.byteLength(s), 0) + spans.reduce((a, s) => a + s.length, 0);
  } else {
    checks.body_parts = false;
  }
  const memory = mem.stop();
  index.close();
  return {
    run: run.id,
    progress: run.progress,
    ingest_ms: round(ingestMs),
    ingest_mb_s: round(run.progress.bytes_read / MB / (ingestMs / 1000)),
    heap_size_limit: heapLimit,
    after_ingest: afterIngest,
    memory,
    raw: { bytes: huge.lineBytes, ms: rawRuns.map((x) => round(x)), mb_s: round(huge.lineBytes / MB / (pct(rawRuns, 0.5) / 1000)) },
    body: { bytes: bodyBytes, ms: round(bodyMs), mb_s: round(bodyBytes / MB / (bodyMs / 1000)) },
    checks,
  };
}

/** Writes the huge line (into `work`) and indexes and reads it in a child; serverHuge serves it after. */
export async function measureHuge(corpus: string, work: string, mb: number, seed: string) {
  const hugeRoot = path.join(work, 'huge-corpus');
  const [template] = templateLines(corpus, 1);
  const huge = writeHuge(hugeRoot, template, mb, seed);
  const heapLimitMb = Math.max(96, Math.min(192, Math.floor(mb * 0.75)));
  const hugeRes = await runChild('huge', { indexDir: path.join(work, 'huge-index'), huge }, [`--max-old-space-size=${heapLimitMb}`]);
  return { huge, heap_limit_flag_mb: heapLimitMb, inprocess: hugeRes };
}
