// Workplace assistant (NeMo Gym's `workplace_assistant` environment): an office agent with email,
// calendar, analytics and CRM tools, driven through the Responses API by a reasoning model. Its knowledge-base
// tool is answered by the resources server with help from `tool_model`.
import { pyFloat, type JsonObject } from '../capture/json-value';
import type { ToolDef } from './conversation';
import type { Rng } from './random';
import type { Scenario, StepCall, Task } from './scenario';

const FIRST = ['Nadia', 'Raj', 'Carlos', 'Chenoa', 'Amir', 'Hannah', 'Dmitri', 'Yuki', 'Fatima', 'Luis', 'Akira', 'Sofia', 'Kwame', 'Ingrid'];
const LAST = ['Moreno', 'Patel', 'Okafor', 'Lindqvist', 'Haddad', 'Kowalski', 'Tanaka', 'Silva', 'Mensah', 'Novak', 'Brennan', 'Zhou'];
const TOPICS = ['Q3 budget review', 'onboarding checklist', 'vendor contract renewal', 'launch retrospective', 'security training', 'offsite logistics'];
const METRICS = ['total_visits', 'session_duration_seconds', 'user_engaged', 'conversion_rate'];
const PLOTS = ['bar', 'line', 'scatter', 'histogram'];
const STATUSES = ['Qualified', 'Won', 'Lost', 'Lead', 'Proposal'];

const obj = (properties: JsonObject, required: string[]): JsonObject => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const str = (description: string): JsonObject => ({ type: 'string', description });

export const WORKPLACE_TOOLS: ToolDef[] = [
  {
    name: 'company_directory_find_email_address',
    description: 'Finds email addresses containing the given name (case-insensitive).',
    parameters: obj({ name: str('Name or partial name') }, []),
  },
  {
    name: 'email_send_email',
    description: 'Sends an email.',
    parameters: obj({ recipient: str('Recipient email'), subject: str('Subject line'), body: str('Body text') }, ['recipient', 'subject', 'body']),
  },
  {
    name: 'calendar_create_event',
    description: 'Creates a calendar event and returns its id.',
    parameters: obj({ event_name: str('Event name'), participant_email: str('Participant email'), event_start: str('YYYY-MM-DD HH:MM:SS'), duration: str('Minutes') }, ['event_name', 'participant_email', 'event_start', 'duration']),
  },
  {
    name: 'analytics_create_plot',
    description: 'Plots analytics data over a date range; returns the image path.',
    parameters: obj({ time_min: str('YYYY-MM-DD'), time_max: str('YYYY-MM-DD'), value_to_plot: str('total_visits, session_duration_seconds, user_engaged or conversion_rate'), plot_type: str('bar, line, scatter or histogram') }, ['time_min', 'time_max', 'value_to_plot', 'plot_type']),
  },
  {
    name: 'customer_relationship_manager_search_customers',
    description: 'Searches customers; returns at most five.',
    parameters: obj({ assigned_to_email: str('Sales rep email'), status: str('Customer status') }, []),
  },
  {
    name: 'knowledge_base_search',
    description: 'Searches the company handbook; returns a short answer with sources.',
    parameters: obj({ query: str('What to look up') }, ['query']),
  },
];

const SYSTEM =
  "Today's date is Thursday, 2023-11-30 and the current time is 23:59:00. Remember the current date and time when answering queries. " +
  'Meetings must not start before 9am or end after 6pm. You are the workplace assistant of Atlas Corp: use the tools to act on the ' +
  "user's behalf, look up email addresses before writing to anyone, and confirm what you did in one or two sentences.";

type Kind = 'email' | 'meeting' | 'plot' | 'crm';

function person(rng: Rng): { full: string; first: string; email: string } {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  return { full: `${first} ${last}`, first, email: `${first.toLowerCase()}.${last.toLowerCase()}@atlas.com` };
}

function lookup(p: { first: string; email: string }): StepCall {
  return { name: 'company_directory_find_email_address', args: { name: p.first }, output: JSON.stringify({ output: [p.email] }) };
}

export function workplaceTask(rng: Rng, taskIndex: number): Task {
  const kind = (['email', 'meeting', 'plot', 'crm'] as const)[taskIndex % 4] as Kind;
  const p = person(rng);
  const topic = rng.pick(TOPICS);
  const day = rng.int(4, 15);
  const date = `2023-12-${String(day).padStart(2, '0')}`;
  const hour = rng.int(9, 16);
  const metric = rng.pick(METRICS);
  const plot = rng.pick(PLOTS);
  const status = rng.pick(STATUSES);
  const count = rng.int(1, 5);
  const customers = Array.from({ length: count }, (_, i) => ({
    customer_id: `0000${rng.int(1000, 9999)}`,
    customer_name: `${rng.pick(LAST)} ${['Holdings', 'Labs', 'Logistics', 'Foods', 'Systems'][i % 5]}`,
    assigned_to_email: p.email,
    status,
  }));
  const plotPath = `plots/2023-11-30_${date}_${metric}_${plot}.png`;
  const users: Record<Kind, string> = {
    email: `Send an email to ${p.first} with the subject '${topic}' asking them to share their notes by Friday.`,
    meeting: `Schedule a 30-minute meeting called '${topic}' with ${p.first} on ${date} at ${hour}:00.`,
    plot: `Create a ${plot} chart of ${metric.replace(/_/g, ' ')} since November 30`,
    crm: `How many ${status.toLowerCase()} customers are assigned to ${p.first}?`,
  };
  const plans: Record<Kind, StepCall[]> = {
    email: [
      lookup(p),
      { name: 'email_send_email', args: { recipient: p.email, subject: topic, body: `Hi ${p.first},\n\nCould you share your notes on the ${topic} by Friday?\n\nThanks!` }, output: '{"output":"Email sent successfully."}' },
    ],
    meeting: [
      lookup(p),
      { name: 'calendar_create_event', args: { event_name: topic, participant_email: p.email, event_start: `${date} ${hour}:00:00`, duration: '30' }, output: `{"output":"00000${rng.int(100, 399)}"}` },
    ],
    plot: [{ name: 'analytics_create_plot', args: { time_min: '2023-11-30', time_max: date, value_to_plot: metric, plot_type: plot }, output: JSON.stringify({ output: plotPath }) }],
    crm: [lookup(p), { name: 'customer_relationship_manager_search_customers', args: { assigned_to_email: p.email, status }, output: JSON.stringify({ output: customers }) }],
  };
  const finals: Record<Kind, [string, string]> = {
    email: [`I've emailed ${p.full} (${p.email}) with the subject "${topic}", asking for their notes by Friday.`, `I couldn't find a unique address for ${p.first}, so I sent the email to the team list instead.`],
    meeting: [`Done: "${topic}" is booked with ${p.full} on ${date} from ${hour}:00 to ${hour}:30.`, `I booked "${topic}" with ${p.full} on ${date} at ${hour + 1}:00.`],
    plot: [`Here is the ${plot} chart of ${metric} since November 30: ![chart](${plotPath})`, `Here is the line chart of total visits since November 30: ![chart](${plotPath})`],
    crm: [`${p.first} has ${count} ${status.toLowerCase()} customer${count > 1 ? 's' : ''}: ${customers.map((c) => c.customer_name).join(', ')}.`, `${p.first} has ${count + 2} ${status.toLowerCase()} customers.`],
  };
  const plan = plans[kind];
  return {
    system: SYSTEM,
    user: users[kind],
    plannedSteps: plan.length,
    expected: finals[kind][0],
    wrongAnswer: finals[kind][1],
    toolStep(r, step) {
      if (step < plan.length) {
        const call = plan[step];
        const first = Object.values(call.args)[0];
        const about = typeof first === 'string' ? ` for "${first.split('\n')[0]}"` : '';
        return { reasoning: `**Next step**\n\nI'll call ${call.name}${about}.`, text: null, calls: [call] };
      }
      const query = r.pick([`policy on ${topic}`, 'meeting room booking rules', `who owns ${topic}`, 'expense approval limits']);
      const answer = `According to the handbook, ${query} is handled by the operations team; see section ${r.int(2, 9)}.${r.int(1, 6)}.`;
      return {
        reasoning: `**Checking the handbook**\n\nI want to look up "${query}" before finishing.`,
        text: null,
        calls: [{ name: 'knowledge_base_search', args: { query }, output: JSON.stringify({ output: answer, sources: [`handbook/${topic.replace(/ /g, '-')}.md`] }), toolModelPrompt: `Answer from the handbook excerpt: ${query}` }],
      };
    },
    finalStep(_r, success) {
      return { reasoning: '**Wrapping up**\n\nDone; confirming to the user.', text: success ? finals[kind][0] : finals[kind][1] };
    },
  };
}

export const workplaceScenario: Scenario = {
  key: 'workplace',
  agentName: 'workplace_assistant_simple_agent',
  policy: { name: 'policy_model', dialect: 'responses', model: 'o4-mini-2025-04-16', vllm: false, reasoning: true, streamingShare: 0.4 },
  toolModel: { name: 'tool_model', dialect: 'chat', model: 'Qwen/Qwen3-4B-Instruct-2507', vllm: true },
  tools: WORKPLACE_TOOLS,
  successRate: 0.7,
  toolSeconds: 0.08,
  task: workplaceTask,
  createParams: () => ({ parallel_tool_calls: false, temperature: pyFloat(1) }),
  resultFields: () => ({}),
};
