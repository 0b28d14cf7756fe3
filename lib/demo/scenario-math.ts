// Math with a judge (NeMo Gym's `math_with_judge` through the Hermes agent): a vLLM-served thinking model on
// Chat Completions with a code-execution tool; the resources server grades the boxed answer with
// `judge_model` over the Responses API and records the verdict in `judge_evaluations`.
import { pyFloat, type JsonObject } from '../capture/json-value';
import type { ToolDef } from './conversation';
import type { Rng } from './random';
import type { Scenario, Task } from './scenario';

export const MATH_TOOLS: ToolDef[] = [
  {
    name: 'execute_code',
    description: 'Run a Python 3 snippet in a sandbox and return its stdout. Use print() to see values.',
    parameters: { type: 'object', properties: { code: { type: 'string', description: 'Python source to execute' } }, required: ['code'] },
  },
];

const SYSTEM =
  'You are Hermes, a careful mathematical assistant. Think step by step. You may call execute_code to check arithmetic; ' +
  'the sandbox has sympy and numpy. When you are done, state the final answer inside \\boxed{}.';

const INSTRUCTION = 'Solve the following math problem. Make sure to put the answer (and only answer) inside \\boxed{}.\n\n';

interface Problem {
  question: string;
  answer: number;
  code: string;
  idea: string;
}

function sigma(n: number): number {
  let s = 0;
  for (let d = 1; d <= n; d++) if (n % d === 0) s += d;
  return s;
}

function modpow(a: number, b: number, m: number): number {
  let r = 1;
  let x = a % m;
  for (let e = b; e > 0; e >>= 1) {
    if (e & 1) r = (r * x) % m;
    x = (x * x) % m;
  }
  return r;
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

function problem(rng: Rng, taskIndex: number): Problem {
  switch (taskIndex % 4) {
    case 0: {
      const n = rng.int(12, 90) * rng.pick([6, 10, 12, 24]);
      return { question: `Find the sum of all positive divisors of ${n}.`, answer: sigma(n), code: `n = ${n}\nprint(sum(d for d in range(1, n + 1) if n % d == 0))`, idea: `factor ${n} and use the multiplicative divisor-sum formula` };
    }
    case 1: {
      const [a, b, m] = [rng.int(2, 19), rng.int(20, 400), rng.pick([7, 11, 13, 17, 19, 23, 29, 97])];
      return { question: `What is the remainder when ${a}^{${b}} is divided by ${m}?`, answer: modpow(a, b, m), code: `print(pow(${a}, ${b}, ${m}))`, idea: `use Fermat's little theorem to reduce the exponent ${b} modulo ${m - 1}` };
    }
    case 2: {
      const [n, k] = [rng.int(9, 30), rng.int(2, 6)];
      return { question: `In how many ways can a committee of ${k} people be chosen from a club of ${n} members?`, answer: choose(n, k), code: `from math import comb\nprint(comb(${n}, ${k}))`, idea: `this is the binomial coefficient C(${n}, ${k})` };
    }
    default: {
      const [a, b] = [rng.int(100, 999), rng.int(100, 999)];
      const answer = String(a * b).split('').reduce((s, d) => s + Number(d), 0);
      return { question: `What is the sum of the digits of ${a} \\times ${b}?`, answer, code: `print(sum(int(c) for c in str(${a} * ${b})))`, idea: `compute ${a} × ${b} = ${a * b} and add its digits` };
    }
  }
}

export function mathTask(rng: Rng, taskIndex: number): Task {
  const p = problem(rng, taskIndex);
  const wrong = p.answer + rng.pick([-2, -1, 1, 3, 10]);
  return {
    system: SYSTEM,
    user: INSTRUCTION + p.question,
    plannedSteps: 1,
    expected: String(p.answer),
    wrongAnswer: String(wrong),
    toolStep(r, step) {
      const check = step === 0 ? p.code : `# double-check with a different method (attempt ${step + 1})\n${p.code.replace('print(', 'result = (')}\nprint(result, result == ${p.answer})`;
      return {
        reasoning: step === 0
          ? `Okay, let's see. The problem asks: ${p.question} I think the cleanest approach is to ${p.idea}. Before committing to an answer, let me verify the arithmetic with a quick script.`
          : `Hmm, let me double-check that result another way, just to be safe. ${r.pick(['The numbers are large enough that a slip is easy.', 'I want to rule out an off-by-one error.', 'A second method should agree.'])}`,
        text: null,
        calls: [{ name: 'execute_code', args: { code: check }, output: step === 0 ? `${p.answer}\n` : `${p.answer} True\n` }],
      };
    },
    finalStep(_r, success) {
      const value = success ? p.answer : wrong;
      return {
        reasoning: `The script printed ${p.answer}${success ? ', which matches my reasoning' : ", but I'll trust my hand computation"}. So the final answer is ${value}.`,
        text: `We ${p.idea}.\n\nCarrying this out gives ${value}.\n\n\\boxed{${value}}`,
      };
    },
  };
}

const JUDGE_SYSTEM =
  'You are a strict grader. Compare the final answer of a candidate solution with the reference answer. ' +
  'Answer with [[A=B]] if they are mathematically equivalent and [[A!=B]] otherwise, after one sentence of justification.';

export const mathScenario: Scenario = {
  key: 'math',
  agentName: 'math_with_judge_hermes_agent',
  policy: { name: 'policy_model', dialect: 'chat', model: 'Qwen/Qwen3-30B-A3B-Thinking-2507', vllm: true, reasoning: true, streamingShare: 0.85 },
  judge: { name: 'judge_model', dialect: 'responses', model: 'gpt-4.1-2025-04-14', vllm: false },
  tools: MATH_TOOLS,
  successRate: 0.6,
  toolSeconds: 0.6,
  task: mathTask,
  createParams: () => ({}),
  judgePrompt: (task, finalText) => ({
    system: JUDGE_SYSTEM,
    user: `<|Problem|>\n${task.user.slice(INSTRUCTION.length)}\n\n<|Reference answer|>\n${task.expected}\n\n<|Candidate solution|>\n${finalText}`,
  }),
  resultFields(task, outcome) {
    const extracted = /\\boxed\{([^}]*)\}/.exec(outcome.finalText)?.[1] ?? null;
    const fields: JsonObject = {
      turns_used: outcome.policyTurns,
      finished_naturally: true,
      expected_answer: task.expected,
      extracted_answer: extracted,
      library_reward: pyFloat(extracted === task.expected ? 1 : 0),
      judge_evaluations: outcome.judge
        ? [{ responses_create_params: outcome.judge.request, response: outcome.judge.response, verdict_label: outcome.judge.verdict }]
        : null,
    };
    return fields;
  },
};
