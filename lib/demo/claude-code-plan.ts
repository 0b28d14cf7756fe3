// What Claude Code does on a SWE-bench instance, as a plan for the tree simulator (agent-tree.ts): it searches
// in parallel, hands the survey of the tests to a subagent while it reads the code, edits (sometimes missing the
// string first), hands the test run to a second subagent, verifies, and on a long rollout compacts its context
// before its last checks. Tests fail or time out as test suites do; a few tool calls lose their timestamps.
import type { CompactionPlan, InvocationPlan, ToolPlan, TurnPlan } from './agent-tree';
import type { ToolDef } from './conversation';
import type { Rng } from './random';
import type { CallFault } from './rollout-trace';
import type { StepCall, Task } from './scenario';
import { stringSchema, SWE_INSTANCES, SWE_TOOLS } from './scenario-swe';

export const TASK_TOOL: ToolDef = {
  name: 'Task',
  description: 'Launch a new agent to handle a complex, multi-step task autonomously. The agent returns one message when it is done.',
  parameters: stringSchema(
    { description: 'A short (3-5 word) description of the task', prompt: 'The task for the agent to perform', subagent_type: 'The type of agent to use' },
    ['description', 'prompt', 'subagent_type'],
  ),
};
export const CLAUDE_CODE_TOOLS: ToolDef[] = [...SWE_TOOLS, TASK_TOOL];

export const SUBAGENT_SYSTEM =
  "You are an agent for Claude Code, Anthropic's official CLI for Claude. Given the user's message, use the tools available " +
  'to complete the task. Do what has been asked; nothing more, nothing less. When you are done, reply with a concise report.\n\n' +
  '<env>\nWorking directory: /testbed\n</env>';

const SECONDS: Record<string, number> = { Grep: 0.4, Read: 0.12, Edit: 0.08, Bash: 3.5, Task: 0 };
const tool = (c: StepCall, extra: Partial<ToolPlan> = {}): ToolPlan => ({ name: c.name, args: c.args, output: c.output, seconds: SECONDS[c.name] ?? 1, ...extra });
const turn = (reasoning: string | null, text: string | null, tools: ToolPlan[]): TurnPlan => ({ reasoning, text, tools });
const dirOf = (file: string) => file.split('/').slice(0, -1).join('/') || '.';

function task(description: string, prompt: string, spawn: InvocationPlan): ToolPlan {
  return { name: 'Task', args: { description, prompt, subagent_type: 'general-purpose' }, output: '', seconds: 0, spawn };
}

export function sweAgentPlan(rng: Rng, t: Task, taskIndex: number, success: boolean, faults: Record<number, CallFault[]> = {}): InvocationPlan {
  const inst = SWE_INSTANCES[taskIndex % SWE_INSTANCES.length];
  const fn = inst.fn.split('.').pop()!;
  const cases = rng.int(6, 40);
  const step = (k: number) => t.toolStep(rng, k);
  const [find, read, edit, verify] = [0, 1, 2, 3].map(step);
  const subagent = (prompt: string, steps: TurnPlan[]): InvocationPlan => ({ system: SUBAGENT_SYSTEM, prompt, tools: SWE_TOOLS, steps });

  const survey = subagent(`Find the tests in ${inst.test} that exercise \`${fn}\` and summarize what they assert. Do not modify any file.`, [
    turn('Search for the tests first, and read the file while the search runs.', null, [
      tool({ name: 'Grep', args: { pattern: fn, path: `/testbed/${dirOf(inst.test)}` }, output: `${inst.test}:${rng.int(10, 90)}:from ${inst.file.replace(/\.py$/, '').replaceAll('/', '.')} import ${fn}` }),
      tool({ name: 'Read', args: { file_path: `/testbed/${inst.test}` }, output: `     1\t"""Tests for ${inst.file}."""\n     2\timport pytest\n     3\t\n     4\tdef test_${fn.toLowerCase()}_basic():\n     5\t    ...` }),
    ]),
    turn(null, `\`${inst.test}\` covers \`${fn}\` in ${cases} cases; none of them reproduces "${inst.bug}".`, []),
  ]);

  const timedOut = rng.chance(0.35);
  const fullSuite = `cd /testbed && python -m pytest ${dirOf(inst.test)} -q 2>&1 | tail -3`;
  const focused = `cd /testbed && python -m pytest ${inst.test} -q -x 2>&1 | tail -3`;
  const tests = subagent(`Run the tests around \`${fn}\` (${inst.test}, then its directory) and report any failure with its assertion.`, [
    turn('Run the whole directory first.', null, [
      tool(
        { name: 'Bash', args: { command: fullSuite, description: 'Run the test directory' }, output: timedOut ? 'Command timed out after 2m 0.0s' : `${cases * 7} passed in ${rng.float(20, 90).toFixed(2)}s` },
        timedOut ? { status: 'timeout', seconds: 120 } : { seconds: 25 },
      ),
    ]),
    turn(timedOut ? 'The directory is too slow; run only the affected file.' : 'Now the affected file on its own, stopping at the first failure.', null, [
      tool(
        { name: 'Bash', args: { command: focused, description: 'Run the affected tests' }, output: success ? `${cases} passed in ${rng.float(0.5, 6).toFixed(2)}s` : `F\n1 failed, ${cases - 1} passed in ${rng.float(0.5, 6).toFixed(2)}s\nExit code 1` },
        success ? {} : { status: 'failed' },
      ),
    ]),
    turn(null, success ? `All ${cases} tests in \`${inst.test}\` pass.` : `1 of ${cases} tests in \`${inst.test}\` still fails: the nested case is not handled.`, []),
  ]);

  const steps: (TurnPlan | CompactionPlan)[] = [
    turn(find.reasoning, find.text, [
      tool(find.calls[0]),
      tool({ name: 'Bash', args: { command: 'git log --oneline -3', description: 'Recent history' }, output: `${rng.hex(9)} Merge pull request #${rng.int(9000, 30000)}\n${rng.hex(9)} Fix typo in docs\n${rng.hex(9)} Bump version` }),
    ]),
    turn('A subagent can survey the tests while I read the implementation.', null, [task('Survey the relevant tests', survey.prompt, survey), tool(read.calls[0])]),
  ];
  if (rng.chance(0.3)) {
    const missed = { ...edit.calls[0], args: { ...edit.calls[0].args, old_string: `${inst.before} ` }, output: `<tool_use_error>String to replace not found in file.\nString: ${inst.before} </tool_use_error>` };
    steps.push(turn(edit.reasoning, null, [tool(missed, { status: 'failed' })]), turn('The string had no trailing space; retry with the exact line.', null, [tool(edit.calls[0])]));
  } else steps.push(turn(edit.reasoning, edit.text, [tool(edit.calls[0])]));
  steps.push(turn('Let a subagent run the tests.', null, [task('Run the affected tests', tests.prompt, tests)]));
  const long = rng.chance(0.5);
  if (long) {
    steps.push({
      compaction: {
        analysis: `The user asked to fix ${inst.bug} in ${inst.repo}. I located ${inst.fn}, edited ${inst.file} and ran the tests through a subagent.`,
        summary: `1. Task: ${inst.bug} (${inst.id}).\n2. Change made in ${inst.file}: \`${inst.before}\` became \`${inst.after.split('\n').pop()!.trim()}\`.\n3. Tests: ${inst.test}.\n4. Next: verify and check the diff.`,
      },
    });
  }
  steps.push(turn(verify.reasoning, verify.text, [tool(verify.calls[0])]));
  if (long) {
    for (const check of [step(4), step(5)]) steps.push(turn(check.reasoning, null, check.calls.map((c) => tool(c))));
  }
  const final = t.finalStep(rng, success);
  steps.push(turn(final.reasoning, final.text, []));

  const root: InvocationPlan = { system: t.system, prompt: t.user, tools: CLAUDE_CODE_TOOLS, steps };
  addFaults(rng, root, faults);
  if (rng.chance(0.3)) markUnmeasured(rng, root);
  return root;
}

function* turnsOf(plan: InvocationPlan): Generator<TurnPlan> {
  for (const s of plan.steps) {
    if ('compaction' in s) continue;
    yield s;
    for (const x of s.tools) if (x.spawn) yield* turnsOf(x.spawn);
  }
}

/** Forced faults on the main invocation's turns, by index; elsewhere the odd rate limit or overload. */
function addFaults(rng: Rng, root: InvocationPlan, forced: Record<number, CallFault[]>): void {
  const mainTurns = root.steps.filter((s): s is TurnPlan => !('compaction' in s));
  for (const s of turnsOf(root)) {
    const index = mainTurns.indexOf(s);
    s.faults = forced[index] ?? (rng.chance(0.04) ? [rng.pick(['rate_limit', 'server_error'] as const)] : []);
  }
}

/** One or two tool calls whose transcript events carry no timestamp. */
function markUnmeasured(rng: Rng, root: InvocationPlan): void {
  const tools = [...turnsOf(root)].flatMap((s) => s.tools).filter((x) => !x.spawn);
  for (let n = rng.int(1, 2); n > 0; n--) rng.pick(tools).unmeasured = true;
}
