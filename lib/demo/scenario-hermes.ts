// NeMo Gym's hermes_agent on math_with_judge, with observability on: the same thinking model and judge as the
// math scenario, called without streaming as Hermes does, with a `terminal` tool beside `execute_code`. Hermes
// first checks its sandbox (a missing script fails now and then), then solves; it reports what it saw as
// `ng_agent_observations` (observe-hermes.ts).
import { serialize } from '../capture/json-serialize';
import type { ToolDef } from './conversation';
import { hermesObservations } from './observe-hermes';
import type { Rng } from './random';
import type { Scenario, Task } from './scenario';
import { MATH_TOOLS, mathScenario, mathTask } from './scenario-math';

export const TERMINAL_TOOL: ToolDef = {
  name: 'terminal',
  description: 'Run a shell command in the task sandbox; returns its output and exit code as JSON.',
  parameters: { type: 'object', properties: { command: { type: 'string', description: 'The command to run' } }, required: ['command'] },
};

function hermesTask(rng: Rng, taskIndex: number): Task {
  const base = mathTask(rng, taskIndex);
  return {
    ...base,
    plannedSteps: base.plannedSteps + 1,
    toolStep(r, step) {
      if (step > 0) return base.toolStep(r, step - 1);
      const missing = r.chance(0.3);
      const command = missing ? 'python3 /workspace/check_env.py' : 'python3 -c "import sympy, numpy; print(sympy.__version__, numpy.__version__)"';
      const result = missing
        ? { output: "python3: can't open file '/workspace/check_env.py': [Errno 2] No such file or directory", exit_code: 2, error: null }
        : { output: '1.13.3 2.1.3', exit_code: 0, error: null };
      return { reasoning: 'Before solving it, let me check what the sandbox has installed.', text: null, calls: [{ name: 'terminal', args: { command }, output: serialize(result) }] };
    },
  };
}

export const hermesScenario: Scenario = {
  ...mathScenario,
  key: 'hermes',
  policy: { ...mathScenario.policy, streamingShare: 0 },
  tools: [TERMINAL_TOOL, ...MATH_TOOLS],
  task: hermesTask,
  observe: (rollout) => ({ ng_agent_observations: hermesObservations(rollout) }),
};
