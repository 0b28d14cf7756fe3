// associate_claude_code_compaction_calls (responses_api_agents/claude_code_agent/observability.py, spec §5.4
// verified notes): Claude Code's hidden summary call is inserted into its invocation's model_calls only when the
// persisted summary matches the call's response text exactly. Runs before the generic join, on claude_code only.
import { isJsonObject, keysOf, setKey, truthy, type JsonObject, type JsonValue } from '../capture/json-value';
import type { ModelCallRecord } from '../capture/record';
import { gap, JoinError, sameModelRef, type GapObject } from './join';
import { joinKeyProblem } from './observations';
import { pyFloatRepr } from './projection';

export const CLAUDE_CODE_SOURCE = 'claude_code';
/** The strings Claude Code's compaction prompt carries, one of which marks its hidden summary call. */
export const COMPACTION_PROMPT_MARKERS = [
  'Your task is to create a detailed summary of this conversation.',
  'Your task is to create a detailed summary of the conversation so far',
  'Your task is to create a detailed summary of the RECENT portion of the conversation',
];
/** How Claude Code's persisted summary message begins. */
export const COMPACTION_SUMMARY_PREFIX =
  'This session is being continued from a previous conversation that ran out of context. ' +
  'The summary below covers the earlier portion of the conversation.\n\n';
const SUFFIX_RE = new RegExp(
  '^' +
    '(?:\\n\\nIf you need specific details from before compaction ' +
    '\\(like exact code snippets, error messages, or content you generated\\), ' +
    'read the full transcript at: [^\\n]+)?' +
    '(?:\\n\\nRecent messages are preserved verbatim\\.)?' +
    '(?:\\n\\nYour REPL VM state has been cleared as part of this compaction\\. ' +
    'Variables defined in REPL calls before this point are no longer accessible ' +
    '— redefine any you still need\\.)?' +
    '(?:\\n\\nContinue the conversation from where it left off without asking the user ' +
    'any further questions\\. Resume directly — do not acknowledge the summary, do not recap ' +
    'what was happening, do not preface with "I\'ll continue" or similar\\. ' +
    'Pick up the last task as if the break never happened\\.)?' +
    '$',
  'u',
);

// Python str.strip() whitespace (str.isspace).
const PY_SPACE = ' \\t\\n\\v\\f\\r\\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const STRIP_RE = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'gu');
const pyStrip = (s: string) => s.replace(STRIP_RE, '');

/** json.dumps(value, ensure_ascii=False, sort_keys=True), Python's default separators included. */
export function pyDumps(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(', ')}]`;
  if (isJsonObject(v)) {
    return `{${keysOf(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}: ${pyDumps(v[k])}`)
      .join(', ')}}`;
  }
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean' || typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return String(v);
  const n = typeof v === 'number' ? v : v.value;
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
  return pyFloatRepr(n);
}

function text(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((i) => isJsonObject(i) && i.type === 'text')) {
    return value.map((i) => {
      const t = (i as JsonObject).text;
      return truthy(t) ? (typeof t === 'string' ? t : pyDumps(t as JsonValue)) : '';
    }).join('');
  }
  if (value === null || value === undefined) return '';
  return pyDumps(value);
}

function isCompactionRequest(request: JsonValue | undefined): boolean {
  if (!isJsonObject(request)) return false;
  const messages = request.messages;
  if (!Array.isArray(messages) || !messages.length) return false;
  const last = messages[messages.length - 1];
  return isJsonObject(last) && last.role === 'user' && COMPACTION_PROMPT_MARKERS.some((m) => text(last.content).includes(m));
}

function messagesText(response: JsonValue | undefined): string | null {
  if (!isJsonObject(response) || !Array.isArray(response.content)) return null;
  const parts = response.content.filter((b) => isJsonObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as JsonObject).text as string);
  return parts.join('') || null;
}

function normalizeOutput(t: string): string {
  let out = t.replace(/<analysis>[\s\S]*?<\/analysis>/, '');
  const m = /<summary>([\s\S]*?)<\/summary>/.exec(out);
  if (m) out = out.slice(0, m.index) + `Summary:\n${pyStrip(m[1])}` + out.slice(m.index + m[0].length);
  return pyStrip(out.replace(/\n\n+/g, '\n\n'));
}

export function matchesCompactionSummary(summary: string, modelOutput: string): boolean {
  const expected = COMPACTION_SUMMARY_PREFIX + normalizeOutput(modelOutput);
  return summary.startsWith(expected) && SUFFIX_RE.test(summary.slice(expected.length));
}

function refMatchesCall(ref: JsonObject, call: ModelCallRecord): boolean {
  if (truthy(ref.model_call_id)) return ref.model_call_id === (call.model_call_id ?? null);
  return sameModelRef(ref.model_ref, call.model_ref) && (ref.response_id ?? null) === (call.response_id ?? null);
}
const sameRef = (a: JsonObject, b: JsonObject | null) =>
  b !== null && a.model_call_id === b.model_call_id && a.response_id === b.response_id && sameModelRef(a.model_ref, b.model_ref);
const copy = (o: JsonObject): JsonObject => {
  const out: JsonObject = {};
  for (const k of keysOf(o)) setKey(out, k, o[k]);
  return out;
};

/** Throws JoinError where upstream raises (a matched call whose ModelCallRef does not validate). */
export function associateClaudeCodeCompactionCalls(bundle: JsonObject, calls: readonly ModelCallRecord[]): JsonObject {
  if (bundle.source !== CLAUDE_CODE_SOURCE) return bundle;
  const records = (bundle.records as JsonObject[]).map((r) => {
    if (r.kind !== 'agent_invocation' && r.kind !== 'context_compaction') return r;
    const c = copy(r);
    c.model_calls = [...(r.model_calls as JsonObject[])];
    return c;
  });
  let gaps = [...(bundle.gaps as GapObject[])];
  const invocations = new Map(records.filter((r) => r.kind === 'agent_invocation').map((r) => [r.invocation_id as string, r]));
  const compactions = records.filter((r) => r.kind === 'context_compaction');
  const resolveIndex = (ref: JsonObject | null): JsonValue | null => {
    if (ref === null) return null;
    const m = calls.filter((c) => refMatchesCall(ref, c)).map((c) => c.call_index);
    return m.length === 1 ? m[0] : null;
  };
  const owned = new Set<number>();
  for (const inv of invocations.values()) for (const ref of inv.model_calls as JsonObject[]) calls.forEach((c, i) => refMatchesCall(ref, c) && owned.add(i));

  const candidates = compactions.map((compaction) => {
    const before = compaction.before_model_call as JsonObject | null;
    const after = compaction.after_model_call as JsonObject | null;
    const beforeIndex = resolveIndex(before);
    const afterIndex = resolveIndex(after);
    const modelRefs = [before, after].filter((r) => r !== null && r.model_ref !== null).map((r) => r!.model_ref);
    const summary = compaction.summary;
    const out: number[] = [];
    calls.forEach((call, i) => {
      const status = call.status_code;
      const ok =
        !owned.has(i) &&
        compaction.outcome === 'completed' &&
        !(compaction.model_calls as JsonObject[]).length &&
        typeof summary === 'string' &&
        call.dialect === 'messages' &&
        typeof status === 'number' &&
        status >= 200 &&
        status < 300 &&
        (call.error_category ?? null) === null &&
        ((call.model_call_id ?? null) !== null || ((call.model_ref ?? null) !== null && (call.response_id ?? null) !== null)) &&
        (!modelRefs.length || modelRefs.some((r) => sameModelRef(r, call.model_ref))) &&
        isCompactionRequest(call.request);
      if (!ok) return;
      const responseText = messagesText(call.response);
      if (responseText === null || !matchesCompactionSummary(summary as string, responseText)) return;
      const index = Number(call.call_index);
      if (before !== null && !(beforeIndex !== null && index > Number(beforeIndex))) return;
      if (after !== null && !(afterIndex !== null && index < Number(afterIndex))) return;
      out.push(i);
    });
    return out;
  });

  const counts = new Map<number, number>();
  for (const list of candidates) for (const i of list) counts.set(i, (counts.get(i) ?? 0) + 1);
  compactions.forEach((compaction, k) => {
    const list = candidates[k];
    const id = compaction.invocation_id as string;
    if (list.length > 1 || (list.length === 1 && counts.get(list[0])! > 1)) {
      gaps.push(gap('compaction_model_call_match_ambiguous', id, `candidate_count=${list.length}`));
    }
    if (list.length !== 1 || counts.get(list[0]) !== 1 || !invocations.has(id)) return;
    const call = calls[list[0]];
    const modelRef = call.model_ref ? { type: (call.model_ref as JsonObject).type, name: (call.model_ref as JsonObject).name } : null;
    const reference: JsonObject = { model_call_id: call.model_call_id ?? null, model_ref: modelRef, response_id: call.response_id ?? null };
    const problem = joinKeyProblem(reference);
    if (problem) throw new JoinError(problem, 'ValidationError');
    compaction.model_calls = [reference];
    const invocation = invocations.get(id)!;
    const refs = invocation.model_calls as JsonObject[];
    let at = refs.length;
    for (let i = 0; i < refs.length; i++) {
      if (sameRef(refs[i], compaction.after_model_call as JsonObject | null)) {
        at = i;
        break;
      }
      if (sameRef(refs[i], compaction.before_model_call as JsonObject | null)) at = i + 1;
    }
    refs.splice(at, 0, reference);
  });

  const unresolved = new Set(compactions.filter((c) => !(c.model_calls as JsonObject[]).length).map((c) => c.invocation_id));
  gaps = gaps.filter((g) => g.code !== 'compaction_model_call_reference_unavailable' || unresolved.has(g.invocation_id as string));
  const out = copy(bundle);
  out.records = records;
  out.gaps = gaps;
  return out;
}
