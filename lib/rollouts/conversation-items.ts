// NeMo Gym's response input item union (`NeMoGymResponseInputItem`, nemo_gym/openai_utils.py) as the observation
// models validate an invocation's conversation: each item becomes the member pydantic's smart union picks, dumped
// in that member's declared order with its defaults. NeMo Gym's own models ignore extra keys; the OpenAI SDK's
// models (openai 2.7.2) keep them after the declared fields; TypedDict content parts keep only declared keys.
import { isJsonObject, type JsonValue } from '../capture/json-value';
import { ANNOTATION, LOGPROB, SDK_ITEMS } from './sdk-items';
import { any, dflt, notRequired, float, int, list, literal, model, opt, optional, req, str, union, type PyModel, type PyType } from './pymodel';

const status3 = literal('in_progress', 'completed', 'incomplete');

// --- TypedDict parts (openai.types.responses.*_param): declared keys only, absent optional keys stay absent.
const td = (name: string, fields: Parameters<typeof model>[1]) => model(name, fields, { extra: 'ignore', typedDict: true });
const inputText = td('ResponseInputTextParam', { text: req(str), type: req(literal('input_text')) });
const inputImage = td('ResponseInputImageParam', {
  detail: req(literal('low', 'high', 'auto')),
  type: req(literal('input_image')),
  file_id: notRequired(optional(str)),
  image_url: notRequired(optional(str)),
});
const inputFile = td('ResponseInputFileParam', {
  type: req(literal('input_file')),
  file_data: notRequired(str),
  file_id: notRequired(optional(str)),
  file_url: notRequired(str),
  filename: notRequired(str),
});
const inputVideo = td('NeMoGymInputVideoPart', { type: req(literal('input_video')), video_url: notRequired(any), video: notRequired(any) });

function videoSourceProblem(v: JsonValue | undefined): string | null {
  if (!isJsonObject(v) || v.type !== 'input_video') return null;
  const keys = ['video_url', 'video'].filter((k) => Object.prototype.hasOwnProperty.call(v, k));
  if (keys.length !== 1) return 'input_video requires exactly one of video_url or video';
  const source = v[keys[0]];
  const url = isJsonObject(source) ? source.url : source;
  if (typeof url !== 'string' || url.trim() === '') return `input_video.${keys[0]} must contain a non-empty URL`;
  return null;
}
const inputContentList = list(union([inputText, inputImage, inputFile, inputVideo], videoSourceProblem));

const outputItemList = list(
  union([
    inputText,
    td('ResponseInputImageContentParam', {
      type: req(literal('input_image')),
      detail: notRequired(optional(literal('low', 'high', 'auto'))),
      file_id: notRequired(optional(str)),
      image_url: notRequired(optional(str)),
    }),
    td('ResponseInputFileContentParam', {
      type: req(literal('input_file')),
      file_data: notRequired(optional(str)),
      file_id: notRequired(optional(str)),
      file_url: notRequired(optional(str)),
      filename: notRequired(optional(str)),
    }),
  ]),
);

const outputText = model(
  'NeMoGymResponseOutputText',
  { annotations: req(list(ANNOTATION)), text: req(str), type: dflt(literal('output_text'), 'output_text'), logprobs: opt(list(LOGPROB)) },
  { extra: 'ignore' },
);
const refusal = model('NeMoGymResponseOutputRefusal', { refusal: req(str), type: dflt(literal('refusal'), 'refusal') }, { extra: 'ignore' });
const sdk = (name: string, fields: Parameters<typeof model>[1]) => model(name, fields, { extra: 'allow' });
const summary = sdk('NeMoGymSummary', { text: req(str), type: req(literal('summary_text')) });
const reasoningContent = sdk('Content', { text: req(str), type: req(literal('reasoning_text')) });

const own = (name: string, fields: Parameters<typeof model>[1]) => model(name, fields, { extra: 'ignore' });
const easyInputMessage = {
  content: req(union([str, inputContentList])),
  role: req(literal('user', 'assistant', 'system', 'developer')),
  type: dflt(literal('message'), 'message'),
};
const message = {
  content: req(inputContentList),
  role: req(literal('user', 'system', 'developer')),
  status: dflt(status3, 'completed'),
  type: dflt(literal('message'), 'message'),
};
const outputMessage = {
  id: req(str),
  content: req(list(union([outputText, refusal]))),
  role: dflt(literal('assistant'), 'assistant'),
  status: dflt(status3, 'completed'),
  type: dflt(literal('message'), 'message'),
};
const functionToolCall = {
  arguments: req(str),
  call_id: req(str),
  name: req(str),
  type: dflt(literal('function_call'), 'function_call'),
  id: opt(str),
  status: opt(status3),
};
const functionCallOutput = {
  call_id: req(str),
  output: req(union([str, outputItemList])),
  type: dflt(literal('function_call_output'), 'function_call_output'),
  id: opt(str),
  status: opt(status3),
};
const reasoningItem = {
  id: req(str),
  summary: req(list(summary)),
  type: dflt(literal('reasoning'), 'reasoning'),
  encrypted_content: opt(str),
  content: opt(list(reasoningContent)),
};
// TokenIDLogProbMixin's fields come first in the training variants (pydantic collects base fields in MRO order).
const tokenIds = {
  prompt_token_ids: req(list(int())),
  generation_token_ids: req(list(int())),
  generation_log_probs: req(list(float())),
  routed_experts: opt(union([str, list(list(list(int())))])),
};

const TOKEN_FIELDS = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs', 'routed_experts'];
const REQUIRED_TOKEN_FIELDS = TOKEN_FIELDS.slice(0, 3);

/** _validate_atomic_token_metadata: token metadata is all or nothing. */
function tokenMetadataProblem(v: JsonValue | undefined): string | null {
  if (!isJsonObject(v)) return null;
  const present = TOKEN_FIELDS.filter((k) => Object.prototype.hasOwnProperty.call(v, k));
  if (!present.length) return null;
  const missing = REQUIRED_TOKEN_FIELDS.filter((k) => !present.includes(k)).sort();
  if (missing.length) return `Token metadata must include all required fields; missing: ${missing.join(', ')}`;
  const check = model('TokenIDLogProbMixin', tokenIds, { extra: 'ignore' }).validate(
    Object.fromEntries(present.map((k) => [k, v[k]])) as JsonValue,
    [],
  );
  return check.ok ? null : 'Token metadata is invalid';
}

export const CONVERSATION_ITEM_MEMBERS: PyModel[] = [
  own('NeMoGymEasyInputMessage', easyInputMessage),
  own('NeMoGymMessage', message),
  own('NeMoGymResponseOutputMessage', outputMessage),
  own('NeMoGymResponseFunctionToolCall', functionToolCall),
  own('NeMoGymFunctionCallOutput', functionCallOutput),
  own('NeMoGymResponseReasoningItem', reasoningItem),
  own('NeMoGymEasyInputMessageForTraining', { ...tokenIds, ...easyInputMessage }),
  own('NeMoGymMessageForTraining', { ...tokenIds, ...message }),
  own('NeMoGymResponseOutputMessageForTraining', { ...tokenIds, ...outputMessage }),
  own('NeMoGymResponseFunctionToolCallForTraining', { ...tokenIds, ...functionToolCall }),
  own('NeMoGymResponseReasoningItemForTraining', { ...tokenIds, ...reasoningItem }),
];

/** One conversation item, validated and dumped as NeMoGymResponseInputItem. */
export const conversationItem: PyType = union(
  [...CONVERSATION_ITEM_MEMBERS.slice(0, 6), ...SDK_ITEMS, ...CONVERSATION_ITEM_MEMBERS.slice(6)],
  tokenMetadataProblem,
);
