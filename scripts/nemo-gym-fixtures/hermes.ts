// The hermes agent on math with a judge: a multi-turn agent whose response output holds its messages, its
// code-execution calls and their outputs (and, here, one reasoning item), with `turns_used`,
// `finished_naturally`, `library_reward` and `judge_evaluations` (null when the library verdict sufficed).
// Its `response.usage` is all zeros, as the agent reports it.
import type { Rng } from '../../lib/demo/random';
import { dumps, float, type Py } from './py-json';
import { createParams, functionCall, functionCallOutput, trainingMessage, trainingReasoning, usage, userMessage, agentResponse } from './responses';
import { prose } from './text';

interface MathTask {
  task: number;
  problem: string;
  expected: string;
  extracted: string;
  reward: number;
  turns: number;
}

const INSTRUCTION = 'Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\n';

// In completion order (task indices 2, 0, 3, 4, 1); the last one takes four turns.
const TASKS: MathTask[] = [
  { task: 2, problem: 'Find the number of positive divisors of \\(2^{4} \\cdot 3^{2} \\cdot 5\\).', expected: '30', extracted: '30', reward: 1, turns: 1 },
  { task: 0, problem: 'Let \\(f(x) = x^2 - 6x + 13\\). Find the minimum value of \\(f\\) on the real line.', expected: '4', extracted: '13', reward: 0, turns: 1 },
  { task: 3, problem: 'A fair die is rolled three times. What is the probability that all three results differ? Give it as a fraction.', expected: '\\frac{5}{9}', extracted: '\\frac{5}{9}', reward: 1, turns: 1 },
  { task: 4, problem: 'Evaluate \\(\\displaystyle\\sum_{k=1}^{20} k^{3}\\).', expected: '44100', extracted: '44100', reward: 1, turns: 1 },
  { task: 1, problem: 'The sequence \\(a_1 = 1\\), \\(a_{n+1} = 3a_n + 2\\) for \\(n \\ge 1\\). Find a closed form for \\(a_n\\) and compute \\(a_{12}\\).', expected: '\\(a_n = 2\\cdot 3^{n-1} - 1,\\ a_{12} = 354293\\)', extracted: 'a_{12} = 354293', reward: 0, turns: 4 },
];

function codeCall(rng: Rng, turn: number, code: string): [Py, Py] {
  const id = `call_${rng.base62(24)}`;
  const result = turn < 2
    ? { status: 'error', output: `\n--- stderr ---\nTraceback (most recent call last):\n  File "<stdin>", line ${rng.int(2, 9)}, in <module>\nModuleNotFoundError: No module named 'sympy'\n` }
    : { status: 'success', output: `a_12 = 354293\nclosed form holds for n = 1..12: True\n` };
  // The model writes its arguments compactly; the tool answers with Python's json.dumps.
  return [functionCall(id, 'execute_code', dumps({ code }, 'compact')), functionCallOutput(id, dumps(result, 'spaced'))];
}

export function hermesMath(rng: Rng): Py[] {
  return TASKS.map((t) => {
    const output: Py[] = [];
    if (t.turns === 1) {
      output.push(trainingMessage('msg-0', `${prose(rng, rng.int(600, 1400))}\n\nTherefore the answer is \\(\\boxed{${t.extracted}}\\).`));
    } else {
      output.push(trainingReasoning('rs-0', 'The recurrence is affine; shift by the fixed point −1 to make it geometric, then check numerically.'));
      for (let turn = 0; turn < t.turns - 1; turn++) {
        output.push(trainingMessage(`msg-${output.length}`, turn === 0 ? '' : `The run failed (${prose(rng, 200)}). Trying again without that library.`));
        output.push(...codeCall(rng, turn, `a = 1\nfor n in range(1, 12):\n    a = 3 * a + 2\nprint(f"a_12 = {a}")\nprint("closed form holds for n = 1..12:", all(2 * 3 ** (n - 1) - 1 == a for n in [12]))\n`));
      }
      output.push(trainingMessage(`msg-${output.length}`, `Both checks agree. ${prose(rng, 700)}\n\nSo \\(\\boxed{${t.extracted}}\\) — the closed form is left implicit.`));
    }
    return {
      responses_create_params: createParams([userMessage(INSTRUCTION + t.problem)]),
      response: agentResponse({ id: `resp_${rng.hex(32)}`, createdAt: 1779003811 + t.task * 7, model: 'policy_model', output, usage: usage({ input: 0, output: 0 }) }),
      reward: float(t.reward),
      turns_used: t.turns,
      finished_naturally: true,
      expected_answer: t.expected,
      extracted_answer: t.extracted,
      library_reward: float(t.reward),
      judge_evaluations: null,
      _ng_task_index: t.task,
      _ng_rollout_index: 0,
      agent_ref: { name: 'math_with_judge_hermes_agent' },
    };
  });
}
