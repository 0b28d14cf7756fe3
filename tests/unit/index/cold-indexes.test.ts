// A cold ingest writes the rollouts without their secondary indexes and builds them at the end (schema.ts,
// ROLLOUT_INDEXES). Users rely on three things: the finished index has every one of them (sorted and filtered
// pages use them by name), pages asked for while they are missing still answer, and an index whose ingest
// stopped before they were built gets them back when it is opened again.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { useDemo } from '../../support/demo';
import { listRollouts } from '../../../lib/index/queries/rollouts';
import { ROLLOUT_INDEXES, dropRolloutIndexes, hasIndex } from '../../../lib/index/schema';

const fx = useDemo('callscope-cold-');

const indexNames = (db: Database.Database) =>
  (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'rollouts\\_%' ESCAPE '\\'").pluck().all() as string[]).sort();
const ALL = ROLLOUT_INDEXES.map((i) => i.name).sort();

/** A filtered page sorted by tokens (the plan that names its index) and the same page by brute force. */
function checkPage(db: Database.Database, runNo: number): void {
  const query = { sort: 'tokens_total', order: 'desc', limit: 5, has_errors: false } as const;
  const walked = listRollouts(db, runNo, query, { plan: 'auto', matchesMax: 0 });
  const matched = listRollouts(db, runNo, query, { plan: 'matches' });
  const expected = db
    .prepare('SELECT key FROM rollouts WHERE run_no = ? AND errors = 0 ORDER BY IFNULL(tokens_total, -1e308) DESC, pk DESC LIMIT 5')
    .pluck()
    .all(runNo);
  expect(expected.length).toBe(5);
  expect(walked.rollouts.map((r) => r.key)).toEqual(expected);
  expect(matched.rollouts.map((r) => r.key)).toEqual(expected);
}

describe('the rollouts indexes of a cold ingest', () => {
  it('are all built by the end of the first refresh, and pages answer while they are missing', async () => {
    const index = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx-a'), { workers: 0 });
    expect(indexNames(index.db)).toEqual(ALL);
    const refreshing = index.refresh();
    // The pass has started (and dropped them) before its first await.
    expect(ALL.some((name) => hasIndex(index.db, name))).toBe(false);
    await refreshing;
    expect(indexNames(index.db)).toEqual(ALL);
    const run = index.listRunSources()[0] as { id: string };
    const runNo = (index.db.prepare('SELECT no FROM runs WHERE id = ?').get(run.id) as { no: number }).no;
    checkPage(index.db, runNo);
    dropRolloutIndexes(index.db);
    checkPage(index.db, runNo);
    // A warm refresh (rows present) leaves the indexes alone; only opening again restores them.
    await index.refresh();
    expect(indexNames(index.db)).toEqual([]);
    index.close();
    const reopened = await CallscopeIndex.open([{ path: fx.demo }], path.join(fx.tmp, 'idx-a'), { workers: 0 });
    expect(indexNames(reopened.db)).toEqual(ALL);
    checkPage(reopened.db, runNo);
    reopened.close();
  });
});
