// The OpenAI SDK (2.7.2) types inside NeMo Gym's response input item union: the hosted and client-executed
// items (NeMo Gym's relaxations applied), their nested SDK objects, and the output-text annotation and logprob
// TypedDicts. SDK models keep extra keys after their declared fields; TypedDicts keep declared keys only.
import { isJsonObject, keysOf, setKey, type JsonObject } from '../capture/json-value';
import { any, bool, dflt, float, int, list, literal, model, opt, req, str, union, type Field, type PyModel, type PyType } from './pymodel';

const sdk = (name: string, fields: Record<string, Field>) => model(name, fields, { extra: 'allow' });
const td = (name: string, fields: Record<string, Field>) => model(name, fields, { extra: 'ignore', typedDict: true });
const ostr = () => opt(str);
const status3 = literal('in_progress', 'completed', 'incomplete');

// Dict[str, Union[str, float, bool]]: a bool stays a bool (exact), other numbers become floats.
const attributeValue: PyType = {
  validate(v, path) {
    if (typeof v === 'string' || typeof v === 'boolean') return { ok: true, value: v, fieldsSet: null };
    return float().validate(v, path);
  },
};
/** Dict[str, V]: every value validated, keys in input order. */
function dict(valueType: PyType): PyType {
  return {
    validate(v, path) {
      if (!isJsonObject(v)) return { ok: false, problems: [{ path, message: 'Input should be a valid dictionary' }] };
      const out: JsonObject = {};
      for (const k of keysOf(v)) {
        const r = valueType.validate(v[k], [...path, k]);
        if (!r.ok) return r;
        setKey(out, k, r.value);
      }
      return { ok: true, value: out, fieldsSet: null };
    },
  };
}
const attributes = dict(attributeValue);

export const ANNOTATION = union([
  td('AnnotationFileCitation', { file_id: req(str), filename: req(str), index: req(int()), type: req(literal('file_citation')) }),
  td('AnnotationURLCitation', {
    end_index: req(int()),
    start_index: req(int()),
    title: req(str),
    type: req(literal('url_citation')),
    url: req(str),
  }),
  td('AnnotationContainerFileCitation', {
    container_id: req(str),
    end_index: req(int()),
    file_id: req(str),
    filename: req(str),
    start_index: req(int()),
    type: req(literal('container_file_citation')),
  }),
  td('AnnotationFilePath', { file_id: req(str), index: req(int()), type: req(literal('file_path')) }),
]);
const topLogprob = td('LogprobTopLogprob', { token: req(str), bytes: req(list(int())), logprob: req(float()) });
export const LOGPROB = td('Logprob', { token: req(str), bytes: req(list(int())), logprob: req(float()), top_logprobs: req(list(topLogprob)) });

const xy = { x: req(int()), y: req(int()) };
const computerAction = union([
  sdk('ActionClick', { button: req(literal('left', 'right', 'wheel', 'back', 'forward')), type: req(literal('click')), ...xy }),
  sdk('ActionDoubleClick', { type: req(literal('double_click')), ...xy }),
  sdk('ActionDrag', { path: req(list(sdk('ActionDragPath', xy))), type: req(literal('drag')) }),
  sdk('ActionKeypress', { keys: req(list(str)), type: req(literal('keypress')) }),
  sdk('ActionMove', { type: req(literal('move')), ...xy }),
  sdk('ActionScreenshot', { type: req(literal('screenshot')) }),
  sdk('ActionScroll', { scroll_x: req(int()), scroll_y: req(int()), type: req(literal('scroll')), ...xy }),
  sdk('ActionType', { text: req(str), type: req(literal('type')) }),
  sdk('ActionWait', { type: req(literal('wait')) }),
]);
const webSearchAction = union([
  sdk('ActionSearch', {
    query: req(str),
    type: req(literal('search')),
    sources: opt(list(sdk('ActionSearchSource', { type: req(literal('url')), url: req(str) }))),
  }),
  sdk('ActionOpenPage', { type: req(literal('open_page')), url: req(str) }),
  sdk('ActionFind', { pattern: req(str), type: req(literal('find')), url: req(str) }),
]);
const safetyCheck = (name: string) => sdk(name, { id: req(str), code: ostr(), message: ostr() });
const inputContent = union([
  sdk('ResponseInputText', { text: req(str), type: req(literal('input_text')) }),
  sdk('ResponseInputImage', { detail: req(literal('low', 'high', 'auto')), type: req(literal('input_image')), file_id: ostr(), image_url: ostr() }),
  sdk('ResponseInputFile', { type: req(literal('input_file')), file_data: ostr(), file_id: ostr(), file_url: ostr(), filename: ostr() }),
]);

export const SDK_ITEMS: PyModel[] = [
  sdk('NeMoGymResponseMcpCall', {
    id: ostr(),
    arguments: req(str),
    name: req(str),
    server_label: ostr(),
    type: dflt(literal('mcp_call'), 'mcp_call'),
    approval_request_id: ostr(),
    error: ostr(),
    output: ostr(),
    status: ostr(),
  }),
  sdk('NeMoGymResponseMcpListTools', {
    id: ostr(),
    server_label: ostr(),
    tools: dflt(list(any), () => []),
    type: dflt(literal('mcp_list_tools'), 'mcp_list_tools'),
    error: ostr(),
  }),
  sdk('NeMoGymResponseMcpApprovalRequest', {
    id: ostr(),
    arguments: req(str),
    name: req(str),
    server_label: ostr(),
    type: dflt(literal('mcp_approval_request'), 'mcp_approval_request'),
  }),
  sdk('NeMoGymResponseFileSearchToolCall', {
    id: req(str),
    queries: req(list(str)),
    status: req(literal('in_progress', 'searching', 'completed', 'incomplete', 'failed')),
    type: req(literal('file_search_call')),
    results: opt(
      list(sdk('Result', { attributes: opt(attributes), file_id: ostr(), filename: ostr(), score: opt(float()), text: ostr() })),
    ),
  }),
  sdk('NeMoGymResponseFunctionWebSearch', {
    id: req(str),
    action: req(webSearchAction),
    status: req(literal('in_progress', 'searching', 'completed', 'failed')),
    type: req(literal('web_search_call')),
  }),
  sdk('NeMoGymResponseComputerToolCall', {
    id: req(str),
    action: req(computerAction),
    call_id: req(str),
    pending_safety_checks: req(list(safetyCheck('PendingSafetyCheck'))),
    status: req(status3),
    type: req(literal('computer_call')),
  }),
  sdk('NeMoGymImageGenerationCall', {
    id: req(str),
    result: ostr(),
    status: req(literal('in_progress', 'completed', 'generating', 'failed')),
    type: req(literal('image_generation_call')),
  }),
  sdk('NeMoGymResponseCodeInterpreterToolCall', {
    id: req(str),
    code: ostr(),
    container_id: req(str),
    outputs: opt(
      list(
        union([
          sdk('OutputLogs', { logs: req(str), type: req(literal('logs')) }),
          sdk('OutputImage', { type: req(literal('image')), url: req(str) }),
        ]),
      ),
    ),
    status: req(literal('in_progress', 'completed', 'incomplete', 'interpreting', 'failed')),
    type: req(literal('code_interpreter_call')),
  }),
  sdk('NeMoGymLocalShellCall', {
    id: req(str),
    action: req(
      sdk('LocalShellCallAction', {
        command: req(list(str)),
        env: req(dict(str)),
        type: req(literal('exec')),
        timeout_ms: opt(int()),
        user: ostr(),
        working_directory: ostr(),
      }),
    ),
    call_id: req(str),
    status: req(status3),
    type: req(literal('local_shell_call')),
  }),
  sdk('NeMoGymResponseCustomToolCall', { call_id: req(str), input: req(str), name: req(str), type: req(literal('custom_tool_call')), id: ostr() }),
  sdk('NeMoGymComputerCallOutput', {
    call_id: req(str),
    output: req(
      sdk('ResponseComputerToolCallOutputScreenshot', { type: req(literal('computer_screenshot')), file_id: ostr(), image_url: ostr() }),
    ),
    type: req(literal('computer_call_output')),
    id: ostr(),
    acknowledged_safety_checks: opt(list(safetyCheck('ComputerCallOutputAcknowledgedSafetyCheck'))),
    status: opt(status3),
  }),
  sdk('NeMoGymResponseCustomToolCallOutput', {
    call_id: req(str),
    output: req(union([str, list(inputContent)])),
    type: req(literal('custom_tool_call_output')),
    id: ostr(),
  }),
  sdk('NeMoGymLocalShellCallOutput', { id: req(str), output: req(str), type: req(literal('local_shell_call_output')), status: opt(status3) }),
  sdk('NeMoGymMcpApprovalResponse', {
    approval_request_id: req(str),
    approve: req(bool),
    type: req(literal('mcp_approval_response')),
    id: ostr(),
    reason: ostr(),
  }),
];
