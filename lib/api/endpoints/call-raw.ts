// GET /api/runs/{run}/rollouts/{rollout}/calls/{call}/raw[?download]: the call's stored capture line, byte for byte.
import type { IndexReader } from '../../index/reader';
import { spanAnswer, type Answer } from '../answer';
import { notFound } from '../error-codes';
import { parseCallParams, type CallPathParams } from './call-params';

export async function callRawEndpoint(index: IndexReader, params: CallPathParams & { download: boolean }): Promise<Answer> {
  const { run, rollout, call } = parseCallParams(params);
  const span = await index.rawLocation(run, rollout, call);
  const what = `stored capture line of call '${call}'`;
  if (!span) throw notFound(what);
  return spanAnswer(span, what, params.download ? `${rollout}-${call}.jsonl` : null);
}
