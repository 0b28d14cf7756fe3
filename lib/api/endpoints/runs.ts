// GET /api/runs: every run with its counts, totals and indexing progress.
import type { IndexReader } from '../../index/reader';
import { jsonAnswer, type Answer } from '../answer';

export async function runsEndpoint(index: IndexReader): Promise<Answer> {
  return jsonAnswer(JSON.stringify({ runs: await index.listRuns() }));
}
