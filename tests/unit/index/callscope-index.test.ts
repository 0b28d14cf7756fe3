// The index against the format library: every rollout's metrics and gaps equal what lib/capture computes
// from the same files; appends, partial lines, truncation and restarts converge to the file contents.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, promises as fsp, readdirSync, readFileSync, symlinkSync, writeFileSync, truncateSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { presentRollout } from '../../../lib/api/present';
import { buildAttachment, collectCapture } from '../../../lib/capture/attachment';
import { mergeCaptureIntoLine } from '../../../lib/rollouts/merge-capture';
import type { JsonObject } from '../../../lib/capture/json-value';
import { parsePython } from '../../../lib/capture/json-parse';
import { serialize } from '../../../lib/capture/json-serialize';
import { parsePathSpec } from '../../../lib/index/sources/discovery';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { useDemo } from '../../support/demo';
import { line, makeExchange } from '../../support/exchange';
import { FIXTURES, nonBlankLines, TIERS, type NemoGymData, type RealShape } from '../../support/nemo-gym-data';
import { reportFigure } from '../../support/reliability';

const fx = useDemo('callscope-index-');

async function openIndex(paths: string[], dir = path.join(fx.tmp, `idx-${Math.random().toString(36).slice(2)}`)) {
  const index = await CallscopeIndex.open(paths.map((p) => ({ path: p })), dir);
  await index.refresh();
  return index;
}

/**
 * A rollouts file appended to while a full pass reads it: the tier's rollout files as one file (no capture
 * dir), read in small slices by a worker so that the pass awaits between them; the live path is asked for the
 * same file meanwhile, as the watcher would. Every line must be indexed once.
 */
async function appendedDuringPass(data: NemoGymData): Promise<void> {
  const root = path.join(fx.tmp, `race-${data.tier}`);
  mkdirSync(root, { recursive: true });
  const file = path.join(root, 'rollouts.jsonl');
  const source = data.files.map((f) => readFileSync(f, 'utf8').replace(/\n?$/, '\n')).join('');
  writeFileSync(file, source);
  const index = await CallscopeIndex.open([{ path: file }], path.join(fx.tmp, `idx-race-${data.tier}`), { workers: 1, minBytes: 0, sliceBytes: 4096 });
  const full = index.refresh();
  const extra = source.split('\n')[0] + '\n';
  await new Promise((r) => setTimeout(r, 0));
  appendFileSync(file, extra);
  const live = index.refreshPaths(new Set([file]));
  await Promise.all([full, live]);
  await index.refresh();
  const lines = source.split('\n').filter(Boolean).length + 1;
  const rows = index.db.prepare('SELECT key, line_no FROM rollouts ORDER BY line_no').all() as { key: string; line_no: number }[];
  expect(rows.map((r) => r.line_no)).toEqual(Array.from({ length: lines }, (_, i) => i + 1));
  index.close();
}

describe('index over the demo data', () => {
  it('every capture-backed rollout has the metrics, calls and gaps lib/capture computes', async () => {
    const index = await openIndex([fx.demo]);
    let checked = 0;
    for (const run of index.listRuns().filter((r) => r.capture_dir)) {
      const page = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 500 })!;
      for (const row of page.rollouts.filter((r) => r.rollout_id)) {
        const expected = buildAttachment(row.rollout_id!, await collectCapture([run.capture_dir!], row.rollout_id!, false), false);
        const detail = await index.rolloutDetail(run.id, row.key);
        expect(serialize(detail!.capture as JsonObject)).toBe(serialize(expected));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    index.close();
  });

  it('pages through every sort key without duplicates or holes', async () => {
    const index = await openIndex([fx.demo]);
    const run = index.listRuns().find((r) => r.id === 'workplace-assistant')!;
    for (const sort of ['tokens_total', 'reward', 'latency_max', 'rollout', 'gaps', 'started_at'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const keys: string[] = [];
        let cursor: string | undefined;
        do {
          const page = index.listRollouts(run.id, { sort, order, limit: 7, cursor })!;
          keys.push(...page.rollouts.map((r) => r.key));
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        expect(new Set(keys).size).toBe(run.totals.rollouts);
        expect(keys).toHaveLength(run.totals.rollouts);
      }
    }
    index.close();
  });

  it('filters: errors, gaps, search', async () => {
    const index = await openIndex([fx.demo]);
    for (const run of index.listRuns()) {
      const all = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 500 })!.rollouts;
      const withErrors = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 500, has_errors: true })!;
      expect(withErrors.total).toBe(all.filter((r) => r.errors > 0).length);
      const noRecords = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 500, gap: 'model_call_capture_no_records' })!;
      expect(noRecords.total).toBe(all.filter((r) => (r.gaps ?? '').includes('model_call_capture_no_records')).length);
      if (all[0]) expect(index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 5, q: all[0].key })!.rollouts.map((r) => r.key)).toContain(all[0].key);
    }
    index.close();
  });
});

// What each tier's files hold, read off them with Python's json.loads (rewards by key; each line's
// response.usage: input/output/total tokens, input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens).
const EXPECTED = {
  fixtures: {
    mcqaRewards: [1, 0, 1, 0, 1],
    stringMatchRewards: { '0-0': 1, '1-0': 0, '2-0': 1, '3-0': 1, '4-0': 1 },
    instance: 'quillpress__quillpress-3318',
    otherInstance: 'astropy__astropy',
    usage: {
      anyswe: ['0-0', { tokens_in: 163841, tokens_out: 18275, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 182116 }],
      string_match: ['3-0', { tokens_in: 31, tokens_out: 96, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 127 }],
      workplace: ['line-1', { tokens_in: 2291, tokens_out: 57, tokens_reasoning: 0, cached_tokens: 2048, tokens_total: 2348 }],
      tau2: '104-7',
    },
    anysweSum: { rollouts: 5, tokens_in: 307681, tokens_out: 33900, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 341581 },
    stringMatchSum: { rollouts: 5, tokens_in: 133, tokens_out: 186, tokens_total: 319 },
  },
  real: {
    mcqaRewards: [0, 1, 0, 1, 1],
    stringMatchRewards: { '0-0': 1, '1-0': 1, '2-0': 1, '3-0': 1, '4-0': 1 },
    instance: 'astropy__astropy-12907',
    otherInstance: 'django__django',
    usage: {
      anyswe: ['0-0', { tokens_in: 174322, tokens_out: 21397, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 195719 }],
      string_match: ['3-0', { tokens_in: 32, tokens_out: 28, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 60 }],
      workplace: ['line-1', { tokens_in: 2279, tokens_out: 61, tokens_reasoning: 0, cached_tokens: 2048, tokens_total: 2340 }],
      tau2: '102-7',
    },
    anysweSum: { rollouts: 5, tokens_in: 321734, tokens_out: 37746, tokens_reasoning: 0, cached_tokens: 0, tokens_total: 359480 },
    stringMatchSum: { rollouts: 5, tokens_in: 144, tokens_out: 233, tokens_total: 377 },
  },
} as const;

/** The run of one of the tier's files. */
const runOf = (index: CallscopeIndex, file: string) => index.listRuns().find((r) => r.rollouts_file === file)!;

for (const data of TIERS) {
  const want = EXPECTED[data.tier];
  describe.skipIf(!data.present)(`index over ${data.title}, without capture`, () => {
    it('lists every line with its reward, by id or by line number', async () => {
      const index = await openIndex([data.dir]);
      expect(index.listRuns().length).toBe(data.files.length);
      const mcqa = index.listRollouts(runOf(index, data.file.mcqa).id, { sort: 'rollout', order: 'asc', limit: 50 })!;
      expect(mcqa.rollouts.map((r) => r.key)).toEqual(['line-1', 'line-2', 'line-3', 'line-4', 'line-5']);
      expect(mcqa.rollouts.map((r) => r.reward)).toEqual(want.mcqaRewards);
      const sm = index.listRollouts(runOf(index, data.file.string_match).id, { sort: 'rollout', order: 'asc', limit: 50 })!;
      expect(sm.rollouts.map((r) => r.key)).toEqual(['0-0', '1-0', '2-0', '3-0', '4-0']);
      expect(Object.fromEntries(sm.rollouts.map((r) => [r.key, r.reward]))).toEqual(want.stringMatchRewards);
      index.close();
    });

    it("paired with an empty capture dir: the gaps and attachment NeMo Gym's merge gives (none for a line without a rollout id)", async () => {
      const captures = path.join(fx.tmp, `empty-captures-${data.tier}`);
      mkdirSync(captures, { recursive: true });
      for (const file of [data.file.string_match, data.file.workplace_assistant]) {
        const index = await CallscopeIndex.open([parsePathSpec(`${file}=${captures}`)], path.join(fx.tmp, `idx-empty-${data.tier}-${path.basename(file)}`));
        await index.refresh();
        const run = index.listRuns()[0];
        const lines = nonBlankLines(readFileSync(file, 'utf8'));
        const page = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 50 })!;
        expect(page.rollouts.length).toBe(lines.length);
        for (const row of page.rollouts) {
          const merged = await mergeCaptureIntoLine(parsePython(lines[row.line_no! - 1]), [captures], false);
          const detail = (await index.rolloutDetail(run.id, row.key))!;
          const expected = merged.line ? (merged.line.ng_model_call_capture as JsonObject) : null;
          expect(detail.capture === null ? null : serialize(detail.capture as JsonObject), row.key).toBe(expected === null ? null : serialize(expected));
          expect(JSON.parse(row.gaps ?? '[]'), row.key).toEqual(expected ? (expected.gaps ?? []) : []);
        }
        index.close();
      }
    });

    it("search finds a SWE line by its request metadata's instance_id, and a tau2 line by its task's id (their task column)", async () => {
      const index = await openIndex([data.dir]);
      // The SWE file's 5 lines are 5 rollouts of one instance (task 0).
      const swe = runOf(index, data.file.anyswe_claude_code).id;
      const found = index.listRollouts(swe, { sort: 'rollout', order: 'asc', limit: 50, q: want.instance })!;
      expect(found.rollouts.map((r) => [r.key, r.task])).toEqual(['0-0', '0-1', '0-2', '0-3', '0-4'].map((k) => [k, want.instance]));
      expect(index.listRollouts(swe, { sort: 'rollout', order: 'asc', limit: 50, q: want.otherInstance })!.total).toBe(0);
      const tau2 = JSON.parse(readFileSync(data.file.tau2, 'utf8').split('\n')[0]) as { task: { id: string } };
      const first = index.listRollouts(runOf(index, data.file.tau2).id, { sort: 'rollout', order: 'asc', limit: 50 })!.rollouts.find((r) => r.line_no === 1)!;
      expect(first.task).toBe(tau2.task.id);
      index.close();
    });

    it("keeps each line's own response.usage (the files have no calls), per rollout and summed per run", async () => {
      const index = await openIndex([data.dir]);
      const run = (shape: RealShape) => runOf(index, data.file[shape]);
      const rollout = async (shape: RealShape, key: string) => presentRollout((await index.rolloutDetail(run(shape).id, key))!.rollout);
      const { anyswe, string_match, workplace, tau2 } = want.usage;
      expect((await rollout('anyswe_claude_code', anyswe[0])).response_usage).toEqual(anyswe[1]);
      expect((await rollout('string_match', string_match[0])).response_usage).toEqual(string_match[1]);
      expect((await rollout('workplace_assistant', workplace[0])).response_usage).toEqual(workplace[1]);
      expect((await rollout('tau2', tau2)).response_usage).toBeNull(); // "usage": null
      expect(run('anyswe_claude_code').totals.response_usage).toEqual(want.anysweSum);
      expect(run('string_match').totals.response_usage).toMatchObject(want.stringMatchSum);
      expect(run('tau2').totals.response_usage).toBeNull();
      // The captured figures stay unknown: no call was captured.
      expect(run('anyswe_claude_code').totals).toMatchObject({ calls: 0, tokens_in: null, tokens_total: null });
      index.close();
    });

    it('the workplace_assistant file (5 lines, no final newline) lists all 5 rollouts', async () => {
      const file = data.file.workplace_assistant;
      expect(readFileSync(file, 'utf8').split('\n').length).toBe(5); // 4 newlines: the 5th line is unterminated
      const index = await openIndex([file]);
      const run = index.listRuns()[0];
      expect(index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 50 })!.rollouts.map((r) => r.key)).toEqual(['line-1', 'line-2', 'line-3', 'line-4', 'line-5']);
      expect(run.totals.response_usage?.rollouts).toBe(5);
      index.close();
    });

    it('a rollouts file appended to while a full pass reads it: every line indexed once (no duplicate rollout)', async () => {
      await appendedDuringPass(data);
    });
  });
}

// browsecomp has no real file (SHAPES): its checks run over the fixture alone. Its answers are ground_truth and the
// judge's extracted_final_answer, not expected_answer / extracted_answer; the question is its task and prompt.
describe('index over the browsecomp fixture (a judge-graded search agent)', () => {
  it("reads the question as the task and the prompt, ground_truth and extracted_final_answer as the answers, and the agent's counters as the outcome", async () => {
    const file = FIXTURES.file.browsecomp;
    const index = await openIndex([file]);
    const run = index.listRuns()[0];
    const rows = index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 50 })!.rollouts;
    const lines = nonBlankLines(readFileSync(file, 'utf8')).map((l) => JSON.parse(l) as Record<string, unknown> & { responses_create_params: { input: { role: string; content: string }[] } });
    expect(rows.length).toBe(lines.length);
    for (const row of rows) {
      const l = lines[row.line_no! - 1];
      const presented = presentRollout(row);
      expect(row.key).toBe(`${l._ng_task_index}-${l._ng_rollout_index}`);
      expect(presented.task).toBe(l.question);
      expect(presented.prompt).toBe(l.responses_create_params.input.find((m) => m.role === 'user')!.content);
      expect(presented.prompt!.startsWith(l.question as string)).toBe(true);
      expect(presented.expected_answer).toBe(l.ground_truth);
      expect(presented.extracted_answer).toBe(l.extracted_final_answer);
      expect(presented.outcome).toEqual({ num_tool_calls: l.num_tool_calls, reset_count: l.reset_count });
      // vLLM reports no cached or reasoning counts: unknown, not 0.
      expect(presented.response_usage).toMatchObject({ cached_tokens: null, tokens_reasoning: null });
    }
    // Search finds a line by its ground truth and by the judge's extracted answer.
    const wrong = lines.find((l) => l.reward === 0 && l.extracted_final_answer !== 'None')!;
    for (const q of [wrong.ground_truth, wrong.extracted_final_answer] as string[]) {
      expect(index.listRollouts(run.id, { sort: 'rollout', order: 'asc', limit: 50, q })!.rollouts.map((r) => r.key)).toEqual([`${wrong._ng_task_index}-0`]);
    }
    index.close();
  });
});

describe('a rollouts file whose last line has no newline', () => {
  const keys = (index: CallscopeIndex, run: string) => index.listRollouts(run, { sort: 'rollout', order: 'asc', limit: 50 })!.rollouts.map((r) => r.key);
  const rollout = (t: number, extra = '') => `{"_ng_task_index":${t},"_ng_rollout_index":0,"reward":${t / 10}${extra}}`;

  it('a whole-object tail is listed; appends read it again in place; a partial tail waits; restarts read nothing', async () => {
    const root = path.join(fx.tmp, 'tail');
    mkdirSync(root, { recursive: true });
    const file = path.join(root, 'rollouts.jsonl');
    writeFileSync(file, `${rollout(0)}\n${rollout(1)}`);
    const dir = path.join(fx.tmp, 'idx-tail');
    let index = await openIndex([root], dir);
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0']);
    // The newline arrives with the next line: 1-0 is read again in its place, not added twice.
    appendFileSync(file, `\n${rollout(2)}\n`);
    await index.refreshPaths(new Set([file]));
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0', '2-0']);
    // A line still being written is not an object: it waits until it is one.
    const third = rollout(3, ',"note":"x"');
    appendFileSync(file, third.slice(0, 30));
    await index.refreshPaths(new Set([file]));
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0', '2-0']);
    appendFileSync(file, third.slice(30));
    await index.refreshPaths(new Set([file]));
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0', '2-0', '3-0']);
    expect(index.listRuns()[0].totals.rollouts).toBe(4);
    // A provisional tail that the append turns into something else: the old row goes, the line is what it now is.
    appendFileSync(file, ' trailing junk\n');
    await index.refreshPaths(new Set([file]));
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0', '2-0', 'line-4']);
    appendFileSync(file, rollout(5));
    await index.refreshPaths(new Set([file]));
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0', '2-0', '5-0', 'line-4']);
    index.close();
    // A restart over the unchanged file reads nothing and keeps the provisional tail.
    index = await CallscopeIndex.open([{ path: root }], dir);
    await index.refresh();
    expect(index.listRuns()[0].progress.files_read).toBe(0);
    expect(keys(index, 'tail')).toEqual(['0-0', '1-0', '2-0', '5-0', 'line-4']);
    index.close();
  });
});

describe("a rollout line's attachment against the capture dir", () => {
  // NeMo Gym writes the attachment when it collects a rollout; calls captured after that are in the capture dir
  // only. Both are kept (the capture dir's calls are listed) and the row says they differ.
  it('calls captured after collection are kept and flagged; agreeing lines and lines without an id are not', async () => {
    for (const [name, options] of [['serial', { workers: 0 }], ['workers', { workers: 2, minFiles: 0, minBytes: 0, awaitWorkers: true }]] as const) {
      const root = path.join(fx.tmp, `mismatch-${name}`);
      const captures = path.join(root, 'run', 'captures');
      mkdirSync(captures, { recursive: true });
      const cap = (id: string) => path.join(captures, `${id}.capture.jsonl`);
      writeFileSync(cap('0-0'), line(makeExchange({ model_call_id: 'a' })) + line(makeExchange({ model_call_id: 'b' })));
      writeFileSync(cap('1-0'), line(makeExchange({ model_call_id: 'c' })));
      const lines: string[] = [];
      for (const t of [0, 1]) {
        const merged = await mergeCaptureIntoLine(parsePython(`{"_ng_task_index":${t},"_ng_rollout_index":0,"reward":1}`), [captures], false);
        lines.push(serialize(merged.line!));
      }
      lines.push('{"reward":0.5}'); // no derivable rollout id: no attachment, no gaps
      writeFileSync(path.join(root, 'run', 'rollouts.jsonl'), lines.join('\n') + '\n');
      appendFileSync(cap('0-0'), line(makeExchange({ model_call_id: 'late' })));
      // A capture file named like the id-less line's key reaches that row: still no gaps (no id, no capture to miss).
      writeFileSync(cap('line-3'), '{"damaged\n');

      const index = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `idx-mismatch-${name}`), options);
      await index.refresh();
      const rows = () => Object.fromEntries(index.listRollouts('run', { sort: 'rollout', order: 'asc', limit: 10 })!.rollouts.map((r) => [r.key, r]));
      let byKey = rows();
      expect(Object.keys(byKey).sort(), name).toEqual(['0-0', '1-0', 'line-3']);
      expect([byKey['0-0'].num_calls, byKey['0-0'].attached_calls, byKey['0-0'].mismatch], name).toEqual([3, 2, 1]);
      expect(presentRollout(byKey['0-0']).attachment_mismatch, name).toBe(true);
      expect([byKey['1-0'].num_calls, byKey['1-0'].attached_calls, byKey['1-0'].mismatch], name).toEqual([1, 1, 0]);
      expect([byKey['line-3'].num_calls, byKey['line-3'].mismatch, JSON.parse(byKey['line-3'].gaps ?? 'null')], name).toEqual([0, 0, []]);
      expect(JSON.parse(byKey['1-0'].gaps ?? 'null'), name).toEqual([]);

      // A call appended later, read by the live path: now 1-0 differs too.
      appendFileSync(cap('1-0'), line(makeExchange({ model_call_id: 'later' })));
      await index.refreshPaths(new Set([cap('1-0')]));
      byKey = rows();
      expect([byKey['1-0'].num_calls, byKey['1-0'].mismatch], name).toEqual([2, 1]);
      index.close();
    }
  });
});

describe('live ingest', () => {
  it('appended calls and new rollouts appear; a partial line only once completed', async () => {
    const root = path.join(fx.tmp, 'live');
    const captures = path.join(root, 'run', 'captures');
    mkdirSync(captures, { recursive: true });
    writeFileSync(path.join(captures, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'a' })));
    const index = await openIndex([root]);
    const count = () => index.listRuns()[0].totals.calls;
    expect(count()).toBe(1);
    appendFileSync(path.join(captures, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'b' })));
    const partial = serialize(makeExchange({ model_call_id: 'c' }));
    appendFileSync(path.join(captures, '0-0.capture.jsonl'), partial.slice(0, 40));
    writeFileSync(path.join(captures, '1-0.capture.jsonl'), line(makeExchange({ model_call_id: 'd' })));
    await index.refreshPaths(new Set([path.join(captures, '0-0.capture.jsonl'), path.join(captures, '1-0.capture.jsonl')]));
    expect(count()).toBe(3);
    appendFileSync(path.join(captures, '0-0.capture.jsonl'), partial.slice(40) + '\n');
    await index.refreshPaths(new Set([path.join(captures, '0-0.capture.jsonl')]));
    expect(count()).toBe(4);
    const detail = await index.rolloutDetail('run', '0-0');
    expect((detail!.capture!.calls as JsonObject[]).map((c) => c.model_call_id)).toEqual(['a', 'b', 'c']);
    index.close();
  });

  it('a capture file that is a symlink or a FIFO is not read (nothing followed out of the dir, no pass left waiting)', async () => {
    const root = path.join(fx.tmp, 'special');
    const captures = path.join(root, 'run', 'captures');
    mkdirSync(captures, { recursive: true });
    const outside = path.join(fx.tmp, 'outside.capture.jsonl');
    writeFileSync(outside, line(makeExchange({ model_call_id: 'secret' })));
    writeFileSync(path.join(captures, '0-0.capture.jsonl'), line(makeExchange({ model_call_id: 'a' })));
    symlinkSync(outside, path.join(captures, '1-0.capture.jsonl'));
    expect(spawnSync('mkfifo', [path.join(captures, '2-0.capture.jsonl')]).status).toBe(0);
    // Workers for every pass too: a worker reading a FIFO would block the pass as surely.
    for (const options of [{ workers: 0 }, { workers: 1, minFiles: 0 }]) {
      const index = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `idx-special-${options.workers}`), options);
      await index.refresh();
      expect(index.listRuns()[0].totals.calls).toBe(1);
      const ids = index.db.prepare('SELECT model_call_id FROM calls').pluck().all();
      expect(ids).toEqual(['a']);
      index.close();
    }
    reportFigure('R7', 'a capture file that is a symlink to a canary outside the dir, and a FIFO: neither read', { probes: 2, escapes: 0 });
  });

  it("model_call_ids: NeMo Gym's (uuid4().hex) stored as 16 bytes, any other as text; each reads back and is found as it was", async () => {
    const captures = path.join(fx.tmp, 'call-ids', 'run', 'captures');
    mkdirSync(captures, { recursive: true });
    const hex = '9f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f';
    const ids = [hex, hex.toUpperCase(), hex.slice(1), `${hex}0`, 'call-1', null];
    writeFileSync(path.join(captures, '0-0.capture.jsonl'), ids.map((id) => line(makeExchange({ model_call_id: id }))).join(''));
    for (const options of [{ workers: 0 }, { workers: 1, minFiles: 0, awaitWorkers: true }]) {
      const index = await CallscopeIndex.open([{ path: path.join(fx.tmp, 'call-ids') }], path.join(fx.tmp, `idx-call-ids-${options.workers}`), options);
      await index.refresh();
      const stored = index.db.prepare('SELECT typeof(model_call_id) AS type, length(model_call_id) AS length FROM calls ORDER BY call_index').all();
      expect(stored).toEqual([
        { type: 'blob', length: 16 }, { type: 'text', length: 32 }, { type: 'text', length: 31 }, { type: 'text', length: 33 },
        { type: 'text', length: 6 }, { type: 'null', length: null },
      ]);
      const run = index.listRuns()[0].id;
      expect(index.rolloutCalls(run, '0-0')!.map((c) => c.model_call_id)).toEqual(ids);
      // Found by the id as written: the lowercase id is not its uppercase twin, and the reverse.
      ids.forEach((id, k) => {
        const ref = id ?? `i${k}`;
        expect(index.callContext(run, '0-0', ref)?.call).toMatchObject({ call_index: k, model_call_id: id });
      });
      expect(index.callContext(run, '0-0', hex.slice(0, 31) + 'e')).toBeNull();
      index.close();
    }
  });

  it('restart over unchanged files reads nothing; truncated and replaced files are read again', async () => {
    const root = path.join(fx.tmp, 'restart');
    const captures = path.join(root, 'run', 'captures');
    mkdirSync(captures, { recursive: true });
    const file = path.join(captures, '0-0.capture.jsonl');
    writeFileSync(file, line(makeExchange({ model_call_id: 'a' })) + line(makeExchange({ model_call_id: 'b' })));
    const dir = path.join(fx.tmp, 'restart-index');
    (await openIndex([root], dir)).close();
    const again = await openIndex([root], dir);
    expect(again.listRuns()[0].progress.bytes_read).toBe(0);
    expect(again.listRuns()[0].totals.calls).toBe(2);
    again.close();
    truncateSync(file, 0);
    writeFileSync(file, line(makeExchange({ model_call_id: 'z' })));
    const third = await openIndex([root], dir);
    expect(third.listRuns()[0].totals.calls).toBe(1);
    expect(((await third.rolloutDetail('run', '0-0'))!.capture!.calls as JsonObject[])[0].model_call_id).toBe('z');
    third.close();
    await fsp.rm(file);
    writeFileSync(file + '.tmp', line(makeExchange({ model_call_id: 'y' })) + line(makeExchange({ model_call_id: 'x' })) + line(makeExchange()));
    await fsp.rename(file + '.tmp', file);
    const fourth = await openIndex([root], dir);
    expect(fourth.listRuns()[0].totals.calls).toBe(3);
    fourth.close();
  });

  it('run totals stored with the compare figures serve a warm start, and give way to a change made while closed', async () => {
    const root = path.join(fx.tmp, 'kept-totals');
    await fsp.cp(fx.demo, root, { recursive: true });
    const dir = path.join(fx.tmp, 'kept-totals-index');
    const first = await CallscopeIndex.open([{ path: root }], dir, { compareFillMin: 1 });
    await first.refresh();
    await first.compareFilled();
    const before = first.listRuns();
    first.close();
    const run = before.find((r) => r.capture_dir && r.totals.calls > 0)!;
    const stored = () => {
      const db = new Database(path.join(dir, 'index.sqlite'), { readonly: true });
      try {
        const sql = "SELECT json_extract(stats, '$.comparison.totals') FROM run_stats JOIN runs ON runs.no = run_no WHERE runs.id = ?";
        return JSON.parse((db.prepare(sql).pluck().get(run.id) as string | undefined) ?? 'null') as unknown;
      } finally {
        db.close();
      }
    };
    expect(stored()).toEqual(run.totals);

    // Unchanged files: the warm start serves the stored totals, before its pass, during it and after. (A mark put
    // into the stored figures shows they are read, not the run's rows.)
    const MARK = 424242;
    const writable = new Database(path.join(dir, 'index.sqlite'));
    writable.prepare("UPDATE run_stats SET stats = json_set(stats, '$.comparison.totals.calls', ?) WHERE run_no = (SELECT no FROM runs WHERE id = ?)").run(MARK, run.id);
    writable.close();
    const marked = before.map((r) => (r.id === run.id ? { ...r.totals, calls: MARK } : r.totals));
    const warm = await CallscopeIndex.open([{ path: root }], dir, { compareFillMin: 1 });
    expect(warm.listRuns().map((r) => r.totals)).toEqual(marked);
    const pass = warm.refresh();
    expect(warm.listRuns().map((r) => r.totals)).toEqual(marked);
    await pass;
    expect(warm.listRuns().map((r) => r.totals)).toEqual(marked);
    warm.close();

    // A call appended while closed: seen once the pass reads it, and the figures stored again with it.
    const file = path.join(run.capture_dir!, readdirSync(run.capture_dir!).find((f) => f.endsWith('.capture.jsonl'))!);
    appendFileSync(file, line(makeExchange({ model_call_id: 'appended-while-closed' })));
    const changed = await CallscopeIndex.open([{ path: root }], dir, { compareFillMin: 1 });
    const reading = changed.refresh();
    changed.listRuns(); // totals asked for while the pass runs
    await reading;
    const after = changed.listRuns().find((r) => r.id === run.id)!;
    expect(after.totals.calls).toBe(run.totals.calls + 1); // the rows, not the marked figures
    expect(stored()).not.toEqual(expect.objectContaining({ calls: MARK }));
    await changed.compareFilled();
    expect(stored()).toEqual(after.totals);
    changed.close();
  });

  it('closing the index while a pass runs ends the pass quietly (no write to the closed database)', async () => {
    const dir = path.join(fx.tmp, 'close-mid-pass');
    const index = await CallscopeIndex.open([{ path: fx.demo }], dir);
    const pass = index.refresh();
    await new Promise((resolve) => setTimeout(resolve, 20));
    index.close();
    await expect(pass).resolves.toBeUndefined();
  });

  it('a deleted capture file leaves a no_records rollout; a marker appears as incomplete', async () => {
    const root = path.join(fx.tmp, 'delete');
    const captures = path.join(root, 'run', 'captures');
    mkdirSync(captures, { recursive: true });
    const file = path.join(captures, '0-0.capture.jsonl');
    writeFileSync(file, line(makeExchange()));
    const index = await openIndex([root]);
    await fsp.rm(file);
    writeFileSync(path.join(captures, '1-0.capture.incomplete'), '');
    await index.refreshPaths(new Set([file, path.join(captures, '1-0.capture.incomplete')]));
    const rows = index.listRollouts('run', { sort: 'rollout', order: 'asc', limit: 10 })!.rollouts;
    expect(rows.map((r) => [r.key, r.num_calls, r.gaps])).toEqual([
      ['0-0', 0, '[{"code":"model_call_capture_no_records"}]'],
      ['1-0', 0, '[{"code":"model_call_capture_incomplete"}]'],
    ]);
    index.close();
  });
});
