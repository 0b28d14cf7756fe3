// GET /api/runs/{run}/rollouts/{rollout}/calls/{call}: the call's normalized record with its payloads, written as its
// request and response spans are read (a capture call), or serialized whole (a call known from the rollout line).
import { serialize } from '../../capture/json-serialize';
import type { IndexReader } from '../../index/reader';
import { streamParts } from '../../index/queries/payload';
import { jsonAnswer, readAhead, type Answer } from '../answer';
import { notFound } from '../error-codes';
import { parseCallParams, type CallPathParams } from './call-params';

export async function callRecordEndpoint(index: IndexReader, params: CallPathParams): Promise<Answer> {
  const { run, rollout, call } = parseCallParams(params);
  const body = await index.callDetail(run, rollout, call);
  if (!body) throw notFound(`call '${call}' of rollout '${rollout}'`);
  if (body.kind === 'json') return jsonAnswer(serialize(body.record));
  return { status: 200, headers: { 'content-type': 'application/json' }, body: { kind: 'chunks', chunks: await readAhead(streamParts(body.parts)) } };
}
