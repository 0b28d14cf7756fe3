// The index's fast rollout-line scan (native JSON.parse of the kept parts, scanShallowFast, and its native port) against the
// lossless one (scanStrict in python mode): on every line, real, generated or damaged, what the index stores of
// the line must be identical, in both modes (with a capture dir the attached calls are only counted). Also
// checks that the fast path does answer for ordinary lines, and the attachment's rollout_id naming the rollout.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUtf8 } from 'node:buffer';
import { scanShallowFast, scanShallowFastJs } from '../../../lib/index/scan/fast-scan';
import { scanShallowFastNative } from '../../../lib/index/scan/native';
import { parseRolloutLine } from '../../../lib/rollouts/rollout-line';
import { storedRolloutLine } from '../../../lib/index/ingest/rollouts-file';
import { useDemo } from '../../support/demo';
import { TIERS } from '../../support/nemo-gym-data';

/** What the index stores of a line (as a worker would send it), by the fast path and by the lossless one. */
function stored(bytes: Buffer, countCalls: boolean, exact: boolean): unknown {
  const line = parseRolloutLine(bytes, 3, 100, countCalls, exact ? null : scanShallowFast);
  if (!line) return null;
  return storedRolloutLine(line, countCalls);
}

let fastAnswered = 0;
const SHALLOW_PROBE = { responses_create_params: ['metadata'], response: ['id', 'model', 'status', 'usage'], ng_model_call_capture: ['metrics', 'gaps', 'rollout_id'] };
function check(bytes: Buffer): void {
  if (scanShallowFast(bytes, SHALLOW_PROBE, 'ng_model_call_capture.calls')) fastAnswered++;
  // The native port (native/scan.cc) answers and declines exactly where the JavaScript walk does (UTF-8 lines:
  // the callers check that first).
  if (isUtf8(bytes)) {
    for (const count of ['ng_model_call_capture.calls', null]) {
      const native = scanShallowFastNative(bytes, SHALLOW_PROBE, count);
      expect(native, 'the native addon is built (npm install)').not.toBeUndefined();
      expect(native, bytes.toString('utf8').slice(0, 400)).toEqual(scanShallowFastJs(bytes, SHALLOW_PROBE, count));
    }
  }
  for (const countCalls of [true, false]) expect(stored(bytes, countCalls, false)).toEqual(stored(bytes, countCalls, true));
}

const ws = fc.constantFrom('', '', ' ', '\n', '\t ');
const numberTok = fc.constantFrom(
  '0', '1', '-3', '-0', '-0.0', '0.0', '1.0', '2.5', '1e2', '1E-2', '1e400', '-1e400', '123456789012345', '1234567890123456',
  '18446744073709551616', '0.75', 'NaN', 'Infinity', '-Infinity',
);
const literalTok = fc.constantFrom('true', 'false', 'null');
const strPiece = fc.constantFrom('a', 'task', 'é', '😀', ' ', '\\"', '\\\\', '\\n', '\\u00e9', '\\ud800', '\\uD83D\\uDE00', '{', '}', '[', ']', ',', ':', '1.0');
const strTok = fc.array(strPiece, { maxLength: 5 }).map((p) => `"${p.join('')}"`);
const keyTok = fc.oneof(
  fc.constantFrom('calls', 'metrics', 'gaps', 'rollout_id', 'code', 'tokens_total', 'model', 'usage', 'id', '__proto__', '0', '\\u0031', 'mod\\u0065l').map((k) => `"${k}"`),
  strTok,
);
const { value: valueTok } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, numberTok, literalTok, strTok, tie('object'), tie('array')),
  object: fc
    .tuple(ws, fc.array(fc.tuple(keyTok, ws, tie('value')), { maxLength: 4 }))
    .map(([w, kvs]) => `{${w}${kvs.map(([k, w1, v]) => `${k}${w1}:${v}`).join(',')}}`),
  array: fc.tuple(ws, fc.array(tie('value'), { maxLength: 4 })).map(([w, vs]) => `[${w}${vs.join(',')}]`),
}));
const callTok = fc
  .tuple(numberTok, numberTok, fc.constantFrom('true', 'false', '0.0', '1.0', 'null'))
  .map(([a, b, hit]) => `{"model_call_id":"c","call_index":${a},"tokens_in":${b},"tokens_total":${a},"cache_hit":${hit},"tool_calls":[{"name":"f"}]}`);
const captureTok = fc
  .tuple(
    fc.oneof(fc.array(fc.oneof(callTok, valueTok), { maxLength: 3 }).map((c) => `[${c.join(',')}]`), valueTok),
    fc.oneof(fc.constant('{"tokens_total":10,"latency_ms_sum":0.0}'), valueTok),
    fc.oneof(fc.constant('[{"code":"model_call_capture_no_records"}]'), fc.constant('[{"code":"x","n":1.0}]'), valueTok),
    fc.oneof(strTok, fc.constant('"custom-7"'), valueTok),
    fc.array(fc.tuple(fc.constantFrom('calls', 'metrics', 'gaps', 'rollout_id', 'other'), valueTok), { maxLength: 2 }),
  )
  .map(([calls, metrics, gaps, rid, extra]) =>
    `{"rollout_id":${rid},"calls":${calls},"metrics":${metrics},"gaps":${gaps}${extra.map(([k, v]) => `,"${k}":${v}`).join('')}}`,
  );
const topKey = fc.constantFrom(
  'reward', '_ng_task_index', '_ng_rollout_index', '_ng_attempt_index', '_ng_rollout_id', '_ng_failure_class', 'agent_ref', 'task_id',
  'question', 'expected_answer', 'responses_create_params', 'response', 'ng_trajectory', 'ng_agent_observations', 'ng_model_call_capture',
  'judge', '0', 'respons\\u0065',
);
const topVal = fc.oneof(numberTok, strTok, literalTok, valueTok, fc.constant('{"name":"agent"}'), fc.constant('{"input":[{"a":1.0}],"model":"m"}'));
const rolloutLine = fc
  .tuple(
    fc.array(fc.tuple(topKey, topVal), { maxLength: 6 }),
    fc.oneof(captureTok, valueTok),
    fc.oneof(
      fc.constant('{"id":"r","model":"m","status":"completed","usage":{"total_tokens":5},"output":[{"type":"message"}]}'),
      fc
        .tuple(numberTok, numberTok, numberTok)
        .map(([a, b, c]) => `{"id":"r","usage":{"input_tokens":${a},"output_tokens":${b},"input_tokens_details":{"cached_tokens":${c}},"total_tokens":${a}}}`),
      valueTok,
    ),
    numberTok,
    ws,
    fc.oneof(valueTok, fc.constant('{"instance_id":"astropy__astropy-12907","n":1.0,"id":7}')),
  )
  .map(([pre, capture, response, reward, w, metadata]) =>
    `${w}{"responses_create_params":{"input":[{"role":"user","content":"hi"}],"temperature":1.0,"metadata":${metadata},"max":null,"seed":-3},"response":${response},` +
      `"reward":${reward},"_ng_task_index":3,"_ng_rollout_index":1,${pre.map(([k, v]) => `"${k}":${v},`).join('')}` +
      `"ng_model_call_capture":${capture}}${w}`,
  );

const mutation = fc.tuple(fc.nat(), fc.constantFrom('del', 'dup', 'rep'), fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', '0', '.', 'a', '\u00ff'));
function mutate(text: string, [at, kind, ch]: [number, string, string]): Buffer {
  const b = Buffer.from(text, 'utf8');
  if (b.length === 0) return b;
  const i = at % b.length;
  const c = Buffer.from(ch, 'latin1');
  if (kind === 'del') return Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
  if (kind === 'dup') return Buffer.concat([b.subarray(0, i), c, b.subarray(i)]);
  return Buffer.concat([b.subarray(0, i), c, b.subarray(i + 1)]);
}

const fx = useDemo('callscope-rollout-fast-');

/** Every line of the files (an unterminated last one too: the index lists it), through `check`. */
function checkFiles(files: string[]): { lines: number; fast: number } {
  let lines = 0;
  fastAnswered = 0;
  for (const f of files) {
    const b = readFileSync(f);
    let s = 0;
    for (let nl = b.indexOf(10); nl >= 0; s = nl + 1, nl = b.indexOf(10, s)) {
      check(b.subarray(s, nl));
      lines++;
    }
    if (s < b.length) {
      check(b.subarray(s));
      lines++;
    }
  }
  return { lines, fast: fastAnswered };
}

for (const data of TIERS) {
  describe.skipIf(!data.present)(`fast rollout-line scan = lossless scan over ${data.title}`, () => {
    it('their files and the demo data, line by line, and the fast path answers for them', () => {
      const demo = readdirSync(fx.demo, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('rollouts.jsonl')).map((f) => path.join(fx.demo, f));
      const own = checkFiles(data.files);
      expect(own.lines).toBeGreaterThanOrEqual(30);
      expect(own.fast).toBeGreaterThan(own.lines * 0.5);
      const all = checkFiles([...data.files, ...demo]);
      expect(all.lines).toBeGreaterThan(50);
      expect(all.fast).toBeGreaterThan(all.lines * 0.5);
    });
  });
}

describe('fast rollout-line scan = lossless scan (what the index stores)', () => {
  it('generated lines with valid but tricky values', () => {
    fastAnswered = 0;
    fc.assert(fc.property(rolloutLine, (t) => check(Buffer.from(t, 'utf8'))), { numRuns: 3000 });
    expect(fastAnswered).toBeGreaterThan(100);
  });

  it('the same with one byte edited (invalid lines, broken strings and brackets)', () => {
    fc.assert(fc.property(rolloutLine, mutation, (t, m) => check(mutate(t, m))), { numRuns: 3000 });
  });

  it('arbitrary JSON texts and strings', () => {
    fc.assert(fc.property(valueTok, (t) => check(Buffer.from(t, 'utf8'))), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (t) => check(Buffer.from(t, 'utf8'))), { numRuns: 500 });
  });

  it.each([
    ['integral float index', '{"_ng_task_index":1.0,"_ng_rollout_index":0,"reward":1.0}'],
    ['integral float in the gaps', '{"_ng_task_index":1,"_ng_rollout_index":0,"ng_model_call_capture":{"calls":[],"gaps":[{"code":"a","n":2.0}]}}'],
    ['whole-float reward', '{"_ng_task_index":1,"_ng_rollout_index":0,"reward":1.0}'],
    ['whole-float token count in the response usage', '{"_ng_task_index":1,"_ng_rollout_index":0,"response":{"usage":{"input_tokens":5.0,"output_tokens":2}}}'],
    ['nested whole-float cached count in the response usage', '{"response":{"id":"r","usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":1.0}}},"_ng_task_index":1}'],
    ['big token count in the response usage', '{"response":{"usage":{"input_tokens":12345678901234567890,"total_tokens":-0}},"_ng_task_index":1}'],
    ['NaN reward', '{"_ng_task_index":1,"_ng_rollout_index":0,"reward":NaN}'],
    ['NaN in a skipped scalar', '{"responses_create_params":{"t":NaN},"_ng_task_index":1,"_ng_rollout_index":0}'],
    ['bad scalar in a skipped value', '{"responses_create_params":{"t":tru},"_ng_task_index":1,"_ng_rollout_index":0}'],
    ['a bad scalar element in the counted calls array', '{"_ng_task_index":1,"ng_model_call_capture":{"rollout_id":"r","calls":[ alse,1,{"a":1}],"metrics":{}}}'],
    ['a colon between elements of the counted calls array', '{"_ng_task_index":1,"ng_model_call_capture":{"rollout_id":"r","calls":[{"a":1},[1]:],"metrics":{}}}'],
    ['a missing comma between elements of the counted calls array', '{"_ng_task_index":1,"ng_model_call_capture":{"rollout_id":"r","calls":[{"a":1} {"b":2}],"metrics":{}}}'],
    ['a trailing comma in the counted calls array', '{"_ng_task_index":1,"ng_model_call_capture":{"rollout_id":"r","calls":[{"a":1},],"metrics":{}}}'],
    ['objects and strings in the counted calls array', '{"_ng_task_index":1,"ng_model_call_capture":{"rollout_id":"r","calls":[ {"a":[1,2]} , "s",[{}],{} ],"metrics":{}}}'],
    ['scalar elements in the counted calls array', '{"_ng_task_index":1,"ng_model_call_capture":{"rollout_id":"r","calls":[false,1.5,{"a":1},"s"],"metrics":{}}}'],
    ['calls not an array', '{"_ng_task_index":1,"_ng_rollout_index":0,"ng_model_call_capture":{"calls":{"a":1},"metrics":{}}}'],
    ['calls twice', '{"_ng_task_index":1,"_ng_rollout_index":0,"ng_model_call_capture":{"calls":[{}],"calls":[{},{},3]}}'],
    ['two attachments', '{"ng_model_call_capture":{"calls":[{}]},"ng_model_call_capture":{"metrics":{}}}'],
    ['escaped shallow key', '{"respons\\u0065":{"id":"r","output":[1]},"_ng_task_index":1,"_ng_rollout_index":0}'],
    ['lone surrogate in a task', '{"question":"\\ud800","_ng_task_index":1,"_ng_rollout_index":0}'],
    ['big task index', '{"_ng_task_index":12345678901234567890,"_ng_rollout_index":0}'],
    ['-0 attempt', '{"_ng_task_index":1,"_ng_rollout_index":0,"_ng_attempt_index":-0}'],
    ['not an object', '[1,2]'],
    ['BOM', '\ufeff{"_ng_task_index":1,"_ng_rollout_index":0}'],
  ])('%s', (_, text) => check(Buffer.from(text, 'utf8')));

  it("names the rollout by the attachment's rollout_id with or without a capture dir (§8.3)", () => {
    const text = '{"_ng_task_index":4,"_ng_rollout_index":2,"reward":1.0,"ng_model_call_capture":{"rollout_id":"custom-7","calls":[{}],"metrics":{"tokens_total":9},"gaps":[]}}';
    for (const countCalls of [true, false]) {
      for (const exact of [true, false]) {
        const line = parseRolloutLine(Buffer.from(text), 1, 0, countCalls, exact ? null : scanShallowFast)!;
        expect(line.rolloutId).toBe('custom-7');
        expect(line.attachment).toMatchObject({ calls: 1, tokensTotal: 9 });
        expect(line.reward).toBe(1);
      }
    }
  });
});
