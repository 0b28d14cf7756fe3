// tau2-bench retail (NeMo Gym's `tau2` benchmark agent): a customer-service policy model on the Responses
// API, served by vLLM, talking to a simulated user and a retail backend through tools. The user confirms
// before any write action, so one turn is plain text answered by the user.
import { pyFloat, type JsonObject } from '../capture/json-value';
import type { ToolDef } from './conversation';
import type { Rng } from './random';
import type { Scenario, StepCall, Task } from './scenario';

const fn = (name: string, description: string, props: Record<string, string>): ToolDef => ({
  name,
  description,
  parameters: {
    type: 'object',
    title: 'parameters',
    properties: Object.fromEntries(Object.entries(props).map(([k, d]) => [k, { description: d, title: k, type: 'string' }])),
    required: Object.keys(props),
  },
});

export const RETAIL_TOOLS: ToolDef[] = [
  fn('find_user_id_by_name_zip', 'Find user id by first name, last name, and zip code.', { first_name: 'The first name of the customer', last_name: 'The last name of the customer', zip: 'The zip code' }),
  fn('get_user_details', 'Get the details of a user, including their orders.', { user_id: "The user id, such as 'sara_doe_496'" }),
  fn('get_order_details', 'Get the status and details of an order.', { order_id: "The order id, such as '#W0000000'" }),
  fn('cancel_pending_order', 'Cancel a pending order. The user must confirm explicitly (yes) before the action.', { order_id: 'The order id', reason: "'no longer needed' or 'ordered by mistake'" }),
];

const SYSTEM =
  '<instructions>\nYou are a customer service agent that helps the user according to the <policy> provided below.\nIn each turn you can either:\n' +
  '- Send a message to the user.\n- Make a tool call.\nYou cannot do both at the same time.\n</instructions>\n<policy>\n# Retail agent policy\n' +
  '- Authenticate the user by name and zip code before anything else.\n- Only pending orders can be cancelled; the reason must be ' +
  "'no longer needed' or 'ordered by mistake'.\n- Before any action that updates the database, list the details and obtain explicit " +
  'user confirmation (yes) to proceed.\n</policy>';

const NAMES: [string, string, string][] = [
  ['Chen', 'Smith', 'Jacksonville, FL 32278'],
  ['Yusuf', 'Rossi', 'Phoenix, AZ 85025'],
  ['Mia', 'Garcia', 'Denver, CO 80280'],
  ['Olivia', 'Lopez', 'Seattle, WA 98104'],
  ['Ethan', 'Kim', 'Columbus, OH 43206'],
];
const ITEMS = ['Wireless Earbuds', 'Espresso Machine', 'Hiking Boots', 'Desk Lamp', 'Yoga Mat', 'Water Bottle'];

export function retailTask(rng: Rng, taskIndex: number): Task {
  const [first, last, city] = NAMES[taskIndex % NAMES.length];
  const zip = city.slice(-5);
  const userId = `${first.toLowerCase()}_${last.toLowerCase()}_${rng.int(1000, 9999)}`;
  const order = `#W${rng.int(1000000, 9999999)}`;
  const item = rng.pick(ITEMS);
  const price = (rng.int(1500, 40000) / 100).toFixed(2);
  const reason = rng.pick(['no longer needed', 'ordered by mistake'] as const);
  const plan: StepCall[] = [
    { name: 'find_user_id_by_name_zip', args: { first_name: first, last_name: last, zip }, output: userId },
    { name: 'get_user_details', args: { user_id: userId }, output: JSON.stringify({ user_id: userId, name: { first_name: first, last_name: last }, address: { city: city.split(',')[0], zip }, orders: [order] }) },
    { name: 'get_order_details', args: { order_id: order }, output: JSON.stringify({ order_id: order, user_id: userId, status: 'pending', items: [{ name: item, price: Number(price), quantity: 1 }] }) },
  ];
  const cancel: StepCall = { name: 'cancel_pending_order', args: { order_id: order, reason }, output: JSON.stringify({ order_id: order, status: 'cancelled', cancel_reason: reason, refund: price }) };
  return {
    system: SYSTEM,
    greeting: 'Hi! How can I help you today?',
    user: `Hi, I'm ${first} ${last} from ${city}. I'd like to cancel my order ${order}, the ${item}; it was ${reason}.`,
    plannedSteps: plan.length + 2,
    expected: `Order ${order} has been cancelled`,
    wrongAnswer: `I've transferred you to a human agent`,
    extra: { taskId: String((taskIndex * 37) % 115) },
    toolStep(r, step) {
      if (step < plan.length) return { reasoning: null, text: null, calls: [plan[step]] };
      if (step === plan.length) {
        return {
          reasoning: null,
          text: `I found order ${order}: 1 × ${item} ($${price}), status pending. To confirm: cancel it with the reason '${reason}'? Please reply yes to proceed.`,
          calls: [],
          userReply: r.pick(['Yes, please cancel it.', 'yes', 'Yes. Go ahead.']),
        };
      }
      if (step === plan.length + 1) return { reasoning: null, text: null, calls: [cancel] };
      return { reasoning: null, text: null, calls: [{ name: 'get_order_details', args: { order_id: order }, output: JSON.stringify({ order_id: order, status: 'cancelled' }) }] };
    },
    finalStep(_r, success) {
      return {
        reasoning: null,
        text: success
          ? `Order ${order} has been cancelled and $${price} will be refunded to your original payment method within 5-7 business days. Anything else?`
          : `I'm sorry, I'm unable to complete this. I've transferred you to a human agent; please hold on.`,
      };
    },
  };
}

export const retailScenario: Scenario = {
  key: 'retail',
  agentName: 'tau2_benchmark_agent',
  policy: { name: 'policy_model', dialect: 'responses', model: 'Qwen/Qwen3-235B-A22B-Instruct-2507', vllm: true, reasoning: false, streamingShare: 0 },
  tools: RETAIL_TOOLS,
  successRate: 0.75,
  toolSeconds: 0.02,
  task: retailTask,
  createParams: () => ({ temperature: pyFloat(0) }),
  resultFields(task, outcome): JsonObject {
    return {
      task: { id: task.extra?.taskId ?? null, domain: 'retail', reason_for_call: task.user },
      evaluation_type: 'all',
      result: { termination_reason: outcome.success ? 'user_stop' : 'agent_transfer', duration: pyFloat(Math.round(outcome.durationS * 1000) / 1000), reward: pyFloat(outcome.success ? 1 : 0) },
    };
  },
};
