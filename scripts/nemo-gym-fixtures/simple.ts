// The two single-turn shapes: the simple agent's string_match lines (indices stamped by the collector, lines in
// completion order) and mcqa's older lines (no indices, written by plain `json.dumps`).
import type { Rng } from '../../lib/demo/random';
import { float, type Py } from './py-json';
import { createParams, hostedResponse, hostedUsage, inputText, message, olderHostedResponse, usage, userMessage, type Usage } from './responses';
import { prose } from './text';

interface StringMatchTask {
  task: number;
  question: string;
  expected: string;
  extracted: string;
  answer: string;
  usage: Usage;
}

// In completion order, as the collector appends them (task indices 0, 2, 4, 1, 3).
const STRING_MATCH: StringMatchTask[] = [
  { task: 0, question: 'What is the chemical symbol for gold?', expected: 'Au', extracted: 'Au', answer: 'Gold is element 79: its symbol is \\(\\boxed{\\text{Au}}\\).', usage: { input: 24, output: 17 } },
  { task: 2, question: 'How many sides does a hexagon have?', expected: '6', extracted: '6', answer: 'A hexagon has \\(\\boxed{6}\\) sides.', usage: { input: 27, output: 12 } },
  { task: 4, question: 'Which planet is known as the Red Planet?', expected: 'Mars', extracted: 'Mars', answer: 'The Red Planet is \\(\\boxed{\\text{Mars}}\\), coloured by iron oxide dust.', usage: { input: 26, output: 21 } },
  { task: 1, question: 'What is 12 multiplied by 12?', expected: '144', extracted: '124', answer: 'Twelve twelves: 10 x 12 = 120, plus 2 x 2 = 4, so \\(\\boxed{124}\\).', usage: { input: 25, output: 40 } },
  { task: 3, question: 'In which year did people first walk on the Moon?', expected: '1969', extracted: '1969', answer: 'Apollo 11 landed in July 1969.\n\nSo the answer is \\(\\boxed{1969}\\).', usage: { input: 31, output: 96 } },
];

export function stringMatch(rng: Rng): Py[] {
  return STRING_MATCH.map((t, i) => {
    const prompt = `${t.question} Put your final answer in \\boxed{}.`;
    const created = 1786104520 + i;
    return {
      responses_create_params: createParams([{ content: [inputText(prompt)], role: 'user', type: 'message' }]),
      response: hostedResponse({
        id: `resp_${rng.base62(180)}`, createdAt: created, completedAt: created + rng.int(0, 3), model: 'azure/openai/gpt-4.1',
        output: [message(`msg_${rng.hex(50)}`, t.answer, [])], usage: hostedUsage(t.usage),
        promptChars: 150 + prompt.length, completionChars: t.answer.length,
      }),
      reward: float(t.extracted === t.expected ? 1 : 0),
      expected_answer: t.expected,
      extracted_answer: t.extracted,
      _ng_task_index: t.task,
      _ng_rollout_index: 0,
      agent_ref: { name: 'string_match_simple_agent' },
    };
  });
}

interface McqaTask {
  question: string;
  options: string[];
  expected: string;
  extracted: string | null;
  usage: Usage;
}

// Non-ASCII in the last three (json.dumps writes them as \uXXXX, the emoji as a surrogate pair).
const MCQA: McqaTask[] = [
  { question: 'Which organelle produces most of the ATP in a eukaryotic cell?', options: ['Ribosome', 'Mitochondrion', 'Golgi apparatus', 'Lysosome'], expected: 'B', extracted: 'B', usage: { input: 212, output: 401 } },
  { question: 'Which data structure gives O(1) average lookup by key?', options: ['Linked list', 'Binary heap', 'Hash table', 'Sorted array'], expected: 'C', extracted: 'A', usage: { input: 168, output: 352 } },
  { question: 'A gas is heated at constant volume. What happens to its pressure?', options: ['It rises', 'It falls', 'It stays the same', 'It depends on the container’s shape'], expected: 'A', extracted: 'A', usage: { input: 245, output: 298 } },
  { question: 'Which enzyme unwinds the DNA double helix during replication 🧬?', options: ['Ligase', 'Primase', 'Polymerase', 'Helicase'], expected: 'D', extracted: null, usage: { input: 190, output: 455 } },
  { question: 'In a circuit, the change in voltage ΔV across a resistor is 6 V and the current is 2 A. What is its resistance?', options: ['12 Ω', '3 Ω', '0.33 Ω', '8 Ω'], expected: 'B', extracted: 'B', usage: { input: 233, output: 367 } },
];

export function mcqa(rng: Rng): Py[] {
  return MCQA.map((t) => {
    const letters = ['A', 'B', 'C', 'D'];
    const prompt =
      'You should output your final response letter inside \\boxed{} and nothing else You can first think step-by-step. ' +
      `${t.question}\n${t.options.map((o, k) => `${letters[k]}: ${o}`).join('\n')}`;
    const reasoning = prose(rng, rng.int(900, 1800));
    const verdict = t.extracted === null ? 'none of the options fits cleanly.' : `${t.options[letters.indexOf(t.extracted)]}\n\\[\n\\boxed{${t.extracted}}\n\\]`;
    const answer = `Let's work through it step by step:\n\n${reasoning}\n\n**Answer**: ${verdict}`;
    return {
      responses_create_params: createParams([userMessage(prompt)], { parallel_tool_calls: null, tool_choice: null, user: '' }),
      response: olderHostedResponse({
        id: `resp_${rng.hex(48)}`, createdAt: 1757290112, model: 'gpt-4.1-2025-04-14',
        output: [message(`msg_${rng.hex(48)}`, answer, [])], usage: usage(t.usage),
      }),
      reward: float(t.extracted === t.expected ? 1 : 0),
      expected_answer: t.expected,
      extracted_answer: t.extracted,
    };
  });
}
