// The workplace assistant environment: a tool-use task over email, calendar, analytics and CRM tools, the
// whole tool list in the request and again in the response, function calls and their outputs before the
// final message. Lines of `responses_create_params`, `response` and `reward` only, written by `json.dumps`.
import type { Rng } from '../../lib/demo/random';
import { dumps, float, type Py } from './py-json';
import { createParams, functionCall, functionCallOutput, functionTool, message, olderHostedResponse, usage, userMessage, type Usage } from './responses';

type Obj = { [key: string]: Py };

const str = (description: string): Obj => ({ type: 'string', description });
const int = (description: string): Obj => ({ type: 'integer', description });
const params = (properties: Obj, required: string[]): Obj => ({ type: 'object', properties, required, additionalProperties: false });

const TOOLS: Py[] = [
  functionTool('company_directory_find_email_address', 'Finds all email addresses containing the given name (case-insensitive search).', params({ name: str('Name or partial name to search for in email addresses') }, []), false),
  functionTool('email_send_email', 'Sends an email to the specified recipient.', params({ recipient: str('Email address of the recipient'), subject: str('Subject line of the email'), body: str('Body content of the email') }, ['recipient', 'subject', 'body']), false),
  functionTool('analytics_create_plot', "Plots the website's analytics data between two dates.", params({ time_min: str('Start date. Format: YYYY-MM-DD'), time_max: str('End date. Format: YYYY-MM-DD'), value_to_plot: str("One of: 'total_visits', 'session_duration_seconds', 'user_engaged'"), plot_type: str("One of: 'bar', 'line', 'scatter', 'histogram'") }, ['time_min', 'time_max', 'value_to_plot', 'plot_type']), false),
  functionTool('analytics_total_visits_count', 'Returns the number of visits per day between two dates.', params({ time_min: str('Start date. Format: YYYY-MM-DD'), time_max: str('End date. Format: YYYY-MM-DD') }, []), false),
  functionTool('project_management_create_task', 'Creates a task on a board.', params({ task_name: str('Name of the task'), assigned_to_email: str('Email of the assignee'), list_name: str("One of: 'Backlog', 'In Progress', 'In Review', 'Completed'"), due_date: str('Due date. Format: YYYY-MM-DD'), board: str("One of: 'Back end', 'Front end', 'Design'") }, ['task_name', 'assigned_to_email', 'list_name', 'due_date', 'board']), false),
  functionTool('customer_relationship_manager_update_customer', 'Updates a customer record by ID.', params({ customer_id: str('ID of the customer'), field: str('Field to update'), new_value: str('New value for the field') }, ['customer_id', 'field', 'new_value']), false),
  functionTool('customer_relationship_manager_search_customers', 'Searches customers by any of the given fields.', params({ customer_name: str('Name of the customer'), status: str("One of: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"), page: int('Page number'), page_size: int('Customers per page') }, []), false),
];

interface Task {
  request: string;
  calls: [string, Obj, Obj][];
  answer: string;
  reward: number;
  usage: Usage;
}

const TASKS: Task[] = [
  {
    request: 'Make a line chart of session duration since December 1',
    calls: [['analytics_create_plot', { time_min: '2023-12-01', time_max: '2024-02-29', value_to_plot: 'session_duration_seconds', plot_type: 'line' }, { output: 'plots/2023-12-01_2024-02-29_session_duration_seconds_line.png' }]],
    answer: 'Here is the line chart of session duration from December 1 to today: plots/2023-12-01_2024-02-29_session_duration_seconds_line.png.',
    reward: 0, usage: { input: 2291, cached: 2048, output: 57 },
  },
  {
    request: 'Send Nadia an email saying the design review moved to Friday',
    calls: [
      ['company_directory_find_email_address', { name: 'Nadia' }, { output: ['nadia.okafor@atlas.example'] }],
      ['email_send_email', { recipient: 'nadia.okafor@atlas.example', subject: 'Design review moved', body: 'Hi Nadia, the design review is now on Friday. Thanks!' }, { output: 'Email sent successfully.' }],
    ],
    answer: 'Done: I emailed Nadia (nadia.okafor@atlas.example) that the design review moved to Friday.',
    reward: 1, usage: { input: 2364, cached: 2176, output: 71 },
  },
  {
    request: 'How many visits did we get in the first week of February?',
    calls: [['analytics_total_visits_count', { time_min: '2024-02-01', time_max: '2024-02-07' }, { output: { '2024-02-01': 14, '2024-02-02': 9, '2024-02-03': 11 } }]],
    answer: 'There were 34 visits between February 1 and February 7.',
    reward: 1, usage: { input: 2318, cached: 2048, output: 24 },
  },
  {
    request: 'Put a task on the Back end board for Tomás to fix the export bug, due next Friday',
    calls: [
      ['company_directory_find_email_address', { name: 'Tomas' }, { output: ['tomas.reyes@atlas.example'] }],
      ['project_management_create_task', { task_name: 'Fix the export bug', assigned_to_email: 'tomas.reyes@atlas.example', list_name: 'Backlog', due_date: '2024-03-08', board: 'Back end' }, { output: '00000291' }],
    ],
    answer: 'I created task 00000291, "Fix the export bug", on the Back end board for Tomás, due 2024-03-08.',
    reward: 1, usage: { input: 2402, cached: 2176, output: 46 },
  },
  {
    request: "Mark the customer Brightline Ltd as Won",
    calls: [
      ['customer_relationship_manager_search_customers', { customer_name: 'Brightline Ltd' }, { output: [{ customer_id: '00000113', customer_name: 'Brightline Ltd', status: 'Proposal' }] }],
      ['customer_relationship_manager_update_customer', { customer_id: '00000113', field: 'status', new_value: 'Won' }, { output: 'Customer updated successfully.' }],
    ],
    answer: 'Brightline Ltd (customer 00000113) is now marked as Won.',
    reward: 1, usage: { input: 2377, cached: 2048, output: 39 },
  },
];

export function workplaceAssistant(rng: Rng): Py[] {
  return TASKS.map((t) => {
    const system = "Today's date is Thursday, 2024-02-29 and the current time is 10:30:00. Remember the current date and time when answering queries. Meetings must not start before 9am or end after 6pm.";
    const output: Py[] = [];
    for (const [name, args, result] of t.calls) {
      const callId = `call_${rng.base62(24)}`;
      output.push(functionCall(callId, name, dumps(args, 'compact'), `fc_${rng.hex(50)}`), functionCallOutput(callId, dumps(result, 'compact'), null));
    }
    output.push(message(`msg_${rng.hex(50)}`, t.answer, []));
    return {
      responses_create_params: createParams([userMessage(system, 'system'), userMessage(t.request)], { parallel_tool_calls: false, temperature: float(1), tools: TOOLS }),
      response: olderHostedResponse({
        id: `resp_${rng.hex(50)}`, createdAt: 1759301466 + rng.int(0, 40), model: 'gpt-4.1-2025-04-14', output, usage: usage(t.usage),
        parallelToolCalls: false, tools: TOOLS, billing: true,
      }),
      reward: float(t.reward),
    };
  });
}
