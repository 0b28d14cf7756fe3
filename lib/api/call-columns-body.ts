// The JSON body of GET .../calls: a rollout's call columns, serialized once per column so that a request for
// some of them (`?fields=`) is a join of cached strings. The rollout page asks for its columns in a few
// parallel parts, so that the browser receives and parses about 1 MB per task instead of 4 MB in one (30,000
// calls). With every column, the body is the same text as JSON.stringify of the whole object.
import { CALL_COLUMNS_ALWAYS, type CallColumns } from './call-schemas';

export type ColumnTexts = [key: string, json: string][];

/** Each column of `c` as JSON, in the object's key order. */
export function columnTexts(c: CallColumns): ColumnTexts {
  return Object.entries(c).map(([k, v]) => [k, JSON.stringify(v)]);
}

const ALWAYS = new Set(CALL_COLUMNS_ALWAYS);

/** The body holding `fields` (all columns when undefined) and the columns every answer carries. */
export function columnsBody(texts: ColumnTexts, fields?: readonly string[]): string {
  const wanted = fields ? new Set(fields) : null;
  const parts = texts.filter(([k]) => !wanted || wanted.has(k) || ALWAYS.has(k)).map(([k, json]) => `${JSON.stringify(k)}:${json}`);
  return `{${parts.join(',')}}`;
}
