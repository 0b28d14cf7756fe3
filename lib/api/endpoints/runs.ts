// GET /api/runs: every run with its counts, totals and indexing progress.
import type { CallscopeIndex } from '../../index/callscope-index';
import { jsonAnswer, type Answer } from '../answer';

export function runsEndpoint(index: CallscopeIndex): Answer {
  return jsonAnswer(JSON.stringify({ runs: index.listRuns() }));
}
