// A cold pass's rows built in memory (lib/index/clickhouse/cold-rows.ts) are the rows SQLite's ingest leaves in a
// working copy after the same first pass, column for column and id for id: over the demo data's runs, one after the
// other, and a run made to hold what a pass treats apart (a rollout id on two lines, a capture file no line names, a
// marker without a capture file or line, a line's marker without a capture file, a marker beside a capture file, an
// empty capture file), read in the order a cold pass reads them, each rollout released once final.
import { appendFileSync, cpSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../../lib/index/callscope-index';
import { ColdPassRefused, ColdRows } from '../../../../lib/index/clickhouse/cold-rows';
import { NEW_FILE, readFileForIngest } from '../../../../lib/index/ingest/capture-file';
import { readRolloutsSlice } from '../../../../lib/index/ingest/rollouts-file';
import { migrate } from '../../../../lib/index/schema';
import { INCOMPLETE_SUFFIX, rolloutIdOfCaptureFile } from '../../../../lib/capture/store';
import { isStoreRolloutId } from '../../../../lib/capture/ids';
import type { RunSource } from '../../../../lib/index/sources/discovery';
import { useDemo } from '../../../support/demo';

const fx = useDemo('callscope-cold-rows-');

/**
 * A run's first pass as a cold pass reads it (cold-pass.ts): the rollouts files' rows first, then each line, then the
 * capture file of each rollout it names (here at once: the pass reads them a few slices behind), then the capture files
 * no line names, in the capture dir's order; and the markers no line or capture file names. Each rollout is released
 * once final, as the pass releases it once written (so a key repeated after its first rollout was written is seen):
 * the rows come back in the order they were made final, with the rows left at the end.
 */
function coldPass(rows: ColdRows, run: RunSource): { rollouts: unknown[][]; files: unknown[][]; tools: unknown[][] } {
  const done = { rollouts: [] as unknown[][], files: [] as unknown[][], tools: [] as unknown[][] };
  const release = (rollout: unknown[] | null, file: unknown[] | null) => {
    if (rollout) done.tools.push(...(rows.toolsOf.get(rows.pkOf(rollout)) ?? []));
    if (rollout) done.rollouts.push(rollout);
    if (file) done.files.push(file);
    rows.release(rollout ? [rollout] : [], file ? [file] : []);
  };
  const dir = run.captureDir!;
  const names = readdirSync(dir);
  const markers = new Set(names.filter((n) => n.endsWith(INCOMPLETE_SUFFIX)).map((n) => n.slice(0, -INCOMPLETE_SUFFIX.length)));
  const captured = new Set(names.map((n) => rolloutIdOfCaptureFile(n)).filter((id): id is string => id !== null && isStoreRolloutId(id)));
  const read = new Set<string>();
  const capture = (id: string) => {
    read.add(id);
    const file = path.join(dir, id + '.capture.jsonl');
    const ids = rows.captureFile(file, id, readFileForIngest(file, NEW_FILE), markers.has(id));
    if (ids) release(rows.isPending(ids.row) ? null : ids.row, ids.file);
  };
  const lineFiles: { file: string; kind: 'rollouts' | 'failures'; row: unknown[] }[] = [];
  for (const [file, kind] of [[run.rolloutsFile, 'rollouts'], [run.failuresFile, 'failures']] as const) {
    if (file && lstatSync(file, { throwIfNoEntry: false })?.isFile()) lineFiles.push({ file, kind, row: rows.file(file, kind, null) });
  }
  for (const { file, kind, row } of lineFiles) {
    const st = lstatSync(file);
    const slice = readRolloutsSlice(file, 0, st.size, st.size, true, true);
    for (const l of slice.lines) {
      l.lineNo += 1;
      for (const rollout of rows.lines(row, kind, [l])) {
        const key = rollout[rows.rollouts.at.key] as string;
        if (captured.has(key) && !read.has(key)) capture(key);
        else {
          rows.settle(rollout, markers.has(key) && !captured.has(key));
          release(rollout, null);
        }
      }
    }
    rows.rolloutsFileRead(row, st, slice.end < 0 ? 0 : slice.end, 1 + slice.count);
  }
  for (const id of captured) if (!read.has(id)) capture(id);
  rows.markers([...markers].filter((id) => !captured.has(id) && isStoreRolloutId(id) && !rows.taken(id)));
  rows.finish();
  done.rollouts.push(...rows.rolloutRows);
  done.files.push(...rows.fileRows);
  done.tools.push(...[...rows.rolloutRows].flatMap((r) => rows.toolsOf.get(rows.pkOf(r)) ?? []));
  return done;
}

/** Each table's rows of the working copy, every stored column, in id order. */
function tables(db: Database.Database, rows: ColdRows) {
  const read = (table: string, columns: string[], key: string) => db.prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${key}`).raw().all();
  return {
    rollouts: read('rollouts', rows.rollouts.columns, 'pk'),
    files: read('files', rows.files.columns, 'id'),
    tool_calls: read('tool_calls', rows.tools.columns, 'rollout_pk, seq'),
  };
}

async function expectSameAsIngest(root: string, name: string, check?: (db: Database.Database) => void): Promise<number> {
  const index = await CallscopeIndex.open([{ path: root }], path.join(fx.tmp, `${name}-index`), { workingCopy: true });
  try {
    await index.refresh();
    const runs = index.listRunSources();
    expect(runs.some((r) => r.captureDir)).toBe(true);
    // The cold rows of each run in turn, written to a copy of the schema so that the next run's ids follow them; a run
    // without a capture dir (never a cold pass's) is copied from the working copy as ingest wrote it.
    const scratch = new Database(':memory:');
    migrate(scratch, { rolloutIndexes: false });
    const layout = new ColdRows(scratch, 0);
    const insert = (table: string, columns: string[], list: unknown[][]) => {
      const st = scratch.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      for (const r of list) st.run(...r);
    };
    for (const run of runs) {
      const no = index.runSource(run.id)!.no;
      if (!run.captureDir) {
        const of = (table: string, columns: string[], where: string) => index.db.prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${where}`).raw().all(no) as unknown[][];
        insert('files', layout.files.columns, of('files', layout.files.columns, 'run_no = ?'));
        insert('rollouts', layout.rollouts.columns, of('rollouts', layout.rollouts.columns, 'run_no = ?'));
        insert('tool_calls', layout.tools.columns, of('tool_calls', layout.tools.columns, 'rollout_pk IN (SELECT pk FROM rollouts WHERE run_no = ?)'));
        continue;
      }
      const rows = new ColdRows(scratch, no);
      const made = coldPass(rows, run);
      insert('files', rows.files.columns, made.files);
      insert('rollouts', rows.rollouts.columns, made.rollouts);
      insert('tool_calls', rows.tools.columns, made.tools);
    }
    const want = tables(index.db, layout);
    const got = tables(scratch, layout);
    expect(got.files).toEqual(want.files);
    expect(got.rollouts).toEqual(want.rollouts);
    expect(got.tool_calls).toEqual(want.tool_calls);
    check?.(index.db);
    scratch.close();
    return want.rollouts.length;
  } finally {
    index.close();
  }
}

describe('a cold pass built in memory', () => {
  it('gives the rows SQLite ingest gives over the demo runs', async () => {
    expect(await expectSameAsIngest(fx.demo, 'demo')).toBeGreaterThan(10);
  });

  it('gives them for a run with repeated ids, capture-only rollouts, markers and an empty capture file', async () => {
    const root = path.join(fx.tmp, 'edges');
    const run = path.join(root, 'run');
    const source = readdirSync(fx.demo, { withFileTypes: true }).find((d) => d.isDirectory() && readdirSync(path.join(fx.demo, d.name)).includes('captures'))!.name;
    cpSync(path.join(fx.demo, source), run, { recursive: true });
    const rolloutsFile = path.join(run, 'rollouts.jsonl');
    const lines = readFileSync(rolloutsFile, 'utf8').split('\n').filter(Boolean);
    appendFileSync(rolloutsFile, `${lines[0]}\n${lines[1]}\n`); // two ids on a second line each
    const captures = path.join(run, 'captures');
    const existing = readdirSync(captures).filter((n) => n.endsWith('.capture.jsonl'));
    const copy = (from: string, to: string) => writeFileSync(path.join(captures, to), readFileSync(path.join(captures, from)));
    copy(existing[0], 'only-in-captures.capture.jsonl'); // no line names it
    writeFileSync(path.join(captures, 'empty-one.capture.jsonl'), '');
    writeFileSync(path.join(captures, 'marker-only' + INCOMPLETE_SUFFIX), '');
    writeFileSync(path.join(captures, existing[1].replace('.capture.jsonl', INCOMPLETE_SUFFIX)), '');
    const marked = existing[1].replace('.capture.jsonl', '');
    // A line's rollout whose capture file is gone, with a marker: marked, with no calls.
    const lineMarked = existing[2].replace('.capture.jsonl', '');
    rmSync(path.join(captures, existing[2]));
    writeFileSync(path.join(captures, lineMarked + INCOMPLETE_SUFFIX), '');
    const rolloutCount = await expectSameAsIngest(root, 'edges', (db) => {
      // The edges are there, as ingest stored them (so the rows compared above hold each case).
      const row = (key: string) => db.prepare('SELECT source, marker, num_calls, capture_file IS NOT NULL AS captured, gaps FROM rollouts WHERE key = ?').get(key) as Record<string, unknown> | undefined;
      expect(db.prepare("SELECT count(*) FROM rollouts WHERE key GLOB '*~l[0-9]*'").pluck().get()).toBe(2);
      expect(row('only-in-captures')).toMatchObject({ source: 'capture', captured: 1 });
      expect((row('only-in-captures')!.num_calls as number) > 0).toBe(true);
      expect(row('empty-one')).toMatchObject({ source: 'capture', num_calls: 0, captured: 1 });
      expect(row('marker-only')).toMatchObject({ source: 'capture', marker: 1, captured: 0 });
      expect(row(marked)).toMatchObject({ marker: 1, captured: 1 });
      expect(row(lineMarked)).toMatchObject({ marker: 1, captured: 0, num_calls: 0 });
      expect(db.prepare('SELECT line_no FROM rollouts WHERE key = ?').pluck().get(lineMarked)).not.toBeNull();
    });
    expect(rolloutCount).toBeGreaterThan(lines.length);
  });

  it('refuses a key taken twice over', () => {
    const scratch = new Database(':memory:');
    migrate(scratch, { rolloutIndexes: false });
    const rows = new ColdRows(scratch, 1);
    const file = rows.file('/x/rollouts.jsonl', 'rollouts', null);
    const line = (lineNo: number, rolloutId: string) => ({
      lineNo, offset: 0, length: 2, rolloutId, reward: null, taskIndex: null, rolloutIndex: null, attempt: null, failureClass: null, agent: null, task: null,
      search: null, attachment: null, usage: null, problem: null, prompt: null, expected: null, extracted: null, outcome: null, trajectory: null,
    });
    expect(() => rows.lines(file, 'rollouts', [line(1, 'a'), line(2, 'a~l3'), line(3, 'a')])).toThrow(ColdPassRefused);
    scratch.close();
  });
});
