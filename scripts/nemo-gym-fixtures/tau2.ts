// The tau2 benchmark agent: a multi-turn customer-service dialogue with tools, over retail, airline and telecom
// tasks. One dialogue appears three times on a line, as in NeMo Gym's file: the earlier turns as the request's
// input (after the system prompt with the domain policy), the last turns as the response's output, and every
// turn in `result.messages` with the simulator's own records (raw chat completions of the agent and the user
// simulator). With the policy again in `result.policy`, the telecom line is the large one (over 64 KiB).
// `response.usage` is null on every line: the agent reports none.
import type { Rng } from '../../lib/demo/random';
import { dumps, float, type Py } from './py-json';
import { agentResponse, createParams, functionCall, functionCallOutput, functionTool, message, userMessage } from './responses';
import { policy, prose } from './text';

type Obj = { [key: string]: Py };
type Domain = 'retail' | 'airline' | 'telecom';

const prop = (title: string, description: string, type = 'string'): Obj => ({ description, title, type });
const arrayProp = (title: string, description: string): Obj => ({ description, items: { type: 'string' }, title, type: 'array' });
function tool(name: string, description: string, properties: Obj): Py {
  const keys = Object.keys(properties);
  const parameters: Obj = keys.length ? { properties, required: keys, title: 'parameters', type: 'object' } : { properties, title: 'parameters', type: 'object' };
  return functionTool(name, description, parameters, true);
}

const TRANSFER = tool('transfer_to_human_agents', 'Transfer the user to a human agent, with a summary of the issue. Only when the request cannot be handled within the policy.', { summary: prop('Summary', 'A summary of the user\'s issue.') });
const TOOLS: Record<Domain, Py[]> = {
  retail: [
    tool('cancel_pending_order', 'Cancel a pending order. The agent must confirm the details and obtain explicit user confirmation (yes) first.', { order_id: prop('Order Id', "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning."), reason: prop('Reason', "Either 'no longer needed' or 'ordered by mistake'.") }),
    tool('find_user_id_by_name_zip', 'Find user id by first name, last name, and zip code.', { first_name: prop('First Name', "The first name of the customer, such as 'John'."), last_name: prop('Last Name', "The last name of the customer, such as 'Doe'."), zip: prop('Zip', "The zip code of the customer, such as '12345'.") }),
    tool('get_order_details', 'Get the status and details of an order.', { order_id: prop('Order Id', "The order id, such as '#W0000000'.") }),
    tool('return_delivered_order_items', 'Return some items of a delivered order.', { order_id: prop('Order Id', "The order id, such as '#W0000000'."), item_ids: arrayProp('Item Ids', "The item ids to be returned, each such as '1008292230'."), payment_method_id: prop('Payment Method Id', 'The payment method to receive the refund.') }),
    tool('list_all_product_types', 'List the name and product id of all product types.', {}),
    TRANSFER,
  ],
  airline: [
    tool('get_reservation_details', 'Get the details of a reservation.', { reservation_id: prop('Reservation Id', "The reservation id, such as '8JX2WO'.") }),
    tool('search_direct_flight', 'Search for direct flights between two cities on a date.', { origin: prop('Origin', "The origin airport code, such as 'JFK'."), destination: prop('Destination', "The destination airport code, such as 'LAX'."), date: prop('Date', "The date of the flight, 'YYYY-MM-DD'.") }),
    tool('cancel_reservation', 'Cancel the whole reservation.', { reservation_id: prop('Reservation Id', 'The reservation id.') }),
    TRANSFER,
  ],
  telecom: [
    tool('get_customer_by_phone', 'Find a customer by their primary contact or line phone number.', { phone_number: prop('Phone Number', 'The phone number to search for.') }),
    tool('get_details_by_id', 'Get the details of a customer, line, device, bill or plan by its id.', { id: prop('Id', "The id, such as 'L1001' or 'C1001'.") }),
    tool('enable_roaming', 'Enable international roaming on a line.', { customer_id: prop('Customer Id', 'The customer id.'), line_id: prop('Line Id', 'The line id.') }),
    TRANSFER,
  ],
};

const POLICY_SECTIONS: Record<Domain, [string, string[], number]> = {
  retail: ['Retail agent policy', ['Domain basics', 'Authentication', 'Cancel pending order', 'Return delivered order'], 1600],
  airline: ['Airline agent policy', ['Domain basics', 'Book flight', 'Cancel flight', 'Refunds and compensation'], 1400],
  telecom: ['Telecom agent policy — technical support 📶', ['Customer lookup', 'Mobile data 📵', 'Roaming ✈️', 'Suspension and contract end', 'SIM card and PIN 🔒', 'Escalation'], 15500],
};

type Turn =
  | { kind: 'agent'; text: string; reasoning?: string }
  | { kind: 'user'; text: string }
  | { kind: 'tool'; name: string; args: Obj; result: string };

interface Task {
  domain: Domain;
  id: string;
  taskIndex: number;
  rolloutIndex: number;
  reward: number;
  turns: Turn[];
  /** Where the request's input ends and the response's output begins. */
  split: number;
}

function dialogue(rng: Rng, domain: Domain): { turns: Turn[]; split: number } {
  const hello: Turn = { kind: 'agent', text: 'Hi! How can I help you today?' };
  const bye: Turn[] = [{ kind: 'agent', text: 'YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.' }, { kind: 'user', text: '###TRANSFER###' }];
  if (domain === 'retail') {
    const turns: Turn[] = [
      hello,
      { kind: 'user', text: 'Hi — I’d like to return the desk lamp from my last order, it arrived with a cracked base.' },
      { kind: 'tool', name: 'find_user_id_by_name_zip', args: { first_name: 'Mara', last_name: 'Lindqvist', zip: '60614' }, result: 'mara_lindqvist_3391' },
      { kind: 'tool', name: 'get_order_details', args: { order_id: '#W4417205' }, result: dumps({ order_id: '#W4417205', user_id: 'mara_lindqvist_3391', status: 'delivered', items: [{ name: 'Desk Lamp', item_id: '5520781143', price: float(48.9) }], payment_history: [{ transaction_type: 'payment', amount: float(48.9), payment_method_id: 'credit_card_2207431' }] }, 'spaced') },
      { kind: 'agent', text: `I found order #W4417205 with the Desk Lamp (item 5520781143). ${prose(rng, 80)} Shall I return it to credit_card_2207431 (yes/no)?`, reasoning: 'The order is delivered; a return needs explicit confirmation.' },
      { kind: 'user', text: 'Yes, please go ahead.' },
      { kind: 'tool', name: 'return_delivered_order_items', args: { order_id: '#W4417205', item_ids: ['5520781143'], payment_method_id: 'credit_card_2207431' }, result: dumps({ order_id: '#W4417205', status: 'return requested', return_items: ['5520781143'] }, 'spaced') },
      { kind: 'agent', text: 'The return is requested: you will get an email with the label, and the refund of $48.90 goes to your card in 5–7 business days.' },
      { kind: 'user', text: 'Perfect, thanks! ###STOP###' },
    ];
    return { turns, split: 6 };
  }
  if (domain === 'airline') {
    const turns: Turn[] = [
      hello,
      { kind: 'user', text: 'I need to cancel reservation Q7TZ4M, I booked it by mistake an hour ago.' },
      { kind: 'tool', name: 'get_reservation_details', args: { reservation_id: 'Q7TZ4M' }, result: dumps({ reservation_id: 'Q7TZ4M', user_id: 'ines_moreau_1742', origin: 'SFO', destination: 'SEA', cabin: 'economy', created_at: '2024-05-14T08:02:11' }, 'spaced') },
      { kind: 'agent', text: `Reservation Q7TZ4M (SFO → SEA, economy) was booked within the last 24 hours, so it can be cancelled. ${prose(rng, 80)} Do you confirm (yes/no)?` },
      { kind: 'user', text: 'Yes.' },
      { kind: 'tool', name: 'cancel_reservation', args: { reservation_id: 'Q7TZ4M' }, result: dumps({ reservation_id: 'Q7TZ4M', status: 'cancelled' }, 'spaced') },
      { kind: 'agent', text: 'Done: Q7TZ4M is cancelled and the refund is on its way.' },
    ];
    return { turns, split: 5 };
  }
  const turns: Turn[] = [
    hello,
    { kind: 'user', text: 'My phone shows “No Service” 📵 since I landed in Lisbon, and mobile data is dead too.' },
    { kind: 'tool', name: 'get_customer_by_phone', args: { phone_number: '555-0142' }, result: dumps({ customer_id: 'C2093', full_name: 'Ravi Ostrowski', line_ids: ['L2093', 'L2094'], account_status: 'Active' }, 'spaced') },
    { kind: 'tool', name: 'get_details_by_id', args: { id: 'L2093' }, result: dumps({ line_id: 'L2093', phone_number: '555-0142', status: 'Active', roaming_enabled: false, data_used_gb: float(3.2), data_limit_gb: float(15.0) }, 'spaced') },
    { kind: 'agent', text: `Your line L2093 is active but roaming is off ✈️. ${prose(rng, 500)} Shall I turn roaming on (yes/no)?`, reasoning: `Roaming is disabled on L2093; enabling it is allowed for an active line. ${prose(rng, 400)}` },
    { kind: 'user', text: 'Yes please.' },
    { kind: 'tool', name: 'enable_roaming', args: { customer_id: 'C2093', line_id: 'L2093' }, result: 'Roaming enabled for line L2093.' },
    { kind: 'agent', text: `Roaming is on. Please restart the phone, then check the signal bars 📶 again. ${prose(rng, 400)}` },
    { kind: 'user', text: `Restarted — still “No Service”. ${prose(rng, 300)}` },
    { kind: 'agent', text: `Thanks for checking. ${prose(rng, 500)}` },
    { kind: 'user', text: 'I already tried toggling airplane mode twice, and reseating the SIM card.' },
    { kind: 'tool', name: 'transfer_to_human_agents', args: { summary: `Customer C2093, line L2093: roaming enabled, still no service in Lisbon after restart and SIM reseat. ${prose(rng, 200)}` }, result: 'Transfer successful' },
    ...bye,
  ];
  return { turns, split: 9 };
}

const TASKS: Omit<Task, 'turns' | 'split'>[] = [
  { domain: 'retail', id: '37', taskIndex: 37, rolloutIndex: 3, reward: 1 },
  { domain: 'telecom', id: '[mobile_data_issue]roaming_disabled|airplane_mode_on|sim_card_seated_loose[PERSONA:Hard]', taskIndex: 88, rolloutIndex: 4, reward: 0 },
  { domain: 'airline', id: '19', taskIndex: 19, rolloutIndex: 0, reward: 1 },
  { domain: 'retail', id: '112', taskIndex: 112, rolloutIndex: 5, reward: 1 },
  { domain: 'airline', id: '104', taskIndex: 104, rolloutIndex: 7, reward: 1 },
];

const SYSTEM = (p: string) =>
  '<instructions>\nYou are a customer service agent that helps the user according to the <policy> provided below.\nIn each turn you can either:\n' +
  '- Send a message to the user.\n- Make a tool call.\nYou cannot do both at the same time.\n\nTry to be helpful and always follow the policy. ' +
  `Always make sure you generate valid JSON only.\n</instructions>\n<policy>\n${p}\n</policy>`;

/** The request's input and the response's output: the dialogue in the Responses API's items. */
function responsesItems(rng: Rng, turns: Turn[], ids: string[], asOutput: boolean): Py[] {
  const items: Py[] = [];
  turns.forEach((t, k) => {
    if (t.kind === 'agent') items.push(message(`msg_${rng.hex(32)}`, t.text, null));
    else if (t.kind === 'user') items.push(asOutput ? { content: t.text, role: 'user', type: 'message' } : userMessage(t.text));
    else items.push(functionCall(ids[k], t.name, dumps(t.args, 'spaced')), functionCallOutput(ids[k], t.result));
  });
  return items;
}

const timestamp = (ms: number) => new Date(ms).toISOString().replace('Z', '').replace(/\.(\d{3})$/, (_, f: string) => `.${f}${String(ms % 997).padStart(3, '0')}`);

function common(): Obj {
  return {
    audio_format: null, audio_path: null, audio_script_gold: null, speech_effects: null, source_effects: null, channel_effects: null,
    turn_taking_action: null, utterance_ids: null, chunk_id: null, is_final_chunk: true, source: null, contains_speech: true,
  };
}

/** `result.messages`: each turn as the tau2 simulator records it, with the raw chat completion behind it. */
function simulatorMessages(rng: Rng, turns: Turn[], ids: string[], startMs: number): Py[] {
  const out: Py[] = [];
  let at = startMs;
  let turnIdx = 0;
  const next = () => (at += rng.int(800, 90_000));
  const agentRaw = (content: string, toolCalls: Py, reasoning: string | undefined, prompt: number, completion: number): Obj => ({
    id: `chatcmpl-${rng.hex(16)}`, created: Math.floor(at / 1000), model: '/models/Qwen3.5-122B-A10B', object: 'chat.completion', system_fingerprint: null,
    choices: [{
      finish_reason: toolCalls ? 'tool_calls' : 'stop', index: 0,
      message: { content, role: 'assistant', tool_calls: toolCalls, function_call: null, refusal: null, ...(reasoning ? { reasoning } : {}) },
      stop_reason: null, token_ids: null,
    }],
    usage: { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens_details: null, prompt_tokens_details: null },
    service_tier: null, prompt_logprobs: null, prompt_token_ids: null, kv_transfer_params: null,
  });
  turns.forEach((t, k) => {
    next();
    if (t.kind === 'user') {
      const [prompt, completion] = [rng.int(300, 900), rng.int(4, 80)];
      out.push({
        role: 'user', content: t.text, tool_calls: null, is_audio: false, turn_idx: turnIdx++, timestamp: timestamp(at), cost: float(0),
        usage: { completion_tokens: completion, prompt_tokens: prompt },
        raw_data: {
          id: `chatcmpl-${rng.base62(29)}`, created: Math.floor(at / 1000), model: 'gpt-5.2-2025-12-11', object: 'chat.completion', system_fingerprint: null,
          choices: [{ finish_reason: 'stop', index: 0, message: { content: t.text, role: 'assistant', tool_calls: null, function_call: null, annotations: [], refusal: null } }],
          usage: {
            completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion,
            completion_tokens_details: { accepted_prediction_tokens: 0, audio_tokens: 0, reasoning_tokens: 0, rejected_prediction_tokens: 0 },
            prompt_tokens_details: { audio_tokens: 0, cached_tokens: 0 },
          },
          service_tier: 'default',
        },
        generation_time_seconds: null, ...common(),
      });
      return;
    }
    const [prompt, completion] = [rng.int(4000, 9000), rng.int(30, 400)];
    const first = k === 0;
    const seconds = first ? null : float(rng.int(2_000_000, 400_000_000) / 1e6 + 1e-9 * rng.int(1, 999));
    if (t.kind === 'agent') {
      out.push({
        role: 'assistant', content: t.text, tool_calls: null, is_audio: false, turn_idx: turnIdx++, timestamp: timestamp(at), cost: float(0),
        usage: first ? null : { completion_tokens: completion, prompt_tokens: prompt },
        raw_data: first ? null : agentRaw(t.text, null, t.reasoning, prompt, completion),
        generation_time_seconds: seconds, ...common(),
      });
      return;
    }
    const argsText = dumps(t.args, 'spaced');
    out.push({
      role: 'assistant', content: '', tool_calls: [{ id: ids[k], name: t.name, arguments: t.args, requestor: 'assistant' }], is_audio: false,
      turn_idx: turnIdx++, timestamp: timestamp(at), cost: float(0), usage: { completion_tokens: completion, prompt_tokens: prompt },
      raw_data: agentRaw('', [{ function: { arguments: argsText, name: t.name }, id: ids[k], type: 'function' }], undefined, prompt, completion),
      generation_time_seconds: seconds, ...common(),
    });
    out.push({ id: ids[k], role: 'tool', content: t.result, requestor: 'assistant', error: false, turn_idx: turnIdx++, timestamp: timestamp(at + 1) });
  });
  return out;
}

function config(domain: Domain): Obj {
  return {
    domain, task_set_name: null, task_split_name: 'base', task_ids: null, num_tasks: null, llm_user: 'dummy', llm_args_user: { temperature: float(0) },
    num_trials: 1, max_errors: 10, timeout: null, save_to: '', max_concurrency: 128, seed: 7, log_level: 'ERROR', verbose_logs: false, max_retries: 1,
    retry_delay: float(1), auto_resume: true, auto_review: false, review_mode: 'full', hallucination_retries: 3, is_remote: false, retrieval_config: null,
    retrieval_config_kwargs: null, agent: 'llm_agent', llm_agent: 'dummy', llm_args_agent: { api_base: 'dummy', api_key: 'EMPTY' }, user: 'user_simulator',
    max_steps: 200, enforce_communication_protocol: false, text_streaming_config: null,
  };
}

function expectedAction(task: Task): Obj | null {
  const last = [...task.turns].reverse().find((t) => t.kind === 'tool');
  if (!last || last.kind !== 'tool') return null;
  return { action_id: `${task.id.length > 8 ? 'telecom' : task.id}_0`, requestor: 'assistant', name: last.name, arguments: last.args, info: null, compare_args: [] };
}

function taskObject(rng: Rng, task: Task): Obj {
  const telecom = task.domain === 'telecom';
  const action = expectedAction(task);
  const assertion = { env_type: 'user', func_name: 'assert_service_status', arguments: { expected_status: 'connected' }, assert_value: true, message: null };
  return {
    id: task.id,
    description: { purpose: telecom ? 'Test resolution path: no service while abroad.' : task.domain === 'airline' ? 'Cancel within 24 hours of booking.' : null, relevant_policies: null, notes: null },
    user_scenario: {
      persona: telecom ? `${prose(rng, 400)} You are impatient and reply in short sentences.` : null,
      instructions: {
        domain: task.domain, reason_for_call: prose(rng, 250), known_info: telecom ? 'You are Ravi Ostrowski, your number is 555-0142.' : 'You know your name and zip code.',
        unknown_info: telecom ? null : 'You do not remember your email address', task_instructions: telecom ? prose(rng, 300) : '.',
      },
    },
    ticket: telecom ? prose(rng, 330) : null,
    initial_state: telecom
      ? {
          initialization_data: null,
          initialization_actions: [
            { env_type: 'user', func_name: 'set_user_info', arguments: { name: 'Ravi Ostrowski', phone_number: '555-0142' } },
            { env_type: 'user', func_name: 'turn_airplane_mode_on', arguments: {} },
            { env_type: 'assistant', func_name: 'disable_roaming', arguments: { customer_id: 'C2093', line_id: 'L2093' } },
          ],
          message_history: null,
        }
      : null,
    evaluation_criteria: {
      actions: action ? [action] : [],
      env_assertions: telecom ? [assertion] : null,
      communicate_info: [],
      nl_assertions: task.domain === 'airline' ? ['The agent confirms the cancellation before making it.'] : null,
      reward_basis: telecom ? ['ENV_ASSERTION', 'ACTION'] : ['DB'],
    },
    issues: null,
    required_documents: null,
    user_tools: null,
  };
}

function resultObject(rng: Rng, task: Task, policyText: string, ids: string[]): Obj {
  const telecom = task.domain === 'telecom';
  const startMs = Date.UTC(2026, 3, 14, 9, rng.int(0, 59), rng.int(0, 59), rng.int(0, 999));
  const messages = simulatorMessages(rng, task.turns, ids, startMs);
  const endMs = startMs + rng.int(500_000, 960_000);
  const action = expectedAction(task);
  const reward = float(task.reward);
  const assertion = { env_type: 'user', func_name: 'assert_service_status', arguments: { expected_status: 'connected' }, assert_value: true, message: null };
  return {
    id: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`,
    task_id: task.id,
    timestamp: timestamp(endMs + 5),
    start_time: timestamp(startMs),
    end_time: timestamp(endMs),
    duration: float((endMs - startMs) / 1000 + rng.int(1, 999) * 1e-7),
    termination_reason: 'user_stop',
    agent_cost: float(0),
    user_cost: float(0),
    reward_info: {
      reward,
      db_check: { db_match: task.reward === 1, db_reward: reward },
      env_assertions: telecom ? [{ env_assertion: assertion, met: false, reward: float(0) }] : [],
      action_checks: action ? [{ action, action_match: true, action_reward: float(1), tool_type: task.domain === 'retail' ? 'write' : 'generic' }] : null,
      nl_assertions: null,
      communicate_checks: null,
      reward_basis: telecom ? ['ENV_ASSERTION', 'ACTION'] : ['DB'],
      reward_breakdown: telecom ? { ENV_ASSERTION: float(0), ACTION: float(1) } : { DB: reward },
      info: { env: null, nl: null, communicate: { note: 'No communicate_info to evaluate' }, action: action ? null : { note: 'No actions to evaluate' } },
    },
    messages,
    ticks: null, trial: null, seed: 284117, mode: 'half_duplex', speech_environment: null, review: null, user_only_review: null, info: null,
    auth_classification: null, hallucination_retries_used: 0, hallucination_check: null, provider_session_id: null,
    policy: policyText,
    effect_timeline: null,
  };
}

export function tau2(rng: Rng): Py[] {
  const policies = Object.fromEntries(
    (Object.keys(POLICY_SECTIONS) as Domain[]).map((d) => {
      const [title, sections, chars] = POLICY_SECTIONS[d];
      return [d, policy(rng.fork('policy', d), title, sections, chars)];
    }),
  ) as Record<Domain, string>;
  return TASKS.map((base) => {
    const r = rng.fork('task', base.taskIndex);
    const task: Task = { ...base, ...dialogue(r, base.domain) };
    const ids = task.turns.map((t) => (t.kind === 'tool' ? `chatcmpl-tool-${r.hex(16)}` : ''));
    const input = [userMessage(SYSTEM(policies[task.domain]), 'system'), ...responsesItems(r, task.turns.slice(0, task.split), ids, false)];
    const output = responsesItems(r, task.turns.slice(task.split), ids.slice(task.split), true);
    const tools = TOOLS[task.domain];
    return {
      responses_create_params: createParams(input, { model: '', tools }),
      response: agentResponse({ id: `tau2-${task.domain}-${task.id}`, createdAt: 1776157200 + task.taskIndex * 13, model: '', output, usage: null, tools }),
      reward: float(task.reward),
      config: config(task.domain),
      task: taskObject(r, task),
      seed: 284117,
      evaluation_type: 'all',
      save_dir: null,
      user_voice_settings: null,
      user_persona_config: null,
      verbose_logs: false,
      audio_debug: false,
      audio_taps: false,
      auto_review: false,
      review_mode: 'full',
      hallucination_feedback: null,
      result: resultObject(r, task, policies[task.domain], ids),
      _ng_task_index: task.taskIndex,
      _ng_rollout_index: task.rolloutIndex,
      agent_ref: { type: 'responses_api_agents', name: 'tau2_benchmark_agent' },
    };
  });
}
