// One very large observed rollout for the trajectory view's benchmark (targets.md T1: 500 calls, 5,000 tool calls,
// 6 invocations): the claude-code-agent's building blocks (tree simulator, claude_code observations, the collector's
// post-processing) driven by a plan sized to exact counts. The main invocation spawns the subagents through Task
// calls (the first two at once); every invocation runs about ten tools per turn in parallel, some failed, timed
// out or unmeasured, and compacts its context every dozen turns, which bounds each request and the line.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { serialize } from '../capture/json-serialize';
import { collectRolloutLine } from '../rollouts/collect-line';
import type { CompactionPlan, InvocationPlan, ToolPlan, TurnPlan } from './agent-tree';
import { CLAUDE_CODE_TOOLS, SUBAGENT_SYSTEM } from './claude-code-plan';
import { Rng } from './random';
import { simulateRollout } from './rollout';
import { BASE_EPOCH } from './runs';
import { claudeCodeScenario, simulateObservedTree } from './scenario-claude-code';
import { SWE_TOOLS } from './scenario-swe';
import type { RolloutSpec, Scenario, Task } from './scenario';
import { writeCaptureFile } from './writer';

export interface LargeTrajectorySize {
  calls: number;
  toolCalls: number;
  invocations: number;
}
export const T1_SIZE: LargeTrajectorySize = { calls: 500, toolCalls: 5000, invocations: 6 };

const TURNS_PER_COMPACTION = 12;

/** Calls split evenly over the invocations, the main one first. */
const share = (total: number, parts: number, i: number) => Math.floor(total / parts) + (i < total % parts ? 1 : 0);

function regularTool(rng: Rng, n: number): ToolPlan {
  const file = `/testbed/src/module_${n % 97}.py`;
  const status = n % 97 === 13 ? 'timeout' : n % 23 === 5 ? 'failed' : 'completed';
  const unmeasured = n % 41 === 7;
  switch (n % 4) {
    case 0:
      return { name: 'Read', args: { file_path: file }, output: `     1\t"""Module ${n % 97}."""\n     2\timport os\n     3\t\n     4\tdef f_${n}(x):\n     5\t    return x + ${n}`, seconds: 0.1, unmeasured };
    case 1:
      return { name: 'Grep', args: { pattern: `f_${n}`, path: '/testbed/src' }, output: `src/module_${n % 97}.py:4:def f_${n}(x):\ntests/test_module_${n % 97}.py:${rng.int(5, 90)}:    f_${n}(1)`, seconds: 0.3, unmeasured };
    default: {
      const command = `python -m pytest tests/test_module_${n % 97}.py -q -k f_${n}`;
      const output = status === 'timeout' ? 'Command timed out after 30.0s' : status === 'failed' ? `F\n1 failed in 0.${rng.int(10, 99)}s\nExit code 1` : `1 passed in 0.${rng.int(10, 99)}s`;
      return { name: 'Bash', args: { command, description: 'Run one test' }, output, seconds: status === 'timeout' ? 30 : 1.5, status, unmeasured };
    }
  }
}

/** `calls` calls: turns with compactions between them, the last turn the invocation's answer. */
function invocationSteps(label: string, calls: number, tools: (turn: number) => ToolPlan[]): (TurnPlan | CompactionPlan)[] {
  const compactions = Math.floor((calls - 1) / (TURNS_PER_COMPACTION + 1));
  const turns = calls - compactions;
  const after = new Set(Array.from({ length: compactions }, (_, q) => Math.round(((q + 1) * turns) / (compactions + 1))));
  const steps: (TurnPlan | CompactionPlan)[] = [];
  for (let i = 0; i < turns; i++) {
    const final = i === turns - 1;
    steps.push({ reasoning: final ? 'Everything asked for is done.' : `Step ${i + 1}: check the next batch of modules.`, text: final ? `Checked every module in ${turns} steps.` : null, tools: final ? [] : tools(i) });
    if (after.has(i + 1) && !final) steps.push({ compaction: { analysis: `Worked through ${i + 1} steps of ${label}.`, summary: `1. ${label}: ${i + 1} steps done.\n2. Next: the remaining modules.` } });
  }
  return steps;
}

export function largePlan(rng: Rng, task: Task, size: LargeTrajectorySize): InvocationPlan {
  const subagents = size.invocations - 1;
  const callsOf = (i: number) => share(size.calls, size.invocations, i);
  const toolTurns = Array.from({ length: size.invocations }, (_, i) => callsOf(i) - Math.floor((callsOf(i) - 1) / (TURNS_PER_COMPACTION + 1)) - 1);
  const allTurns = toolTurns.reduce((a, b) => a + b, 0);
  const regular = size.toolCalls - subagents;
  if (callsOf(size.invocations - 1) < 1 || regular < 0 || (subagents > 0 && toolTurns[0] < 1) || (regular > 0 && allTurns < 1)) {
    throw new RangeError(`cannot lay out ${size.calls} calls, ${size.toolCalls} tool calls and ${size.invocations} invocations`);
  }
  // the regular tools spread evenly over every tool turn of every invocation, numbered for their contents
  let numbered = 0;
  const batch = (turnsBefore: number) => (turn: number): ToolPlan[] => {
    const g = turnsBefore + turn;
    const count = Math.round(((g + 1) * regular) / allTurns) - Math.round((g * regular) / allTurns);
    return Array.from({ length: count }, () => regularTool(rng, numbered++));
  };
  let seen = 0;
  const children: InvocationPlan[] = [];
  for (let i = 1; i <= subagents; i++) {
    seen += toolTurns[i - 1];
    children.push({ system: SUBAGENT_SYSTEM, prompt: `Check modules batch ${i} and report failures.`, tools: SWE_TOOLS, steps: invocationSteps(`batch ${i}`, callsOf(i), batch(seen)) });
  }
  const spawnAt = (k: number) => (k < 2 ? 0 : Math.round(((k - 1) * (toolTurns[0] - 1)) / Math.max(1, subagents - 1)));
  const mainBatch = batch(0);
  const main = invocationSteps('the main task', callsOf(0), (turn) => {
    const tasks = children.flatMap((child, k) => (spawnAt(k) === turn ? [{ name: 'Task', args: { description: `Check batch ${k + 1}`, prompt: child.prompt, subagent_type: 'general-purpose' }, output: '', seconds: 0, spawn: child }] : []));
    return [...tasks, ...mainBatch(turn)];
  });
  return { system: task.system, prompt: `${task.user}\n\nAlso check every module under /testbed/src.`, tools: CLAUDE_CODE_TOOLS, steps: main };
}

/** Writes `<dir>/rollouts.jsonl` (one line, as the collector writes it) and `<dir>/captures/<id>.capture.jsonl`. */
export async function writeLargeTrajectoryRun(dir: string, size: LargeTrajectorySize = T1_SIZE): Promise<{ rolloutsFile: string; captureDir: string; rolloutId: string }> {
  const captureDir = path.join(dir, 'captures');
  await fsp.mkdir(captureDir, { recursive: true });
  const scenario: Scenario = { ...claudeCodeScenario, simulate: (spec, root) => simulateObservedTree(spec, root, (rng, task) => largePlan(rng, task, size)) };
  const spec: RolloutSpec = { scenario, taskIndex: 0, rolloutIndex: 0, attempt: 0, startAt: BASE_EPOCH + 50 * 3600, success: true };
  const sim = simulateRollout(spec, new Rng('callscope-demo/large-trajectory'));
  await writeCaptureFile(captureDir, sim.rolloutId, sim.exchanges);
  await collectRolloutLine(sim.line, [captureDir]);
  const rolloutsFile = path.join(dir, 'rollouts.jsonl');
  await fsp.writeFile(rolloutsFile, serialize(sim.line) + '\n');
  return { rolloutsFile, captureDir, rolloutId: sim.rolloutId };
}
