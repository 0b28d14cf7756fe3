// fast-check generators of capture lines (NeMo Gym exchanges written as text, token by token): realistic, tricky
// and adversarial ones, valid or not, and a one-byte edit of any line. The line scans' equivalence test
// (tests/unit/index/scan/fast-scan.property.test.ts) draws single lines from them; the native file read's
// (tests/unit/index/ingest/native-read.property.test.ts) writes them into capture files.
import fc from 'fast-check';

/**
 * Capture lines built token by token: `bad` adds tokens that are not valid JSON (and keys the record derivation
 * rejects), `typed` keeps the metadata well typed so that a line's outcome turns on its request and response.
 * A line may start or end with ASCII whitespace, newlines included.
 */
export function exchangeLines(bad: boolean, typed = false) {
const ws = fc.constantFrom('', '', '', ' ', '\n', '\t ', '\r');
const goodNumbers = [
  '0', '1', '7', '-3', '-0', '-0.0', '0.0', '1.0', '5.0', '2.5', '1e2', '1E-2', '2.5e1', '1e400', '-1e400', '1e-400',
  '123456789012345', '1234567890123456', '12345678901234567', '9007199254740993', '18446744073709551616', '-9223372036854775809',
  '1786204990.570467',
];
// `typed`: lines the native scan should mostly answer (it declines big integers, -0 and surrogate escapes).
const numbers = typed ? goodNumbers.filter((t) => t.replace(/^-/, '').length < 16 && t !== '-0') : goodNumbers;
const numberTok = fc.constantFrom(...numbers, ...(bad ? ['01', '1.', '-', '.5', '1e', '+1', '0x10', 'NaN', 'Infinity', '-Infinity'] : []));
const literalTok = fc.constantFrom('true', 'false', 'null', ...(bad ? ['tru', 'nul', 'True'] : []));
const strPiece = fc.constantFrom(
  'a', 'text', 'é', '😀', '日本', ' ', '\\"', '\\\\', '\\\\\\"', '\\n', '\\/', '\\u00e9', '\\u0000', ...(typed ? [] : ['\\uD83D\\uDE00', '\\ud83d\\ude00']),
  '{', '}', '[', ']', ',', ':', '1.0', 'usage', '\\"usage\\":1.0',
  ...(bad ? ['\\ud800', '\\udc00', '\\x', '\\u12', '\t', '\u0001', '"', '\\', '"usage":1.0'] : []),
);
const strTok = fc.array(strPiece, { maxLength: 6 }).map((p) => `"${p.join('')}"`);
const keyTok = fc.oneof(
  fc.constantFrom(
    'usage', 'input_tokens', 'output_tokens', 'total_tokens', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'cached_input_tokens',
    'input_tokens_details', 'prompt_tokens_details', 'output_tokens_details', 'completion_tokens_details', 'reasoning_tokens',
    'reasoning_output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'model', 'id', 'status', 'output', 'type',
    'function_call', 'reasoning', 'summary', 'text', 'choices', 'message', 'tool_calls', 'function', 'arguments', 'name', 'call_id',
    'content', 'tool_use', 'input', 'thinking', 'stop_reason', 'finish_reason', 'incomplete_details', 'reason', 'reasoning_content',
    '__proto__', '0', '1', '10', '4294967295', 'request', 'response', 'mod\\u0065l', 'usag\\u0065', '\\u0031', 'input_t\\u006fkens',
  ).map((k) => `"${k}"`),
  strTok,
);
const typeVal = fc.constantFrom('"function_call"', '"reasoning"', '"tool_use"', '"thinking"', '"message"', '"summary_text"');

const { value: valueTok } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberTok, literalTok, strTok, typeVal, tie('object'), tie('array'),
  ),
  object: fc
    .tuple(ws, fc.array(fc.tuple(keyTok, ws, tie('value'), ws), { maxLength: 5 }))
    .map(([w, kvs]) => `{${w}${kvs.map(([k, w1, v, w2]) => `${k}${w1}:${v}${w2}`).join(',')}}`),
  array: fc.tuple(ws, fc.array(tie('value'), { maxLength: 4 })).map(([w, vs]) => `[${w}${vs.join(',')}]`),
}));

const tokens = fc.oneof(numberTok, fc.constantFrom('"5"', 'true', 'null', '0', '12', '3.0', '-0'));
const usageTok = fc
  .array(fc.tuple(fc.constantFrom('input_tokens', 'output_tokens', 'total_tokens', 'prompt_tokens', 'completion_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'cached_input_tokens'), tokens), { maxLength: 5 })
  .chain((kvs) =>
    fc
      .option(fc.tuple(fc.constantFrom('input_tokens_details', 'prompt_tokens_details', 'output_tokens_details', 'completion_tokens_details'), fc.constantFrom('cached_tokens', 'cached_input_tokens', 'reasoning_tokens'), tokens))
      .map((d) => `{${[...kvs.map(([k, v]) => `"${k}":${v}`), ...(d ? [`"${d[0]}":{"${d[1]}":${d[2]}}`] : [])].join(',')}}`),
  );
const outputItem = fc.oneof(
  fc.tuple(strTok, fc.oneof(strTok, valueTok)).map(([n, a]) => `{"type":"function_call","call_id":"c1","name":${n},"arguments":${a}}`),
  fc.oneof(valueTok, fc.constant('[{"type":"summary_text","text":"why"}]')).map((s) => `{"type":"reasoning","summary":${s}}`),
  valueTok,
);
const responseTok = fc.oneof(
  fc
    .tuple(fc.oneof(strTok, valueTok), fc.array(outputItem, { maxLength: 3 }), fc.oneof(usageTok, valueTok), fc.constantFrom('', ',"temperature":1.0,"top_p":1.0', ',"0":1'))
    .map(([m, out, u, extra]) => `{"id":"resp_1","model":${m},"status":"completed","output":[${out.join(',')}],"usage":${u}${extra}}`),
  fc
    .tuple(usageTok, valueTok, fc.oneof(valueTok, fc.constant('[{"id":"t","function":{"name":"f","arguments":"{\\"a\\":1.0}"}}]')))
    .map(([u, msg, tc]) => `{"id":"x","choices":[{"finish_reason":"stop","message":{"content":${msg},"tool_calls":${tc},"reasoning_content":"r"}}],"usage":${u}}`),
  fc
    .tuple(usageTok, valueTok)
    .map(([u, input]) => `{"id":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t","name":"f","input":${input}},{"type":"thinking","thinking":"t"}],"usage":${u}}`),
  valueTok,
);
const requestTok = fc.oneof(
  fc
    .tuple(fc.oneof(strTok, valueTok), valueTok, valueTok, fc.boolean(), ws)
    .map(([m, input, tools, modelFirst, w]) =>
      modelFirst ? `{"model":${m},${w}"input":${input},"tools":${tools},"max_output_tokens":16384,"temperature":1.0}` : `{"input":${input},"tools":${tools},"top_p":1.0,${w}"model":${m}}`,
    ),
  valueTok,
);
const topKey = fc.constantFrom(
  'model_call_id', 'dialect', 'model_ref', 'started_at', 'completed_at', 'latency_ms', 'latency_ttft_ms', 'status_code', 'error_category',
  'request_raw', 'response_raw', 'extra',
);
// Top-level values of the types the record derivation takes (so that the line's outcome turns on the request and response).
const typedTop = fc.oneof(
  fc.tuple(fc.constantFrom('model_call_id', 'dialect', 'error_category'), fc.oneof(strTok, fc.constant('null'))),
  fc.tuple(fc.constantFrom('started_at', 'completed_at', 'latency_ms', 'latency_ttft_ms', 'status_code'), fc.oneof(numberTok, fc.constant('null'))),
  fc.tuple(fc.constant('extra'), valueTok),
);
const rawVal = fc.oneof(strTok, fc.constant('"data: {\\"type\\":\\"response.completed\\",\\"n\\":1.0}\\n\\n"'));
const topVal = fc.oneof(numberTok, strTok, literalTok, valueTok, fc.constant('{"type":"responses_api_models","name":"srv"}'));
return fc
  .tuple(
    fc.array(fc.oneof(typed ? typedTop : fc.tuple(topKey, topVal), fc.tuple(fc.constantFrom('request_raw', 'response_raw'), rawVal)), { maxLength: 6 }),
    requestTok,
    responseTok,
    fc.array(fc.tuple(fc.constantFrom(...(typed ? ['response_raw', 'usage', '0'] : ['request', 'response', 'response_raw', 'usage', '0', 'reque\\u0073t'])), topVal), { maxLength: 2 }),
    ws,
  )
  .map(([pre, req, resp, post, w]) =>
    `${w}{"model_call_id":"c","dialect":"responses","model_ref":{"type":"responses_api_models","name":"srv"},"started_at":1.5,${pre
      .map(([k, v]) => `"${k}":${v},`)
      .join('')}"request":${w}${req}${w},"response":${resp}${post.map(([k, v]) => `,"${k}":${v}`).join('')}}${w}`,
  );
}

/** One random byte-level edit: delete, duplicate or replace one byte (often with a structural character). */
export const mutation = fc.tuple(fc.nat(), fc.constantFrom('del', 'dup', 'rep'), fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', '0', '.', 'a', '\u00ff'));
export function mutate(text: string, [at, kind, ch]: [number, string, string]): Buffer {
  const b = Buffer.from(text, 'utf8');
  if (b.length === 0) return b;
  const i = at % b.length;
  const c = Buffer.from(ch, 'latin1'); // \u00ff is a lone 0xFF byte: invalid UTF-8
  if (kind === 'del') return Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
  if (kind === 'dup') return Buffer.concat([b.subarray(0, i), c, b.subarray(i)]);
  return Buffer.concat([b.subarray(0, i), c, b.subarray(i + 1)]);
}
