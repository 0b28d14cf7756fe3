// The repository carries the NeMo Gym data its tests need. The fixtures are what their generator writes, read
// as NeMo Gym's readers read them and written as NeMo Gym writes them, with the real files' edge cases; where
// the real files are present, every object of a fixture has a layout its real file has (same key order, same
// value types, same nesting). And no code or test reads anything outside the repository but through the one
// resolver (tests/support/nemo-gym-data.ts), which says where the real files are.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonFloat, keysOf, type JsonValue } from '../../lib/capture/json-value';
import { parsePython } from '../../lib/capture/json-parse';
import { serialize } from '../../lib/capture/json-serialize';
import { nemoGymFixtures } from '../../scripts/make-nemo-gym-fixtures';
import { dumps, float, type Py } from '../../scripts/nemo-gym-fixtures/py-json';
import { ALL_SHAPES, FIXTURES, REAL, REAL_SHAPES, REAL_TIER_MARK, SHAPES, SPEC_TIER_MARK, type NemoGymData, type RealShape, type Shape } from '../support/nemo-gym-data';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(file, 'utf8');
const lines = (file: string) => read(file).split('\n').filter((l) => l);
const row = (text: string) => parsePython(text) as { [key: string]: JsonValue };
const COMPACT: Shape[] = ['string_match', 'hermes_math', 'anyswe_claude_code', 'tau2', 'browsecomp'];

/** A parsed value as the generator's Python values, to write it again with `json.dumps`. */
function asPy(v: JsonValue): Py {
  if (v instanceof JsonFloat) return float(v.value);
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return Number.isInteger(v) ? v : float(v);
  if (Array.isArray(v)) return v.map(asPy);
  if (v !== null && typeof v === 'object') return Object.fromEntries(keysOf(v).map((k) => [k, asPy(v[k])]));
  return v;
}

describe('NeMo Gym-shaped fixtures (tests/fixtures/nemo-gym)', () => {
  it('are what scripts/make-nemo-gym-fixtures.ts writes, byte for byte, and nothing else', () => {
    const made = nemoGymFixtures();
    expect(readdirSync(FIXTURES.dir).filter((f) => f.endsWith('.jsonl')).sort()).toEqual([...made.keys()].sort());
    for (const [name, text] of made) expect(read(path.join(FIXTURES.dir, name)) === text, name).toBe(true);
    expect(Object.values(SHAPES).map((s) => s.fixture).sort()).toEqual([...made.keys()].sort());
  });

  it.each(ALL_SHAPES)("%s: written as NeMo Gym writes it (orjson's bytes, or json.dumps with its spacing)", (shape) => {
    for (const text of lines(FIXTURES.file[shape])) {
      if (COMPACT.includes(shape)) expect(serialize(row(text)) === text).toBe(true);
      else expect(dumps(asPy(row(text)), 'spaced') === text).toBe(true);
    }
  });

  it('have the edge cases of the real files', () => {
    const f = FIXTURES.file;
    const total = Object.values(f).reduce((n, file) => n + statSync(file).size, 0);
    expect(total).toBeLessThan(500_000);
    // Large lines (over 64 KiB) where the real ones are large.
    for (const file of [f.anyswe_claude_code, f.tau2]) expect(Math.max(...lines(file).map((l) => Buffer.byteLength(l)))).toBeGreaterThan(65_536);
    // Collector-stamped indices, in completion order; the older shapes without them.
    const indices = (file: string) => lines(file).map((l) => [row(l)._ng_task_index ?? null, row(l)._ng_rollout_index ?? null]);
    expect(indices(f.string_match)).toEqual([[0, 0], [2, 0], [4, 0], [1, 0], [3, 0]]);
    expect(indices(f.anyswe_claude_code)).toEqual([[0, 0], [0, 2], [0, 4], [0, 1], [0, 3]]); // several rollouts of one task
    for (const file of [f.mcqa, f.workplace_assistant]) expect(indices(file).flat().every((v) => v === null)).toBe(true);
    // The last line of the workplace file has no newline; the others end with one.
    for (const [shape, file] of Object.entries(f)) expect(read(file).endsWith('\n'), shape).toBe(shape !== 'workplace_assistant');
    // Whole floats keep their `.0`; non-ASCII is raw in compact files and \u-escaped (a surrogate pair too) in spaced ones.
    for (const file of Object.values(f)) expect(read(file)).toMatch(/"reward": ?[01]\.0[,}]/);
    for (const file of [f.anyswe_claude_code, f.tau2, f.hermes_math]) expect(read(file)).toMatch(/[^\x00-\x7f]/);
    expect(read(f.tau2)).toMatch(/\p{Extended_Pictographic}/u);
    expect(read(f.mcqa)).not.toMatch(/[^\x00-\x7f]/);
    expect(read(f.mcqa)).toMatch(/\\ud83e\\uddec/);
    // Responses output items of every kind, multi-turn, and a null usage.
    const outputTypes = new Set(Object.values(f).flatMap((file) => lines(file).flatMap((l) => ((row(l).response as { output: { type: string }[] }).output).map((o) => o.type))));
    expect([...outputTypes].sort()).toEqual(['function_call', 'function_call_output', 'message', 'reasoning']);
    expect(lines(f.hermes_math).map((l) => row(l).turns_used)).toContain(4);
    expect(lines(f.tau2).every((l) => (row(l).response as { usage: unknown }).usage === null)).toBe(true);
  });
});

// Where NeMo Gym has no example file (SHAPES' `real: null`), the layout its code writes, read off it: the browsecomp
// line is the agent's BaseVerifyResponse (extra="allow") over the resources server's TavilySearchVerifyResponse,
// whose fields pydantic orders by the reversed MRO (JudgeEvaluation's before the request's); the collector appends
// the indices and agent_ref; `response` is a vLLM response with the agent's counters after its fields.
const BROWSECOMP_KEYS = [
  'responses_create_params', 'response', 'reward', 'judge_response_create_params', 'reasoning', 'extracted_final_answer', 'judge_response',
  'ground_truth', 'question', 'num_tool_calls', 'reset_count', 'metrics', 'num_provider_429s', 'num_provider_other_retries',
  '_ng_task_index', '_ng_rollout_index', 'agent_ref',
];
const RESPONSE_KEYS = [
  'id', 'created_at', 'error', 'incomplete_details', 'instructions', 'metadata', 'model', 'object', 'output', 'parallel_tool_calls', 'temperature',
  'tool_choice', 'tools', 'top_p', 'background', 'conversation', 'max_output_tokens', 'max_tool_calls', 'previous_response_id', 'prompt',
  'prompt_cache_key', 'reasoning', 'safety_identifier', 'service_tier', 'status', 'text', 'top_logprobs', 'truncation', 'usage', 'user',
];
const TAVILY_CALL_KEYS = ['function', 'provider', 'status', 'start_time', 'end_time', 'time_taken', 'num_429_retries', 'num_other_retries'];

describe('a fixture with no real file has the layout NeMo Gym\'s code writes', () => {
  it('browsecomp: key order, the tools, the trajectory, the judge and the provider metering', () => {
    for (const text of lines(FIXTURES.file.browsecomp)) {
      const r = row(text);
      expect(keysOf(r)).toEqual(BROWSECOMP_KEYS);
      const response = r.response as { [key: string]: JsonValue };
      expect(keysOf(response)).toEqual([...RESPONSE_KEYS, 'reset_count', 'num_tool_calls', 'pre_reset_warning_steps']);
      expect(keysOf(r.judge_response as { [key: string]: JsonValue })).toEqual(RESPONSE_KEYS);
      const params = r.responses_create_params as { input: { role: string; content: string }[]; tools: { name: string; parameters: { properties: object } }[] };
      expect(params.input.map((m) => m.role)).toEqual(['system', 'user']);
      expect(params.input[1].content.startsWith(r.question as string)).toBe(true);
      expect(params.tools.map((t) => [t.name, Object.keys(t.parameters.properties)])).toEqual([['search', ['queries']], ['browse', ['urls', 'goal']]]);
      const output = response.output as { type: string; name?: string; arguments?: string; output?: string; content?: { text: string }[] }[];
      const calls = output.filter((o) => o.type === 'function_call');
      expect(calls.length).toBe(r.num_tool_calls);
      expect(response.num_tool_calls).toBe(r.num_tool_calls);
      expect(response.reset_count).toBe(r.reset_count);
      for (const c of calls) expect(Object.keys(JSON.parse(c.arguments!))).toEqual(c.name === 'search' ? ['queries'] : ['urls', 'goal']);
      for (const o of output.filter((x) => x.type === 'function_call_output')) expect(o.output).toMatch(/\n\n\[\d+ turns remaining out of 400\]$/);
      const last = output[output.length - 1];
      expect(last.type).toBe('message');
      expect(last.content![0].text).toMatch(/\nExact Answer: .+\n/);
      // The judge's verdict is the top-level `reasoning`, and what it extracted is the extracted_final_answer.
      expect((r.reasoning as string).startsWith(`extracted_final_answer: ${String(r.extracted_final_answer)}\n`)).toBe(true);
      expect(r.reasoning).toMatch(r.reward instanceof JsonFloat && r.reward.value === 1 ? /\ncorrect: yes\n/ : /\ncorrect: no\n/);
      const metered = (r.metrics as { async_tavily_calls: { [key: string]: JsonValue }[] }).async_tavily_calls;
      for (const m of metered) expect(keysOf(m)).toEqual(TAVILY_CALL_KEYS);
      const requests = calls.reduce((n, c) => n + (c.name === 'search' ? (JSON.parse(c.arguments!) as { queries: string[] }).queries.length : 1), 0);
      expect(metered.length).toBe(requests); // one per search query, one per browse call
      expect(metered.reduce((n, m) => n + Number(m.num_429_retries), 0)).toBe(r.num_provider_429s);
    }
  });
});

// Data-keyed objects (tool parameters, call arguments, breakdowns): their keys are content, not layout.
const MAPS = new Set(['properties', '$defs', 'arguments', 'reward_breakdown']);
// The real files have no reasoning items: the fixture's follow the model server's other training items.
const NOT_IN_REAL = /^\$\.response\.output\[reasoning\]/;

interface Skeleton {
  types: Map<string, Set<string>>;
  orders: Map<string, Set<string>>;
}

const typeOf = (v: JsonValue): string =>
  v === null ? 'null' : v instanceof JsonFloat ? 'float' : typeof v === 'bigint' ? 'int' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float')
  : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'str' : Array.isArray(v) ? 'list' : 'dict';

/** Every path of the lines' values (list items named by their `type` or `role`), its value types and key orders. */
function skeleton(texts: string[]): Skeleton {
  const sk: Skeleton = { types: new Map(), orders: new Map() };
  const add = (m: Map<string, Set<string>>, p: string, v: string) => (m.get(p) ?? m.set(p, new Set()).get(p)!).add(v);
  const walk = (v: JsonValue, p: string) => {
    add(sk.types, p, typeOf(v));
    if (Array.isArray(v)) {
      for (const item of v) {
        const o = item !== null && typeof item === 'object' && !Array.isArray(item) && !(item instanceof JsonFloat) ? item : null;
        const name = typeof o?.type === 'string' ? o.type : typeof o?.role === 'string' ? o.role : '';
        walk(item, `${p}[${name}]`);
      }
    } else if (typeOf(v) === 'dict') {
      const obj = v as { [key: string]: JsonValue };
      const isMap = MAPS.has(p.slice(p.lastIndexOf('.') + 1));
      if (!isMap) add(sk.orders, p, keysOf(obj).join(','));
      for (const k of keysOf(obj)) walk(obj[k], `${p}.${isMap ? '*' : k}`);
    }
  };
  for (const t of texts) walk(parsePython(t), '$');
  return sk;
}

const style = (text: string) => (serialize(parsePython(text)) === text ? 'compact' : 'spaced');

function sameLayout(real: NemoGymData, shape: RealShape): void {
  const [fixture, original] = [FIXTURES.file[shape], real.file[shape]];
  const [fl, rl] = [lines(fixture), lines(original)];
  expect(new Set(fl.map(style))).toEqual(new Set(rl.map(style)));
  expect(read(fixture).endsWith('\n')).toBe(read(original).endsWith('\n'));
  expect(fl.length).toBe(rl.length);
  const large = (ls: string[]) => Math.max(...ls.map((l) => Buffer.byteLength(l))) > 65_536;
  expect(large(fl)).toBe(large(rl));
  const [fs, rs] = [skeleton(fl), skeleton(rl)];
  const problems: string[] = [];
  for (const [p, types] of fs.types) {
    if (NOT_IN_REAL.test(p)) continue;
    const theirs = rs.types.get(p);
    // Below a data-keyed object the values are content too: only the layouts of objects met there are compared.
    if (p.includes('.*')) {
      if (!theirs) continue;
    } else if (!theirs) {
      problems.push(`${p}: not in the real file`);
      continue;
    } else {
      for (const t of types) if (!theirs.has(t)) problems.push(`${p}: ${t}, where the real file has ${[...theirs].join('|')}`);
    }
    for (const order of fs.orders.get(p) ?? []) {
      if (!rs.orders.get(p)?.has(order)) problems.push(`${p}: keys ${order}, where the real file has ${[...(rs.orders.get(p) ?? [])].join(' / ')}`);
    }
  }
  expect(problems).toEqual([]);
}

describe.skipIf(!REAL.present)(`${REAL.title}: each fixture has its real file's layout`, () => {
  it.each(REAL_SHAPES)('%s: same writing, line count, large lines, and every object path, key order and value type', (shape) => {
    sameLayout(REAL, shape);
  });
});

describe('the repository carries what its tests need', () => {
  // Code and tests name nothing outside the checkout; the real files' one default location is the resolver's.
  const outside = ['..', 'shared'].join('/');
  it("lib/, scripts/ and tests/ name no path into the checkout's neighbour shared/, but for the resolver's default", () => {
    const found: string[] = [];
    for (const top of ['lib', 'scripts', 'tests']) {
      for (const rel of readdirSync(path.join(ROOT, top), { recursive: true, encoding: 'utf8' })) {
        const file = path.join(ROOT, top, rel);
        if (!statSync(file).isFile() || /\.(png|gz|node|sqlite)$/.test(file)) continue;
        const count = read(file).split(outside).length - 1;
        if (count) found.push(`${path.relative(ROOT, file)}: ${count}`);
      }
    }
    expect(found).toEqual(['tests/support/nemo-gym-data.ts: 1']);
  });

  it(".ci/run's fresh-clone check finds the tiers a clone skips by the marks the tests carry", () => {
    // .ci/run is a shell script with an inline node check: it cannot import the marks, so it holds them as text.
    const ci = read(path.join(ROOT, '.ci/run'));
    expect(ci).toContain(`ancestorTitles.some((title) => title.includes('${REAL_TIER_MARK}'))`);
    expect(ci).toContain(`t.title.includes('${SPEC_TIER_MARK}')`);
    expect(REAL.title.startsWith(REAL_TIER_MARK)).toBe(true);
  });
});
