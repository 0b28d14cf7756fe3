// The native file read (lib/index/ingest/native-read.ts over native/scan.cc's FileReader) is a fast path of a cold
// pass's capture jobs: whenever readCapturesNative answers, its answer must be exactly the one runJob's JavaScript path
// (readFileForIngest, then encodeCalls; CALLSCOPE_NATIVE_READ=0) gives for the same job: every read (kind, identity
// with mtimeMs, offsets, pending bytes, lines, the 15 call totals), the counts, and each encoded column byte for byte.
// It may decline a job (null), and runJob then reads it in JavaScript: runJob with the addon on must still answer
// what the JavaScript path answers, also for the job after a declined one (whose rows must not leak into it).
// Checked on random capture files (NeMo Gym exchanges with varied fields, the line scans' generated lines, blank and
// padded lines, unterminated, damaged and invalid-UTF-8 lines, random mtimes) in jobs of one to five files, some
// missing; on the edge cases one by one (empty, missing, directory, symlink, FIFO, socket, a line over the 4 MB
// buffer, a pending line, non-ASCII and astral tags, -0 and tied latencies, odd integers, long strings); and that
// ordinary NeMo Gym files are answered by the addon at all (else the fast path is silently dead).
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonFloat, type JsonObject, type JsonValue } from '../../../../lib/capture/json-value';
import { serialize } from '../../../../lib/capture/json-serialize';
import { ENCODED_CALL_COLUMNS, type EncodedCalls } from '../../../../lib/index/clickhouse/call-columns';
import { NEW_FILE, type IngestRead } from '../../../../lib/index/ingest/capture-file';
import { runJob, type WorkerJob } from '../../../../lib/index/ingest/job';
import { readCapturesNative } from '../../../../lib/index/ingest/native-read';
import { nativeAddon } from '../../../../lib/index/scan/addon';
import { exchangeLines, mutate, mutation } from '../../../support/capture-lines';
import { makeExchange } from '../../../support/exchange';

/** Whether the addon is built (and loaded): without it readCapturesNative always declines and only runJob is checked. */
const built = nativeAddon() !== null;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'callscope-native-read-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// --- the comparison --------------------------------------------------------------------------------------------

interface Answer {
  reads: IngestRead[];
  counts: number[];
  encoded: EncodedCalls | undefined;
}

const captureJob = (files: readonly string[]): WorkerJob => ({ kind: 'capture', files: files.map((file) => ({ file, state: { ...NEW_FILE } })), encode: true });

/** runJob's JavaScript path: the reference. */
function reference(files: readonly string[]): Answer {
  const before = process.env.CALLSCOPE_NATIVE_READ;
  process.env.CALLSCOPE_NATIVE_READ = '0';
  try {
    const r = runJob(captureJob(files), true);
    if (r.kind !== 'capture') throw new Error('not a capture result');
    expect(r.calls).toBeNull();
    return { reads: r.reads, counts: r.counts, encoded: r.encoded };
  } finally {
    if (before === undefined) delete process.env.CALLSCOPE_NATIVE_READ;
    else process.env.CALLSCOPE_NATIVE_READ = before;
  }
}

const show = (v: unknown) => inspect(v, { depth: 6, breakLength: Infinity, maxArrayLength: 40, maxStringLength: 300 });
const TOTALS = [
  'calls', 'tokens_in', 'tokens_out', 'tokens_reasoning', 'tokens_total', 'cached_tokens', 'latency_sum', 'latency_max', 'ttft_median',
  'errors', 'model_servers', 'dialects', 'error_categories', 'started_at', 'completed_at',
];

/** Where two answers differ, field by field and column by column (empty when equal). */
function differences(actual: Answer, expected: Answer): string[] {
  const out: string[] = [];
  if (!isDeepStrictEqual(actual.counts, expected.counts)) out.push(`counts: ${show(actual.counts)} != ${show(expected.counts)}`);
  if (actual.reads.length !== expected.reads.length) out.push(`${actual.reads.length} reads != ${expected.reads.length}`);
  actual.reads.forEach((a, i) => {
    const e = expected.reads[i] as Record<string, unknown> | undefined;
    if (!e) return;
    const ar = a as Record<string, unknown>;
    for (const key of new Set([...Object.keys(ar), ...Object.keys(e)])) {
      if (isDeepStrictEqual(ar[key], e[key])) continue;
      if (key === 'totals' && Array.isArray(ar[key]) && Array.isArray(e[key])) {
        const [x, y] = [ar[key] as unknown[], e[key] as unknown[]];
        for (let t = 0; t < Math.max(x.length, y.length); t++) {
          if (!isDeepStrictEqual(x[t], y[t])) out.push(`reads[${i}].totals.${TOTALS[t] ?? t}: ${show(x[t])} != ${show(y[t])}`);
        }
      } else out.push(`reads[${i}].${key}: ${show(ar[key])} != ${show(e[key])}`);
    }
  });
  const [a, e] = [actual.encoded, expected.encoded];
  if (!a || !e) {
    if (a !== e) out.push(`encoded: ${show(a)} != ${show(e)}`);
    return out;
  }
  if (a.n !== e.n) out.push(`encoded.n: ${a.n} != ${e.n}`);
  if (a.columns.length !== e.columns.length) out.push(`${a.columns.length} columns != ${e.columns.length}`);
  a.columns.forEach((c, k) => {
    const d = e.columns[k];
    if (!d) return;
    const name = ENCODED_CALL_COLUMNS[k]?.name ?? k;
    for (const part of ['encoded', 'nulls', 'values', 'offsets'] as const) {
      const [x, y] = [c[part], d[part]];
      if (isDeepStrictEqual(x, y)) continue;
      if (ArrayBuffer.isView(x) && ArrayBuffer.isView(y)) {
        const [xs, ys] = [x as unknown as ArrayLike<number>, y as unknown as ArrayLike<number>];
        let at = 0;
        while (at < xs.length && at < ys.length && xs[at] === ys[at]) at++;
        out.push(`column ${name}.${part}: ${x.constructor.name}(${xs.length}) != ${y.constructor.name}(${ys.length}), first difference at ${at}: ` +
          `${show(Array.from(xs).slice(at, at + 12))} != ${show(Array.from(ys).slice(at, at + 12))}`);
      } else out.push(`column ${name}.${part}: ${show(x)} != ${show(y)}`);
    }
  });
  if (out.length === 0 && !isDeepStrictEqual(actual, expected)) out.push(`answers differ: ${show(actual)} != ${show(expected)}`);
  return out;
}

/** A file's bytes for a failure's message: printable ASCII as is, the rest escaped (only regular files are read). */
function bytesOf(file: string): string {
  let b: Buffer;
  try {
    if (!lstatSync(file).isFile()) return '(not a regular file)';
    b = readFileSync(file);
  } catch (err) {
    return `(${(err as NodeJS.ErrnoException).code ?? 'not readable'})`;
  }
  const text = Array.from(b.subarray(0, 3000), (c) => (c >= 32 && c < 127 && c !== 92 ? String.fromCharCode(c) : c === 10 ? '\\n' : `\\x${c.toString(16).padStart(2, '0')}`)).join('');
  return `${b.length} bytes: "${text}"${b.length > 3000 ? '...' : ''}`;
}

function explain(files: readonly string[], diffs: string[], what: string): string {
  return `${what} differs from the JavaScript path:\n  ${diffs.join('\n  ')}\nfiles:\n${files.map((f) => `  ${f}: ${bytesOf(f)}`).join('\n')}`;
}

/**
 * The job read by readCapturesNative and by runJob (addon on), each held to the JavaScript path's answer; the addon's
 * answer (null: declined). `answered`: what it must do (true: answer, false: decline).
 */
function check(files: readonly string[], answered?: boolean): Answer | null {
  const expected = reference(files);
  const native = readCapturesNative(files);
  if (native) {
    const diffs = differences(native, expected);
    if (diffs.length) expect.fail(explain(files, diffs, 'readCapturesNative'));
    expect(isDeepStrictEqual(native, expected)).toBe(true);
  }
  const r = runJob(captureJob(files), true);
  if (r.kind !== 'capture') throw new Error('not a capture result');
  expect(r.calls).toBeNull();
  const viaJob = { reads: r.reads, counts: r.counts, encoded: r.encoded };
  const diffs = differences(viaJob, expected);
  if (diffs.length) expect.fail(explain(files, diffs, 'runJob with the addon'));
  expect(isDeepStrictEqual(viaJob, expected)).toBe(true);
  if (answered !== undefined && built && (native !== null) !== answered) {
    expect.fail(`readCapturesNative ${answered ? 'declined' : 'answered'}:\n${files.map((f) => `  ${f}: ${bytesOf(f)}`).join('\n')}`);
  }
  return native;
}

// --- generated capture files -----------------------------------------------------------------------------------

const ASCII_TAGS = ['srv', 'policy_model', 'judge', 'responses', 'chat_completions', 'anthropic', 'a', 'A', 'ab', 'a|b', '', 'Z', 'timeout', 'rate_limit'];
// Characters of the BMP, where JavaScript's sort (by UTF-16 unit) and a sort by UTF-8 bytes agree.
const BMP_TAGS = ['é', 'e', 'ß', 'Ωmega', '日本語', '\uff41', '\u00a0nb', '\ufffd', '\ue000', '\uffff', 'ε-policy', 'ÿ', 'Ā', '\u0800', '\u07ff'];
// Characters past U+FFFF: there the two sorts can differ (the addon declines such a tag list).
const ASTRAL_TAGS = ['😀', 'x😀', '\u{1d11e}clef', '\u{10ffff}'];
const tag = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom(...ASCII_TAGS) },
  { weight: 12, arbitrary: fc.constantFrom(...BMP_TAGS) },
  { weight: 1, arbitrary: fc.constantFrom(...ASTRAL_TAGS) },
  { weight: 6, arbitrary: fc.array(fc.constantFrom('a', 'b', 'B', 'é', '日', '|', ' ', '_', '\ue000'), { maxLength: 5 }).map((a) => a.join('')) },
);
const CATEGORIES = ['timeout', 'rate_limit', 'server_error', 'bad_request', 'context_length', 'tool_error', 'Upstream', 'upstream', 'é_err', 'z', 'a', 'a|', ''];
const category = fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.constantFrom(...CATEGORIES) }, { weight: 1, arbitrary: tag });

/**
 * Floats as the capture writes them, ties and signed zeros included, and whole floats ("5.0"); `exotic` adds any double
 * (fc.double) and ones the line scan declines (a denormal, an exponent past the range it reads exactly).
 */
const floatOf = (exotic: boolean): fc.Arbitrary<JsonValue> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(0.5, 18.4, 2.25, 100.02, 1786204990.570467, 1e-7, 3.5, 0.1, 0.2, 0.30000000000000004, new JsonFloat(1e16)) },
    { weight: 2, arbitrary: fc.constantFrom(new JsonFloat(0), new JsonFloat(-0), new JsonFloat(5), new JsonFloat(100), new JsonFloat(-3)) },
    { weight: 2, arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }).map((k) => k / 64) },
    { weight: 1, arbitrary: fc.integer({ min: -5, max: 100_000 }) },
    ...(exotic
      ? [
          { weight: 4, arbitrary: fc.double({ min: -1e7, max: 1e13, noNaN: true }) as fc.Arbitrary<JsonValue> },
          { weight: 2, arbitrary: fc.constantFrom(new JsonFloat(1e300), new JsonFloat(-1e300), 5e-324, new JsonFloat(1.7976931348623157e308)) },
        ]
      : []),
  );
const optFloatOf = (exotic: boolean) => fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: floatOf(exotic) });
/** Integers: small, at 2^31 and 2^32, negative, and large but exact. */
const int = fc.oneof(
  fc.constantFrom(200, 400, 429, 500, 0, -1, 2 ** 31, 2 ** 32, 2 ** 32 - 1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 40 + 3, 999_999_999_999_999, -999_999_999_999_999),
  fc.integer({ min: -1000, max: 100_000 }),
);
const tokens = fc.oneof(
  { weight: 6, arbitrary: fc.nat(5000) },
  { weight: 1, arbitrary: fc.constantFrom(0, 2 ** 32 + 1, 999_999_999_999_999) },
  { weight: 2, arbitrary: fc.constant(null) },
);
const text = fc.oneof(
  fc.constantFrom('call-1', 'c', '', 'rollout-7-call-3', 'é', '日本', 'x😀', 'm|n'),
  fc.oneof(fc.nat(300), fc.integer({ min: 126, max: 129 })).map((n) => 'c'.repeat(n)), // a length's varint: one byte below 128
  fc.tuple(fc.constantFrom('é', '日', 'ab', '😀'), fc.integer({ min: 20, max: 140 })).map(([c, n]) => c.repeat(n)),
);

const usage = fc.record(
  {
    input_tokens: tokens, output_tokens: tokens, total_tokens: tokens, prompt_tokens: tokens, completion_tokens: tokens,
    cache_read_input_tokens: tokens, cache_creation_input_tokens: tokens, cached_input_tokens: tokens,
    input_tokens_details: fc.record({ cached_tokens: tokens }, { requiredKeys: [] }),
    output_tokens_details: fc.record({ reasoning_tokens: tokens }, { requiredKeys: [] }),
    prompt_tokens_details: fc.record({ cached_tokens: tokens }, { requiredKeys: [] }),
    completion_tokens_details: fc.record({ reasoning_tokens: tokens }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);
const outputItem = fc.oneof(
  fc.record({ type: fc.constant('function_call'), call_id: fc.constantFrom('c1', 'c2'), name: tag, arguments: fc.constantFrom('{}', '{"a":1}', 'x') }),
  fc.record({ type: fc.constant('reasoning'), summary: fc.constantFrom<JsonValue>([], [{ type: 'summary_text', text: 'why' }]) }),
  fc.record({ type: fc.constant('message'), content: fc.constantFrom<JsonValue>([], [{ type: 'output_text', text: 'ok' }]) }),
);
const response: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({}) },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        id: fc.constantFrom('resp_1', 'r'), model: tag, status: fc.constantFrom('completed', 'incomplete', 'failed', 'é'), usage,
        output: fc.array(outputItem, { maxLength: 3 }), incomplete_details: fc.constantFrom<JsonValue>(null, { reason: 'max_output_tokens' }),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(tag, fc.constantFrom('stop', 'length', 'tool_calls'), fc.array(tag, { maxLength: 2 }), fc.constantFrom(null, 'thought'), usage)
      .map(([model, finish, calls, reasoning, u]) => ({
        id: 'chatcmpl', model,
        choices: [{ finish_reason: finish, message: { content: 'x', tool_calls: calls.map((name) => ({ id: 't', function: { name, arguments: '{}' } })), reasoning_content: reasoning } }],
        usage: u,
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(tag, fc.constantFrom('end_turn', 'tool_use', 'max_tokens'), fc.nat(2), usage)
      .map(([model, stop, n, u]) => ({
        id: 'msg', model, stop_reason: stop,
        content: [...Array.from({ length: n }, () => ({ type: 'tool_use', id: 't', name: 'f', input: {} })), { type: 'thinking', thinking: 't' }],
        usage: u,
      })),
  },
  { weight: 1, arbitrary: fc.constant(null) },
);
const request: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant({ input: 'hi' }),
  fc.record({ model: tag, input: fc.string({ maxLength: 20 }), tools: fc.constant<JsonValue>([]), temperature: fc.constant(new JsonFloat(1)) }, { requiredKeys: ['input'] }),
  fc.constant<JsonValue>({ input: [{ role: 'user', content: 'x "quoted" \\ é' }], model: 'gpt' }),
);
const modelRef = fc.oneof(
  { weight: 8, arbitrary: tag.map((name) => ({ type: 'responses_api_models', name }) as JsonValue) },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** A NeMo Gym exchange (makeExchange's shape) with varied fields, some of them absent; `exotic`: any floats. */
const exchangeOf = (exotic: boolean): fc.Arbitrary<JsonObject> =>
  fc
    .tuple(
      fc.record(
        {
          model_call_id: fc.oneof(text, fc.constant(null)), dialect: fc.oneof({ weight: 6, arbitrary: tag }, { weight: 1, arbitrary: fc.constant(null) }),
          model_ref: modelRef, started_at: optFloatOf(exotic), completed_at: optFloatOf(exotic), latency_ms: optFloatOf(exotic), latency_ttft_ms: optFloatOf(exotic),
          status_code: fc.oneof(int, fc.constant(null)), error_category: category, request, response,
          request_raw: fc.constantFrom('plain', 'data: {"type":"response.created"}\n\n', 'é😀'),
          response_raw: fc.constantFrom('data: {"type":"response.completed","n":1.0}\n\n', ''),
        },
        { requiredKeys: [] },
      ),
      fc.subarray(['model_call_id', 'dialect', 'model_ref', 'started_at', 'completed_at', 'latency_ms', 'status_code', 'request', 'response'], { maxLength: 2 }),
    )
    .map(([overrides, absent]) => {
      const o = makeExchange(overrides as JsonObject);
      for (const k of absent) delete o[k];
      return o;
    });
const exchange = exchangeOf(false);

/** Byte sequences that are not UTF-8 (lone, overlong, surrogate, past U+10FFFF, cut short), and valid ones at the edges. */
const INVALID_UTF8 = ['ff', '80', 'bf', 'c0 80', 'c1 bf', 'c3', 'e0 80 80', 'e0 9f bf', 'ed a0 80', 'ed bf bf', 'e2 82', 'f0 8f bf bf', 'f0 9f 98', 'f4 90 80 80', 'f5 80 80 80', 'f8 88 80 80 80', 'fe', 'c3 28']
  .map((h) => Buffer.from(h.replace(/ /g, ''), 'hex'));
const VALID_EDGES = ['c2 80', 'df bf', 'e0 a0 80', 'ed 9f bf', 'ee 80 80', 'ef bf bf', 'f0 90 80 80', 'f4 8f bf bf'].map((h) => Buffer.from(h.replace(/ /g, ''), 'hex'));
const PLACEHOLDER = 'PLACEHOLDERX';

const ws = fc.array(fc.constantFrom(' ', '\t', '\r', '\x0b', '\x0c'), { maxLength: 3 }).map((a) => a.join(''));
const typedLine = exchangeLines(false, true);
const cleanLine = exchangeLines(false);
const adversarialLine = exchangeLines(true);
const exchangeText = exchange.map((o) => serialize(o));

/** A line a capture writes (or the line scans' typed lines), padded with ASCII whitespace now and then. */
const goodLine = fc.oneof(
  { weight: 8, arbitrary: exchangeText.map((t) => Buffer.from(t)) },
  { weight: 2, arbitrary: fc.tuple(ws, exchangeText, ws).map(([a, t, b]) => Buffer.from(a + t + b)) },
  { weight: 1, arbitrary: exchangeOf(true).map((o) => Buffer.from(serialize(o))) },
  { weight: 1, arbitrary: typedLine.map((t) => Buffer.from(t)) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '\t', '\r', ' \t\r', '\x0b\x0c').map((t) => Buffer.from(t)) },
);

/** A line the addon should decline (or, for the valid edges, may answer). */
const badLine = fc.oneof(
  fc.tuple(exchangeText, mutation).map(([t, m]) => mutate(t, m)),
  fc.tuple(exchangeText, fc.nat()).map(([t, at]) => Buffer.from(t.slice(0, at % t.length))),
  fc.tuple(exchangeText, fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([t, at, bad]) => {
    const b = Buffer.from(t);
    const i = at % (b.length + 1);
    return Buffer.concat([b.subarray(0, i), bad, b.subarray(i)]);
  }),
  // Invalid or edge bytes inside a tag or an id (the JSON around them intact), or at the line's end.
  fc
    .tuple(exchange, fc.constantFrom('dialect', 'error_category', 'model_call_id', 'model_ref'), fc.constantFrom(...INVALID_UTF8, ...VALID_EDGES), fc.boolean())
    .map(([o, key, bytes, atEnd]) => {
      const t = serialize({ ...o, [key]: key === 'model_ref' ? { type: 'responses_api_models', name: PLACEHOLDER } : PLACEHOLDER });
      const [head, tail] = t.split(PLACEHOLDER);
      return Buffer.concat([Buffer.from(head), bytes, Buffer.from(tail), ...(atEnd ? [bytes] : [])]);
    }),
  fc.oneof(cleanLine, adversarialLine).map((t) => Buffer.from(t)),
  fc.constantFrom('[1,2]', '"x"', '42', 'null', '{}', '{"model_ref":{"type":"other","name":"x"}}', '{"status_code":"200"}', '{"status_code":2.5}').map((t) => Buffer.from(t)),
);

type FileSpec =
  | { kind: 'file'; clean: boolean; lines: Buffer[]; unterminated: boolean; tail: string | null; mtime: number | Date | null }
  | { kind: 'missing' | 'dir' | 'symlink' | 'same' };

const mtime = fc.option(
  fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 4_000_000_000 }), fc.integer({ min: 0, max: 999_999_999 })).map(([s, ns]) => s + ns / 1e9),
    fc.integer({ min: -2_000_000_000_000, max: -1 }).map((ms) => new Date(ms)), // before 1970 (a number < 0 would mean now)
  ),
  { freq: 2, nil: null },
);

/** A file of good lines, or (not `clean`) with one or two bad lines among them: so that a bad line is mostly the only reason to decline. */
const file = (clean: boolean): fc.Arbitrary<FileSpec> =>
  fc.record({
    kind: fc.constant('file' as const),
    clean: fc.constant(clean),
    lines: fc
      .tuple(fc.array(goodLine, { maxLength: 10 }), clean ? fc.constant<[number, Buffer][]>([]) : fc.array<[number, Buffer]>(fc.tuple(fc.nat(), badLine), { minLength: 1, maxLength: 2 }))
      .map(([good, bad]) => {
        const lines: Buffer[] = [...good];
        for (const [at, l] of bad) lines.splice(at % (lines.length + 1), 0, l);
        return lines;
      }),
    unterminated: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))), // a quarter of files
    tail: fc.option(fc.constantFrom<string>('{"model_call_id": "pend', '   ', '{}', '{"model_call_id":"x","request":{},"response":{}}'), { freq: 6, nil: null }),
    mtime,
  });

const fileSpec: fc.Arbitrary<FileSpec> = fc.oneof(
  { weight: 12, arbitrary: file(true) },
  { weight: 4, arbitrary: file(false) },
  { weight: 2, arbitrary: fc.constant({ kind: 'missing' as const }) },
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'dir' as const }, { kind: 'symlink' as const }, { kind: 'same' as const }) },
);
const job = fc.array(fileSpec, { minLength: 1, maxLength: 5 });

let seq = 0;
/** A job's files written under `root`: their paths. */
function materialize(specs: readonly FileSpec[], root: string): string[] {
  const files: string[] = [];
  for (const spec of specs) {
    const f = path.join(root, `f${seq++}.capture.jsonl`);
    switch (spec.kind) {
      case 'missing':
        break;
      case 'dir':
        mkdirSync(f);
        break;
      case 'symlink': {
        const target = path.join(root, `t${seq++}.capture.jsonl`);
        writeFileSync(target, serialize(makeExchange()) + '\n');
        symlinkSync(target, f);
        break;
      }
      case 'same':
        if (files.length > 0) {
          files.push(files[files.length - 1]);
          continue;
        }
        break;
      case 'file': {
        const parts: Buffer[] = [];
        for (const l of spec.lines) parts.push(l, Buffer.from('\n'));
        if (spec.unterminated && parts.length > 0) parts.pop();
        else if (spec.tail !== null) parts.push(Buffer.from(spec.tail));
        writeFileSync(f, Buffer.concat(parts));
        if (spec.mtime !== null) utimesSync(f, spec.mtime, spec.mtime);
        break;
      }
    }
    files.push(f);
  }
  return files;
}

describe('readCapturesNative = the JavaScript path', () => {
  it('random capture files in jobs of one to five files, some missing', () => {
    let jobs = 0;
    let answered = 0;
    let answeredCalls = 0;
    fc.assert(
      fc.property(fc.array(job, { minLength: 1, maxLength: 3 }), (specs) => {
        const root = mkdtempSync(path.join(dir, 'run-'));
        try {
          // Every job's files first, then the jobs in order: a declined job's rows must not reach the next one.
          const all = specs.map((s) => materialize(s, root));
          for (const files of all) {
            jobs++;
            const native = check(files);
            if (native) {
              answered++;
              answeredCalls += native.encoded?.n ?? 0;
            }
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 400 },
    );
    // The fast path is exercised, not always declined: of some 780 jobs 19-22% are answered, with 540-650 calls (a
    // line the addon declines declines its file's whole job; three runs), so half of that holds on any seed.
    if (built) {
      expect(answered).toBeGreaterThan(jobs / 10);
      expect(answeredCalls).toBeGreaterThan(250);
    }
  });
});

// --- the cases one by one --------------------------------------------------------------------------------------

let n = 0;
function capture(content: string | Buffer, name = `case-${n++}.capture.jsonl`): string {
  const f = path.join(dir, name);
  writeFileSync(f, content);
  return f;
}
const lineOf = (o: JsonObject) => serialize(makeExchange(o)) + '\n';
const readOf = (files: string[], k = 0) => reference(files).reads[k] as Extract<IngestRead, { kind: 'read' }>;

describe('readCapturesNative = the JavaScript path, case by case', () => {
  it('an empty file', () => {
    const f = capture('');
    check([f], true);
    expect(readOf([f])).toMatchObject({ kind: 'read', bytes: 0, lines: 0, state: { offset: 0, pending: 0, next_line: 1 } });
    expect(readOf([f]).totals).toEqual([0, null, null, null, null, null, null, null, null, 0, null, null, null, null, null]);
  });

  it('a job of no files', () => {
    check([], true);
  });

  it('blank and whitespace-only lines only, and CRLF lines', () => {
    check([capture('\n\n  \n\t\r\n\x0b\x0c\n')], true);
    check([capture(lineOf({ model_call_id: 'a' }).replace('\n', '\r\n') + '  ' + lineOf({ model_call_id: 'b' }).replace('\n', ' \t\r\n'))], true);
  });

  it('a missing file, a path through a file, a too long name, a file with a slash, no name: absent but the too long name (unopenable)', () => {
    const missing = path.join(dir, 'no-such.capture.jsonl');
    const through = path.join(capture(lineOf({})), 'x.capture.jsonl');
    const long = path.join(dir, 'x'.repeat(300));
    const slash = capture(lineOf({})) + '/';
    expect(reference([missing, through, long, slash, '']).reads).toEqual([{ kind: 'absent' }, { kind: 'absent' }, { kind: 'unopenable' }, { kind: 'absent' }, { kind: 'absent' }]);
    check([missing], true);
    check([missing, through, long, slash, '', capture(lineOf({}))], true);
  });

  it('a directory, a symlink to a capture file, a dangling symlink: absent, as the JavaScript path says', () => {
    const d = path.join(dir, 'a-dir.capture.jsonl');
    mkdirSync(d);
    const target = capture(lineOf({ model_call_id: 'target' }));
    const link = path.join(dir, 'link.capture.jsonl');
    symlinkSync(target, link);
    const dangling = path.join(dir, 'dangling.capture.jsonl');
    symlinkSync(path.join(dir, 'nowhere'), dangling);
    const dirLink = path.join(dir, 'dir-link.capture.jsonl');
    symlinkSync(d, dirLink);
    expect(reference([d, link, dangling, dirLink]).reads).toEqual([{ kind: 'absent' }, { kind: 'absent' }, { kind: 'absent' }, { kind: 'absent' }]);
    check([d], true);
    check([link], true);
    check([target, d, link, dangling, dirLink], true);
  });

  it('a FIFO (absent) and a socket (unopenable)', async () => {
    const fifo = path.join(dir, 'fifo.capture.jsonl');
    let haveFifo = true;
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      haveFifo = false;
    }
    const sock = path.join(dir, 's.capture.jsonl');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      expect(reference([sock]).reads).toEqual([{ kind: 'unopenable' }]);
      check([sock, capture(lineOf({}))], true);
      if (haveFifo) {
        expect(reference([fifo]).reads).toEqual([{ kind: 'absent' }]);
        check([fifo, capture(lineOf({}))], true);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a path the addon cannot take (a NUL byte): declined, and the next job has none of its rows', () => {
    const good = capture(lineOf({ model_call_id: 'g1' }) + lineOf({ model_call_id: 'g2' }));
    check([good, path.join(dir, 'a\0b')], false);
    check([capture(lineOf({ model_call_id: 'next' }))], true);
  });

  it('a damaged line or invalid UTF-8 after good files: declined, and the next job has none of their rows', () => {
    const good = capture(lineOf({ model_call_id: 'g1' }) + lineOf({ model_call_id: 'g2' }));
    check([good, capture(lineOf({ model_call_id: 'g3' }) + '{"model_call_id": broken\n' + lineOf({}))], false);
    check([capture(lineOf({ model_call_id: 'after-1' }))], true);
    // A lone 0xFF byte inside a dialect, the JSON around it intact.
    const [head, tail] = lineOf({ dialect: PLACEHOLDER }).split(PLACEHOLDER);
    const bad = Buffer.concat([Buffer.from(lineOf({ model_call_id: 'g4' })), Buffer.from(head), Buffer.from([0xff]), Buffer.from(tail)]);
    check([good, capture(bad)], false);
    check([capture(lineOf({ model_call_id: 'after-2' })), good], true);
  });

  it('each invalid UTF-8 sequence alone in a line (in a tag, an id, the request, a response string, at the end): equal or declined', () => {
    const places: [string, (v: string) => JsonObject][] = [
      ['dialect', (v) => ({ dialect: v })],
      ['error_category', (v) => ({ error_category: v })],
      ['model_ref.name', (v) => ({ model_ref: { type: 'responses_api_models', name: v } })],
      ['model_call_id', (v) => ({ model_call_id: v })],
      ['request', (v) => ({ request: { input: v } })],
      ['response', (v) => ({ response: { id: 'r', model: v, status: 'completed' } })],
      ['response_raw', (v) => ({ response_raw: v })],
    ];
    let answered = 0;
    for (const bytes of [...INVALID_UTF8, ...VALID_EDGES]) {
      for (const [, place] of places) {
        const [head, tail] = serialize(makeExchange(place(PLACEHOLDER))).split(PLACEHOLDER);
        const bad = Buffer.concat([Buffer.from(head), bytes, Buffer.from(tail)]);
        if (check([capture(Buffer.concat([bad, Buffer.from('\n')]))])) answered++;
        check([capture(Buffer.concat([Buffer.from(lineOf({})), bad, Buffer.from('\n'), Buffer.from(lineOf({}))]))]);
      }
      // At the very end of a line (before its newline, and of an unterminated last line).
      check([capture(Buffer.concat([Buffer.from(lineOf({}).trimEnd()), bytes, Buffer.from('\n')]))]);
      check([capture(Buffer.concat([Buffer.from(lineOf({})), Buffer.from(lineOf({}).trimEnd()), bytes]))], true);
    }
    // The valid sequences are answered where they are not a tag past U+FFFF.
    if (built) expect(answered).toBeGreaterThan(VALID_EDGES.length * 4);
  });

  it('the same file twice in a job', () => {
    const f = capture(lineOf({ model_call_id: 'a', error_category: 'timeout' }) + lineOf({ model_call_id: 'b' }));
    check([f, f], true);
  });

  it('a line longer than the 4 MB buffer, after and before short lines (the buffer moves and grows)', () => {
    const short = Array.from({ length: 3000 }, (_, i) => lineOf({ model_call_id: `s${i}`, request: { input: 'y'.repeat(1000) } })).join('');
    const huge = lineOf({ model_call_id: 'huge', request: { input: 'x'.repeat(9 << 20) }, response: { usage: { input_tokens: 7 }, model: 'big' } });
    // Only short lines, more than the buffer holds (it moves, never grows), before the buffer has grown.
    check([capture(short + short)], true);
    const f = capture(short + huge + lineOf({ model_call_id: 'last' }) + '{"pending');
    expect(Buffer.byteLength(huge)).toBeGreaterThan(8 << 20);
    check([f], true);
    // A file of one long line, unterminated.
    check([capture(huge.slice(0, -1))], true);
  });

  it('an unterminated last line (pending bytes), and a file of one unterminated line', () => {
    const f = capture(lineOf({ model_call_id: 'a' }) + '\n' + '{"model_call_id": "pend');
    check([f], true);
    expect(readOf([f]).state.pending).toBe(Buffer.byteLength('{"model_call_id": "pend'));
    const whole = lineOf({ model_call_id: 'whole' }).trimEnd();
    const g = capture(whole);
    check([g], true);
    expect(readOf([g])).toMatchObject({ lines: 0, bytes: 0, state: { offset: 0, pending: Buffer.byteLength(whole), next_line: 1 } });
    check([capture(lineOf({}) + '   \r')], true);
  });

  it('random mtimes, before 1970 and with nanoseconds', () => {
    for (const t of [0.000000001, 1.999999999, 1_700_000_000.3, 1_700_000_000.000001, 4_000_000_000.5, new Date(-1), new Date(-86_400_000 * 365 * 50 - 123)]) {
      const f = capture(lineOf({}));
      utimesSync(f, t, t);
      check([f], true);
    }
  });

  it('tags with non-ASCII BMP characters: answered and equal, lists sorted as JavaScript sorts them', () => {
    const calls = [
      { model_ref: { type: 'responses_api_models', name: 'ßrv' }, dialect: 'é', error_category: 'Ωerr' },
      { model_ref: { type: 'responses_api_models', name: 'srv' }, dialect: 'e', error_category: '日本' },
      { model_ref: { type: 'responses_api_models', name: '\uffff' }, dialect: '\ue000', error_category: '\u00a0' },
      { model_ref: { type: 'responses_api_models', name: 'Srv' }, dialect: 'z', error_category: 'Ωerr' },
      { model_ref: { type: 'responses_api_models', name: '\u0800' }, dialect: '\u07ff', error_category: '' },
    ];
    const f = capture(calls.map((c) => lineOf(c as JsonObject)).join(''));
    check([f], true);
    expect(readOf([f]).totals?.slice(10, 13)).toEqual(['|Srv|srv|ßrv|\u0800|\uffff|', '|e|z|é|\u07ff|\ue000|', '||\u00a0|Ωerr|日本|']);
  });

  it('tags with a character past U+FFFF: equal or declined, never different', () => {
    const ref = (name: string) => ({ type: 'responses_api_models', name });
    // U+E000 sorts after U+1F600 by UTF-16 unit and before it by UTF-8 byte.
    const cases: JsonObject[][] = [
      [{ dialect: '😀' }],
      [{ dialect: '\ue000' }, { dialect: '😀' }],
      [{ model_ref: ref('\uffff') }, { model_ref: ref('\u{10000}') }],
      [{ error_category: '\u{1f600}' }, { error_category: '\ufb01' }, { error_category: 'a' }],
      [{ model_call_id: '😀', model: '\u{1d11e}' } as JsonObject, { request: { model: '😀', input: 'x' } }],
    ];
    for (const c of cases) check([capture(c.map(lineOf).join(''))]);
  });

  it('latencies with -0 and ties, an even number of ttfts, started and completed at -0', () => {
    const z = new JsonFloat(0);
    const nz = new JsonFloat(-0);
    const sets: JsonObject[][] = [
      [{ latency_ms: nz }],
      [{ latency_ms: nz, latency_ttft_ms: nz }, { latency_ms: z, latency_ttft_ms: z }],
      [{ latency_ms: z, latency_ttft_ms: z }, { latency_ms: nz, latency_ttft_ms: nz }],
      [{ latency_ms: nz, latency_ttft_ms: nz }, { latency_ms: nz, latency_ttft_ms: nz }],
      [{ latency_ms: 5.5, latency_ttft_ms: 3 }, { latency_ms: 5.5, latency_ttft_ms: 1 }, { latency_ms: 2.25, latency_ttft_ms: null }, { latency_ms: 5.5, latency_ttft_ms: 1 }],
      [{ latency_ttft_ms: 0.1 }, { latency_ttft_ms: 0.2 }, { latency_ttft_ms: 0.30000000000000004 }, { latency_ttft_ms: new JsonFloat(1e16) }, { latency_ttft_ms: 123456789.123 }, { latency_ttft_ms: new JsonFloat(1e16) }],
      [{ latency_ms: new JsonFloat(1e16) }, { latency_ms: 1 }, { latency_ms: new JsonFloat(-1e16) }, { latency_ms: 0.1 }],
      [{ started_at: z, completed_at: nz }, { started_at: nz, completed_at: z }],
      [{ started_at: nz, completed_at: nz }, { started_at: z, completed_at: z, latency_ms: null }],
      [{ started_at: nz, completed_at: nz, latency_ms: nz, latency_ttft_ms: nz }],
    ];
    const totals = sets.map((s) => {
      const f = capture(s.map(lineOf).join(''));
      check([f], true);
      return readOf([f]).totals ?? [];
    });
    // The reference does hold the signed zeros these cases are about.
    expect(Object.is(totals[0][7], -0)).toBe(true);
    expect(Object.is(totals[3][8], -0)).toBe(true);
    expect(totals[4][8]).toBe(1); // median of three ttfts: 1, 1, 3
    expect(totals[1][8]).toBe(0); // median of two
    expect(Object.is(totals[7][13], -0)).toBe(true);
    expect(Object.is(totals[9][14], -0)).toBe(true);
  });

  it('token values null in some calls, missing in others', () => {
    const usages: JsonValue[] = [
      { input_tokens: 5, output_tokens: null, input_tokens_details: { cached_tokens: 2 } },
      { input_tokens: null, output_tokens: 3, output_tokens_details: { reasoning_tokens: null } },
      null,
      { prompt_tokens: 7, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: 4 }, prompt_tokens_details: { cached_tokens: 0 } },
      { input_tokens: 1, cache_read_input_tokens: 10, cache_creation_input_tokens: 3 },
      { total_tokens: 999_999_999_999_999 },
      { total_tokens: 999_999_999_999_999 },
      { total_tokens: 999_999_999_999_999, cached_input_tokens: 6 },
    ];
    const f = capture(usages.map((u) => lineOf({ response: u === null ? {} : { usage: u } })).join(''));
    check([f], true);
    check([capture(lineOf({ response: { usage: { input_tokens: null } } }) + lineOf({ response: {} }))], true);
  });

  it('many distinct error categories, unsorted, with repeats', () => {
    const cats = ['timeout', 'a', 'rate_limit', 'A', 'ab', 'a|', 'é', 'e', 'Z', '', 'server_error', 'context_length', 'a', 'timeout', '日本', 'z_last', 'b0', 'b10', 'b9', '_'];
    for (let k = 0; k < 30; k++) cats.push(`cat-${(k * 7919) % 97}`);
    const f = capture(cats.map((c, i) => lineOf({ model_call_id: `c${i}`, error_category: c, dialect: ['d2', 'd1', 'd10'][i % 3] })).join(''));
    check([f], true);
  });

  it('integers at the edges of the columns, strings at varint boundaries', () => {
    const ints = [0, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, -(2 ** 31), -(2 ** 32) - 1, 999_999_999_999_999, -999_999_999_999_999];
    check([capture(ints.map((s) => lineOf({ status_code: s, response: { usage: { input_tokens: Math.abs(s), output_tokens: 1 } } })).join(''))], true);
    const ids = [127, 128, 129, 16383, 16384, 70000].map((len) => 'i'.repeat(len));
    ids.push('é'.repeat(63), 'é'.repeat(64), '日'.repeat(42), '日'.repeat(43));
    check([capture(ids.map((id) => lineOf({ model_call_id: id, response: { model: id } })).join(''))], true);
  });
});

// --- the fast path is taken ------------------------------------------------------------------------------------

describe('readCapturesNative answers ordinary NeMo Gym capture files', () => {
  it.skipIf(!built)('answers (non-null) and equals the JavaScript path on makeExchange lines of every dialect', () => {
    const shapes: JsonObject[] = [
      {},
      { response: { id: 'resp_1', model: 'policy', status: 'completed', output: [{ type: 'function_call', call_id: 'c1', name: 'search', arguments: '{"q":"x"}' }], usage: { input_tokens: 120, output_tokens: 30, total_tokens: 150, input_tokens_details: { cached_tokens: 64 }, output_tokens_details: { reasoning_tokens: 12 } } } },
      { dialect: 'chat_completions', latency_ttft_ms: 4.5, response: { id: 'c', model: 'm', choices: [{ finish_reason: 'tool_calls', message: { content: null, tool_calls: [{ id: 't', function: { name: 'f', arguments: '{}' } }] } }], usage: { prompt_tokens: 9, completion_tokens: 2 } } },
      { dialect: 'anthropic', response: { id: 'm', model: 'claude', stop_reason: 'end_turn', content: [{ type: 'thinking', thinking: 't' }], usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 2 } } },
      { status_code: 429, error_category: 'rate_limit', response: null, latency_ms: 1.25 },
      { model_ref: { type: 'responses_api_models', name: 'judge' }, latency_ms: 250.0, started_at: 1786204990.570467, completed_at: 1786204990.820467 },
    ];
    const files = Array.from({ length: 5 }, (_, f) =>
      capture(Array.from({ length: 4 + f }, (_, i) => lineOf({ model_call_id: `r${f}-c${i}`, ...shapes[(i + f) % shapes.length] })).join('')),
    );
    expect(check([files[0]])).not.toBeNull();
    expect(check([files[3], files[1]])).not.toBeNull();
    expect(check(files)?.encoded?.n).toBe(4 + 5 + 6 + 7 + 8);
  });
});
